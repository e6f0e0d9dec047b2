/**
 * Recipe input the builder refuses with a RECIPE error naming where: negation patterns that
 * can backtrack catastrophically, "__proto__" as a key anywhere, and bytes that are not UTF-8.
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { isJevError } from '../src/errors.ts'
import { loadRecipe, parseRecipe } from '../src/recipe/load.ts'
import { backtrackingRisk } from '../src/recipe/regex-safety.ts'
import { DEFAULT_NEGATION_PATTERNS } from '../src/recipe/schema.ts'
import { FIXTURE_RECIPE, ROOT } from './helpers/cli.ts'

const FIXTURE_TEXT = await readFile(FIXTURE_RECIPE, 'utf8')
const REAL_TEXT = await readFile(join(ROOT, 'recipes/jev-bench.json'), 'utf8')
const recipeError = (says: RegExp) => (e: unknown) => isJevError(e) && e.code === 'RECIPE' && says.test(e.message)

/** The fixture with its own negation patterns. */
function withPatterns(patterns: Record<string, string[]>): unknown {
  const r = JSON.parse(FIXTURE_TEXT) as Record<string, unknown>
  r.distractors = { negatives: { patterns } }
  return r
}

test('a negation pattern with nested quantifiers is a RECIPE error naming the pattern and its path, without running it', () => {
  const evil = String.raw`^(\w+\s?)+!$`
  const started = process.hrtime.bigint()
  assert.throws(
    () => parseRecipe(withPatterns({ en: ['\\bnot\\b', evil] })),
    (e: unknown) =>
      recipeError(/\$\.distractors\.negatives\.patterns\.en\.1: pattern .* can backtrack catastrophically/)(e) &&
      (e as Error).message.includes(JSON.stringify(evil)),
  )
  // the check is static: it does not take the seconds the pattern itself would on a long question
  assert.ok(process.hrtime.bigint() - started < 2_000_000_000n)
})

test('unbounded repetitions in a row that can share text, (.*){3} among them, are a RECIPE error naming the pattern and its path', () => {
  // seconds for a 400-character question, and the build runs every pattern on every question
  const evil = '(.*){3}!$'
  assert.throws(
    () => parseRecipe(withPatterns({ en: ['\\bnot\\b'], ja: [evil] })),
    (e: unknown) =>
      recipeError(/\$\.distractors\.negatives\.patterns\.ja\.0: pattern .* can backtrack catastrophically: unbounded repetitions in a row/)(
        e,
      ) && (e as Error).message.includes(JSON.stringify(evil)),
  )
  for (const p of ['.*.*!$', '.*x.*y', String.raw`\s*\s*x`, String.raw`\w+\b\w+!`, '(a+){3}', '[a-z]+[a-c]*!', String.raw`\w+\s?\w+!`])
    assert.match(backtrackingRisk(p) ?? '', /in a row/, p)
})

test('nested or overlapping repetition is found; the default patterns and plain ones pass', () => {
  for (const p of [
    '(a+)+',
    '(?:a*)*b',
    String.raw`(\d+|x)*y`,
    '(a|ab)+c',
    String.raw`(?:\w|\d)+$`,
    '((ab)*c)*',
    '(a|a?)+',
    '(a+){20}',
    String.raw`(?:a{0,3}\w)*!`,
    '(?:a?b)+c',
  ])
    assert.notEqual(backtrackingRisk(p), null, p)
  for (const p of [
    ...Object.values(DEFAULT_NEGATION_PATTERNS).flat(),
    String.raw`\b(not|never)\b`,
    '(?:ab|cd)+',
    String.raw`\w+\s\w+`,
    '[a-z]+',
    String.raw`(?:\w+\s){0,3}not`,
    'a{2,5}b*',
    '[(+*]+',
    String.raw`\(\w+\)+`,
    String.raw`[^\s]+\s+[^\s]+`,
    '[a-z]+-[0-9]+',
    String.raw`\d+\.\d+`,
    '.*!$',
    String.raw`\bnot\b.*\?$`,
  ])
    assert.equal(backtrackingRisk(p), null, p)
  assert.doesNotThrow(() => parseRecipe(JSON.parse(REAL_TEXT)))
  // every committed recipe's own patterns
  for (const f of readdirSync(join(ROOT, 'recipes')).filter((n) => /^jev-bench[\d.-]*\.json$/.test(n))) {
    const r = JSON.parse(readFileSync(join(ROOT, 'recipes', f), 'utf8')) as {
      distractors?: { negatives?: { patterns?: Record<string, string[]> } }
    }
    for (const p of Object.values(r.distractors?.negatives?.patterns ?? {}).flat()) assert.equal(backtrackingRisk(p), null, `${f}: ${p}`)
  }
})

test('"__proto__" is refused as a key in negation patterns and in changesFrom.bySource, as "fr" is', () => {
  const patterns = JSON.stringify(withPatterns({ en: ['\\bnot\\b'], zz: ['x'] })).replace('"zz"', '"__proto__"')
  assert.throws(() => parseRecipe(JSON.parse(patterns)), recipeError(/\$\.distractors\.negatives\.patterns\.__proto__: .*reserved/))
  const fr = withPatterns({ en: ['\\bnot\\b'], fr: ['pas'] })
  assert.throws(() => parseRecipe(fr), recipeError(/patterns/))
  // the current recipe with typed "Changes from" figures, their first source renamed
  const real = JSON.parse(REAL_TEXT) as { changesFrom: Record<string, unknown> }
  real.changesFrom.bySource = { jcommonsenseqa: { kept: 1, optionsChanged: 2, replaced: 0 } }
  const text = JSON.stringify(real).replace('"jcommonsenseqa":{"kept"', '"__proto__":{"kept"')
  assert.throws(() => parseRecipe(JSON.parse(text)), recipeError(/\$\.changesFrom\.bySource\.__proto__: .*reserved/))
})

test('a recipe file that is not UTF-8 is a RECIPE error naming the byte, not read with U+FFFD', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'jev-recipe-utf8-'))
  try {
    const r = JSON.parse(FIXTURE_TEXT) as { exclude: { texts: string[] } }
    r.exclude.texts = ['caf\u00e9 au lait']
    const good = Buffer.from(JSON.stringify(r, null, 2), 'utf8')
    // the é's second byte dropped: a lone lead byte
    const at = good.indexOf(Buffer.from('caf\u00e9')) + 3
    const bad = Buffer.concat([good.subarray(0, at + 1), good.subarray(at + 2)])
    const file = join(dir, 'recipe.json')
    await writeFile(file, bad)
    await assert.rejects(loadRecipe(file), recipeError(new RegExp(`not valid UTF-8 \\(byte ${at}, line \\d+\\)`)))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
