/**
 * A recipe or a lock with a key given twice (JSON.parse keeps the later value silently) or nested
 * far deeper than either needs (the schema's recursive checks would overflow the stack) is refused
 * with a RECIPE or LOCK error naming the file, the key's JSON path and line, or the depth.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { isJevError, type JevError } from '../src/errors.ts'
import { findJsonStrictProblem } from '../src/recipe/json-strict.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import { FIXTURE_RECIPE, ROOT } from './helpers/cli.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-json-strict-'))
})
after(() => rm(tmp, { recursive: true, force: true }))

const FIXTURE_TEXT = await readFile(FIXTURE_RECIPE, 'utf8')
let files = 0

async function refused(text: string, code: 'RECIPE' | 'LOCK', read: (file: string) => Promise<unknown>): Promise<JevError> {
  const file = join(tmp, `${++files}.json`)
  await writeFile(file, text)
  try {
    await read(file)
  } catch (e) {
    assert.ok(isJevError(e), `a typed error, not ${String(e)}`)
    assert.equal(e.code, code, e.message)
    assert.ok(e.message.includes(file), `names the file: ${e.message}`)
    return e
  }
  return assert.fail('accepted')
}

test('"seed": 1234, "seed": 99 in a recipe is a RECIPE error naming $.seed and both lines, not a build with 99', async () => {
  const text = FIXTURE_TEXT.replace('"seed": 1234,', '"seed": 1234,\n  "seed": 99,')
  assert.notEqual(text, FIXTURE_TEXT)
  const line = text.split('\n').findIndex((l) => l.includes('"seed": 99')) + 1
  const e = await refused(text, 'RECIPE', loadRecipe)
  assert.match(e.message, new RegExp(`the key "seed" is given twice \\(\\$\\.seed, line ${line}; first on line ${line - 1}\\)`))
  assert.equal(e.context.path, '$.seed')
  assert.equal(e.context.line, line)
})

test('a duplicate deep inside, or spelled with an escape, is found with its path', async () => {
  const json = JSON.parse(FIXTURE_TEXT) as { sources: Record<string, unknown>[] }
  const nested = JSON.stringify(json, null, 2).replace(/"repo": /, '"repo": "x/y",\n      "repo": ')
  assert.match((await refused(nested, 'RECIPE', loadRecipe)).message, /the key "repo" is given twice \(\$\.sources\.0\.repo, line \d+/)
  assert.deepEqual(findJsonStrictProblem('{"a": [{"b": 1}, {"se\\u0065d": 1, "seed": 2}]}'), {
    kind: 'duplicate',
    key: 'seed',
    path: ['a', 1, 'seed'],
    firstLine: 1,
    line: 1,
    column: 35,
  })
  // the same key in sibling objects, or as a value, is no duplicate
  assert.equal(findJsonStrictProblem('{"a": {"k": 1}, "b": {"k": "k"}, "k": ["k", "k"]}'), null)
})

test('200,000 nested [ in a recipe is a RECIPE error naming the file and the depth, not a stack overflow', async () => {
  const n = 200_000
  const e = await refused(`{"seed": ${'['.repeat(n)}${']'.repeat(n)}}`, 'RECIPE', loadRecipe)
  assert.match(e.message, /it nests 200001 levels deep, more than the 64 allowed \(the first level too many is at line 1, column 73\)/)
  // unclosed, it is a syntax error as before
  assert.match((await refused('['.repeat(n), 'RECIPE', loadRecipe)).message, /not valid JSON at line 1/)
})

test('a lock with a key given twice is a LOCK error naming its path; the committed recipes and locks have none', async () => {
  const lock = await readFile(join(ROOT, 'test/fixtures/recipe.lock.json'), 'utf8')
  const text = lock.replace('"lockVersion": 1,', '"lockVersion": 1,\n  "lockVersion": 1,')
  assert.notEqual(text, lock)
  assert.match(
    (await refused(text, 'LOCK', readLock)).message,
    /the key "lockVersion" is given twice \(\$\.lockVersion, line 3; first on line 2\)/,
  )
  for (const f of (await readdir(join(ROOT, 'recipes'))).filter((n) => n.endsWith('.json')))
    assert.equal(findJsonStrictProblem(await readFile(join(ROOT, 'recipes', f), 'utf8')), null, f)
})
