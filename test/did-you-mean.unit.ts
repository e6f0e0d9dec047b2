import assert from 'node:assert/strict'
import { test } from 'node:test'
import { closest, didYouMean, editDistance } from '../src/util/did-you-mean.ts'

test('editDistance: inserts, deletes, substitutions, and a swap of neighbours as one edit', () => {
  assert.equal(editDistance('mirror', 'mirror'), 0)
  assert.equal(editDistance('mirorr', 'mirror'), 1, 'a swap of two neighbours')
  assert.equal(editDistance('offine', 'offline'), 1)
  assert.equal(editDistance('ouput', 'out'), 2)
  assert.equal(editDistance('', 'out'), 3)
  assert.equal(editDistance('kitten', 'sitting'), 3)
})

test('closest: the nearest names within the limit, in code-unit order; nothing for a wholly different name', () => {
  const names = ['recipe', 'lock', 'mirror', 'offline', 'out', 'json', 'quiet']
  assert.deepEqual(closest('mirorr', names), ['mirror'])
  assert.deepEqual(closest('ouput', names), ['out'])
  assert.deepEqual(closest('zzzzzz', names), [])
  assert.deepEqual(closest('x', names), [], 'one letter is never "close" to anything')
  assert.deepEqual(closest('lick', ['lock', 'lack', 'luck']), ['lack', 'lock', 'luck'])
  assert.deepEqual(closest('build-datset', ['build-dataset', 'check-dataset', 'diff-dataset']), ['build-dataset'])
})

test('didYouMean: one line naming one or several names, null when none is close', () => {
  assert.equal(didYouMean('mirorr', ['mirror', 'out'], '--'), 'did you mean --mirror?')
  assert.equal(didYouMean('lick', ['lock', 'lack', 'luck']), 'did you mean lack, lock or luck?')
  assert.equal(didYouMean('bogus', ['mirror', 'out'], '--'), null)
})
