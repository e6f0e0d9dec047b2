import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { isJevError, type JevError } from '../src/errors.ts'
import { loadRecipe, parseRecipe, recipeHash, recipeJsonSchema } from '../src/recipe/load.ts'

const REAL = 'recipes/jev-bench.json'
const realJson = () => JSON.parse(readFileSync(REAL, 'utf8')) as Record<string, any>

/** The RECIPE error parseRecipe throws for `value`, or a failed assertion. */
function recipeError(value: unknown): JevError {
  try {
    parseRecipe(value)
  } catch (e) {
    assert.ok(isJevError(e), `not a JevError: ${e}`)
    assert.equal(e.code, 'RECIPE')
    return e
  }
  assert.fail('parseRecipe accepted a bad recipe')
}

describe('parseRecipe', () => {
  test('accepts the real recipe, whose tables match the spec', () => {
    const r = parseRecipe(realJson(), REAL)
    assert.equal(r.seed, 1234)
    assert.equal(r.borrowMaxChars, 200)
    assert.deepEqual(r.quotas.test, { '2': 296, '3': 151, '4': 207, '5': 158, '6': 110, '7': 162, '8': 107 })
    assert.deepEqual(r.quotas.val, { '2': 119, '3': 40, '4': 55, '5': 42, '6': 30, '7': 43, '8': 29 })
    const counts = Object.fromEntries(r.sources.map((s) => [s.name, [s.test.count, s.val.count]]))
    assert.deepEqual(counts, {
      jcommonsenseqa: [300, 100],
      mmlu: [291, 100],
      arc_challenge: [250, 18],
      arc_easy: [200, 60],
      boolq: [150, 80],
    })
    // defaults are applied
    assert.equal(r.sources[0]!.shuffle, true)
    assert.equal(r.sources.find((s) => s.name === 'boolq')!.shuffle, false)
  })

  test('accepts the fixture recipe', async () => {
    const r = await loadRecipe('test/fixtures/recipe.json')
    assert.equal(r.sources.length, 5)
  })

  test('lists every problem with its JSON path', () => {
    const bad = realJson()
    bad.sources[1].revision = 'main' // not a commit
    bad.sources[3].colour = 'red' // unknown key
    bad.extra = true // unknown key at the top
    bad.sources[0].test.count = 301 // counts no longer sum to the test quota
    bad.sources[4].fixedChoices = 6 // 150 and 80 fixed items with 6 options, over the quotas 110 and 30
    const e = recipeError(bad)
    const lines = e.message.split('\n').slice(1)
    const expectPath = (path: string, what: RegExp) =>
      assert.ok(
        lines.some((l) => l.includes(`at ${path}:`) && what.test(l)),
        `no line for ${path} in\n${e.message}`,
      )
    expectPath('$.sources.1.revision', /commit/)
    expectPath('$.sources.3', /colour/)
    expectPath('$', /extra/)
    expectPath('$.quotas.test', /1191.*1192|1192.*1191/)
    expectPath('$.quotas.test.6', /150.*110/)
    expectPath('$.quotas.val.6', /80.*30/)
    assert.equal(lines.length, 6, e.message)
    // the context carries the same issues for tools
    assert.equal((e.context.issues as unknown[]).length, 6)
  })

  test('names an unknown adapter', () => {
    const bad = realJson()
    bad.sources[2].adapter = 'squad'
    assert.match(recipeError(bad).message, /\$\.sources\.2\.adapter/)
  })

  test('names a seed given as a string', () => {
    const bad = realJson()
    bad.seed = '1234'
    assert.match(recipeError(bad).message, /\$\.seed/)
  })

  test('names a side drawn from a split with no files', () => {
    const bad = realJson()
    bad.sources[2].val.from = 'dev'
    assert.match(recipeError(bad).message, /\$\.sources\.2\.val\.from: .*dev/)
  })

  test('lists the cross-field problems too when a field has the wrong type', () => {
    const bad = realJson()
    bad.seed = '1234'
    bad.sources[1].adapter = 'nope'
    bad.sources[0].test.count = 301
    const msg = recipeError(bad).message
    assert.match(msg, /\$\.seed/)
    assert.match(msg, /\$\.sources\.1\.adapter/)
    assert.match(msg, /\$\.quotas\.test:/)
  })
})

describe('recipeHash', () => {
  test('ignores $schema and key order', () => {
    const a = realJson()
    const b = realJson()
    b.$schema = 'https://example.com/another.json'
    const reversed = Object.fromEntries(Object.entries(realJson()).reverse())
    delete reversed.$schema
    const h = recipeHash(parseRecipe(a))
    assert.match(h, /^[0-9a-f]{64}$/)
    assert.equal(recipeHash(parseRecipe(b)), h)
    assert.equal(recipeHash(parseRecipe(reversed)), h)
  })

  test('treats a spelled-out default like the default', () => {
    const a = realJson()
    const b = realJson()
    b.sources[0].shuffle = true
    assert.equal(recipeHash(parseRecipe(b)), recipeHash(parseRecipe(a)))
  })

  test('changes with the content', () => {
    const a = realJson()
    const b = realJson()
    b.seed = 1235
    assert.notEqual(recipeHash(parseRecipe(b)), recipeHash(parseRecipe(a)))
  })
})

test('recipes/recipe.schema.json is what npm run recipe-schema writes from the zod schema', () => {
  assert.equal(
    readFileSync('recipes/recipe.schema.json', 'utf8'),
    `${JSON.stringify(recipeJsonSchema(), null, 2)}\n`,
    'regenerate it with npm run recipe-schema',
  )
})
