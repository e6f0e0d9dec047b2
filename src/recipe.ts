import { z } from 'zod'
import { canonicalJson } from './canonical.ts'
import { JevError } from './errors.ts'
import { readRegular } from './files.ts'
import { sha256Hex } from './hash.ts'
import { describeJsonSyntaxError } from './json-syntax.ts'
import { notReserved, Recipe, type SourceSpec } from './schema.ts'

/** Every problem, one per line, each with its JSON path. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => `  at ${i.path.length ? `$.${i.path.join('.')}` : '$'}: ${i.message}`).join('\n')
}

/** `files` keys such as "__proto__" or "constructor", which zod would drop or keep as a split; from the raw JSON. */
function reservedKeys(value: unknown): z.core.$ZodIssue[] {
  const sources = (value as { sources?: unknown } | null)?.sources
  if (!Array.isArray(sources)) return []
  return sources.flatMap((s: unknown, i) => {
    const files = (s as { files?: unknown } | null)?.files
    const keys = typeof files === 'object' && files !== null ? Object.keys(files) : []
    return keys
      .filter((k) => !notReserved(k))
      .map(
        (k) =>
          ({
            code: 'custom',
            input: k,
            path: ['sources', i, 'files', k],
            message: `"${k}" is a reserved name, not a split`,
          }) as z.core.$ZodIssue,
      )
  })
}

export function parseRecipe(value: unknown, file = '<recipe>'): Recipe {
  const r = Recipe.safeParse(value)
  const issues = [...reservedKeys(value), ...(r.success ? [] : r.error.issues)]
  if (!r.success || issues.length) {
    throw new JevError('RECIPE', `invalid recipe ${file}:\n${formatIssues(issues)}`, {
      file,
      issues: issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    })
  }
  return r.data
}

export async function loadRecipe(file: string): Promise<Recipe> {
  let text: string
  try {
    text = (await readRegular(file)).toString('utf8')
  } catch (e) {
    throw new JevError('IO', `cannot read recipe ${file}: ${(e as Error).message}`, { file }, { cause: e })
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    // a line, a column and the text around them; there are no JSON paths to list
    const where = describeJsonSyntaxError(text)
    throw new JevError(
      'RECIPE',
      `recipe ${file} is not valid JSON${where ? ` ${where.text}` : `: ${(e as Error).message}`}`,
      {
        file,
        ...(where ? { line: where.line, column: where.column } : {}),
        hint: 'fix the JSON syntax where the caret points, and run again',
      },
      { cause: e },
    )
  }
  return parseRecipe(json, file)
}

/**
 * A source's files in load order: by upstream split, then as the recipe lists
 * them. The recipe hash ignores the order of keys, so nothing may follow it.
 */
export function sourceFiles(spec: SourceSpec): { split: string; path: string }[] {
  return Object.keys(spec.files)
    .sort()
    .flatMap((split) => (spec.files[split] ?? []).map((path) => ({ split, path })))
}

/** Hash of the parsed recipe (defaults applied), so formatting changes do not count. */
export function recipeHash(recipe: Recipe): string {
  const { $schema: _, ...content } = recipe
  return sha256Hex(canonicalJson(content))
}

export function recipeJsonSchema(): unknown {
  return z.toJSONSchema(Recipe, { io: 'input', unrepresentable: 'any' })
}
