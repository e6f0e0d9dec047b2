import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { describeJsonSyntaxError, excerpt, findJsonSyntaxError, lineColumn } from '../src/recipe/json-syntax.ts'
import { FIXTURE_RECIPE } from './helpers/cli.ts'
import { depth } from './helpers/depth.ts'

const valid = (t: string) => {
  try {
    JSON.parse(t)
    return true
  } catch {
    return false
  }
}

test('findJsonSyntaxError agrees with JSON.parse on every one-character deletion and insertion in a recipe', async () => {
  // the fixture recipe with one source of each shape (its three middle sources repeat the first's keys and value types):
  // the same JSON constructs in under half the text, so a quarter of the quadratic work
  const full = JSON.parse(await readFile(FIXTURE_RECIPE, 'utf8'))
  const recipe = `${JSON.stringify({ ...full, sources: [full.sources[0], full.sources.at(-1)] }, null, 2)}\n`
  assert.ok(
    recipe.includes('true') && recipe.includes('[]') && recipe.includes('"seed": 1234'),
    'booleans, empty arrays and numbers are there',
  )
  assert.equal(findJsonSyntaxError(recipe), null)
  let broken = 0
  const inserts = ['"', ',', '}', ']', '{', '[', ':', 'x', '1', '\\', '\n', "'", '/', '-', '.', 'e']
  // every position under JEV_TEST_FULL=1; else every fourth, a position of each residue in turn
  const stride = depth(1, 4)
  for (let k = 0; k * stride < recipe.length; k++) {
    const i = Math.min(recipe.length - 1, k * stride + (k % stride))
    const variants = [recipe.slice(0, i) + recipe.slice(i + 1), ...inserts.map((c) => recipe.slice(0, i) + c + recipe.slice(i))]
    for (const t of variants) {
      const e = findJsonSyntaxError(t)
      assert.equal(e === null, valid(t), `at ${i}: ${JSON.stringify(t.slice(Math.max(0, i - 20), i + 20))}: ${e?.message}`)
      if (e) {
        broken++
        assert.ok(e.offset >= 0 && e.offset <= t.length)
        assert.deepEqual(lineColumn(t, e.offset), { line: e.line, column: e.column })
      }
    }
  }
  assert.ok(broken > recipe.length / stride, `most variants are broken (${broken})`)
})

test('findJsonSyntaxError: the values JSON has and has not, strings, escapes and numbers, as JSON.parse does', () => {
  const cases = [
    '',
    '  ',
    'null',
    'nul',
    '1',
    '01',
    '-0.5e+3',
    '1.',
    '.5',
    '+1',
    'NaN',
    '"a\\u00e9"',
    '"\\u00g0"',
    '"\\x"',
    '"tab\there"',
    '"line\nbreak"',
    '"unclosed',
    '[1, 2]',
    '[1 2]',
    '[,]',
    '[]',
    '{}',
    '{"a":1}',
    '{"a" 1}',
    '{a:1}',
    "{'a':1}",
    '{"a":}',
    '{"a":1,}',
    '[1,]',
    '{"a":1} x',
    '\uFEFF{}',
    '// c\n{}',
    '[[[[[[]]]]]]',
    '[[[[[[]]]]]',
    `${'['.repeat(100000)}${']'.repeat(100000)}`,
  ]
  for (const t of cases) assert.equal(findJsonSyntaxError(t) === null, valid(t), JSON.stringify(t.slice(0, 40)))
})

test('the messages: a missing comma, a trailing comma, an unclosed object, a word that is no value, each with line and column', () => {
  const at = (t: string) => {
    const e = findJsonSyntaxError(t)!
    return `${e.line}:${e.column} ${e.message}`
  }
  assert.equal(at('{\n  "a": 1\n  "b": 2\n}'), `3:3 '"' where ',' or '}' was expected after a property value (a comma missing?)`)
  assert.equal(at('{\n  "a": [1, 2,]\n}'), "2:14 a comma before ']' with no element after it")
  assert.equal(at('{"a": 1,\n}'), "2:1 a comma before '}' with no property after it")
  assert.equal(at('{\n  "a": 1\n'), '2:9 the file ends inside the object opened at line 1, column 1')
  assert.equal(
    at('{"a": tru}'),
    '1:7 tru is not a JSON value (a string in double quotes, a number, true, false, null, an object or an array)',
  )
  assert.equal(at("{'a': 1}"), '1:2 a single quote (JSON strings take double quotes) where a property name in double quotes was expected')
  assert.equal(at('{"é": "x\ny"}'), '1:7 a string that is not closed on its line')
  assert.equal(at(''), '1:1 the file is empty')
})

test('excerpt: the line before and the line, numbered, and a caret under the column (tabs kept); a long line cut around it', () => {
  assert.deepEqual(excerpt('{\n  "a": 1\n  "b": 2\n}', 13), ['  2 |   "a": 1', '  3 |   "b": 2', '    |   ^'])
  assert.deepEqual(excerpt('{\n\t"a": x}', 8), ['  1 | {', '  2 | \t"a": x}', '    | \t     ^'])
  const long = `[${'1,'.repeat(200)}x]`
  const lines = excerpt(long, 401)
  assert.equal(lines.length, 2)
  assert.ok(lines[0]!.startsWith('  1 | …') && lines[0]!.endsWith('x]'), lines[0])
  assert.equal(lines[1]!.indexOf('^'), lines[0]!.indexOf('x'), 'the caret is under the x')
  assert.deepEqual(describeJsonSyntaxError('{"a": 1,\n}')?.text.split('\n'), [
    "at line 2, column 1: a comma before '}' with no property after it",
    '  1 | {"a": 1,',
    '  2 | }',
    '    | ^',
  ])
  assert.equal(describeJsonSyntaxError('{"a": 1}'), null)
})
