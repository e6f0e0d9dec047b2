/**
 * Recipe input the builder refuses with a RECIPE error naming where: negation patterns that
 * can backtrack catastrophically, "__proto__" as a key anywhere, and bytes that are not UTF-8.
 */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { isJevError } from '../src/errors.ts'
import { parseRecipe } from '../src/recipe.ts'
import { backtrackingRisk } from '../src/regex-safety.ts'
import { DEFAULT_NEGATION_PATTERNS } from '../src/schema.ts'
import { FIXTURE_RECIPE } from './helpers/cli.ts'

const FIXTURE_TEXT = await readFile(FIXTURE_RECIPE, 'utf8')
const REAL_TEXT = await readFile(new URL('../recipes/jev-bench.json', import.meta.url), 'utf8')
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

test('nested or overlapping repetition is found; the default patterns and plain ones pass', () => {
  for (const p of [
    String.raw`(a+)+`,
    String.raw`(?:a*)*b`,
    String.raw`(\d+|x)*y`,
    String.raw`(a|ab)+c`,
    String.raw`(?:\w|\d)+$`,
    String.raw`((ab)*c)*`,
    String.raw`(a|a?)+`,
    String.raw`(a+){20}`,
  ])
    assert.notEqual(backtrackingRisk(p), null, p)
  for (const p of [
    ...Object.values(DEFAULT_NEGATION_PATTERNS).flat(),
    String.raw`\b(not|never)\b`,
    String.raw`(?:ab|cd)+`,
    String.raw`\w+\s\w+`,
    String.raw`[a-z]+`,
    String.raw`(?:\w+\s){0,3}not`,
    String.raw`a{2,5}b*`,
    String.raw`[(+*]+`,
    String.raw`\(\w+\)+`,
  ])
    assert.equal(backtrackingRisk(p), null, p)
  assert.doesNotThrow(() => parseRecipe(JSON.parse(REAL_TEXT)))
})
