import { dirname, resolve } from 'node:path'
import { z } from 'zod'
import { JevError } from '../errors.ts'
import { canonicalJson } from '../util/canonical.ts'
import { readRegular } from '../util/files.ts'
import { sha256Hex } from '../util/hash.ts'
import { BUILDER } from '../version.ts'
import { describeJsonStrictProblem, findJsonStrictProblem, jsonPath } from './json-strict.ts'
import { describeJsonSyntaxError } from './json-syntax.ts'
import { pinnedFile } from './pinned-path.ts'
import { EARLIER_RULE, notReserved, Recipe, type SourceSpec } from './schema.ts'
import { invalidUtf8 } from './utf8.ts'
import { assertThisBuilder, earlierVersions } from './versions.ts'

/** Every problem, one per line, each with its JSON path. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => `  at ${i.path.length ? `$.${i.path.join('.')}` : '$'}: ${i.message}`).join('\n')
}

/**
 * Keys such as "__proto__" or "constructor" anywhere in the raw JSON: zod drops or keeps them
 * unchecked (a record's "__proto__", a `files` split), and recipe keys become object keys.
 */
function reservedKeys(value: unknown, path: (string | number)[] = []): z.core.$ZodIssue[] {
  if (typeof value !== 'object' || value === null) return []
  if (Array.isArray(value)) return value.flatMap((v, i) => reservedKeys(v, [...path, i]))
  return Object.keys(value).flatMap((k) => {
    const here = [...path, k]
    if (notReserved(k)) return reservedKeys((value as Record<string, unknown>)[k], here)
    const split = path.length === 3 && path[0] === 'sources' && path[2] === 'files'
    return [
      {
        code: 'custom',
        input: k,
        path: here,
        message: `"${k}" is a reserved name, not ${split ? 'a split' : 'a key'}`,
      } as z.core.$ZodIssue,
    ]
  })
}

export function parseRecipe(value: unknown, file = '<recipe>'): Recipe {
  assertThisBuilder(value, file)
  const r = Recipe.safeParse(value)
  const issues = [...reservedKeys(value), ...(r.success ? [] : r.error.issues)]
  if (issues.length && issues.every((i) => i.message.startsWith(EARLIER_RULE))) throw earlierRules(file, issues)
  if (!r.success || issues.length) {
    throw new JevError('RECIPE', `invalid recipe ${file}:\n${formatIssues(issues)}`, {
      file,
      issues: issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    })
  }
  return r.data
}

/** A recipe whose only faults are rules this builder no longer has: written for an earlier builder, which builds it. */
function earlierRules(file: string, issues: readonly z.core.$ZodIssue[]): JevError {
  const paths = issues.map((i) => `$.${i.path.join('.')}`)
  const commits = earlierVersions()
    .versions.map((v) => `${v.version} ${v.commit.slice(0, 12)}`)
    .join(', ')
  return new JevError(
    'BUILDER',
    `${file}: follows rules only an earlier builder has (at ${paths.join(', ')}); this builder (${BUILDER.version}) builds only the current rules`,
    {
      file,
      field: issues[0]!.path.join('.'),
      hint: `build it with the builder of the version whose rules it follows (recipes/versions.json: ${commits}; README: "Earlier versions"), or write those fields as this builder's (npm run recipe-schema describes them)`,
    },
  )
}

export async function loadRecipe(file: string): Promise<Recipe> {
  let bytes: Buffer
  try {
    bytes = await readRegular(file)
  } catch (e) {
    throw new JevError('IO', `cannot read recipe ${file}: ${(e as Error).message}`, { file }, { cause: e })
  }
  // read with U+FFFD in its place, a bad byte would change the recipe (and its hash) unseen
  const bad = invalidUtf8(bytes)
  if (bad) throw new JevError('RECIPE', `recipe ${file} is not valid UTF-8 (byte ${bad.byte}, line ${bad.line})`, { file, ...bad })
  const text = bytes.toString('utf8')
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
  // before the schema, whose checks recurse, and which would never see the value JSON.parse dropped
  const strict = findJsonStrictProblem(text)
  if (strict)
    throw new JevError('RECIPE', `recipe ${file}: ${describeJsonStrictProblem(strict)}`, {
      file,
      line: strict.line,
      column: strict.column,
      path: jsonPath(strict.path),
      hint:
        strict.kind === 'duplicate'
          ? 'keep one of the two, with the value meant, and run again'
          : 'a recipe nests a few levels; check the file is the recipe meant',
    })
  const recipe = parseRecipe(json, file)
  LOCATIONS.set(recipe, file)
  return recipe
}

// where each recipe loadRecipe read came from, so a file it names resolves next to it
const LOCATIONS = new WeakMap<Recipe, string>()

/** A file a recipe names (its word vectors, say), next to the recipe file; for a recipe not read from a file, from the working folder. */
export function recipeResource(recipe: Recipe, path: string): string {
  const at = LOCATIONS.get(recipe)
  return at === undefined ? resolve(path) : resolve(dirname(at), path)
}

/** A file the recipe pins, by the one check that keeps it in the recipe's folder (src/recipe/pinned-path.ts). */
export function pinnedResource(recipe: Recipe, path: string, field: string): string {
  const at = LOCATIONS.get(recipe)
  return pinnedFile(at === undefined ? process.cwd() : dirname(at), path, field, at)
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

/**
 * Hash of the parsed recipe (defaults applied), so formatting changes do not count; `$schema` and `builder`
 * say which tools read it, not what it builds.
 */
export function recipeHash(recipe: Recipe): string {
  const { $schema: _, builder: __, ...content } = recipe
  return sha256Hex(canonicalJson(content))
}

export function recipeJsonSchema(): unknown {
  return z.toJSONSchema(Recipe, { io: 'input', unrepresentable: 'any' })
}
