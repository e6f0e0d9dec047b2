import assert from 'node:assert/strict'
import { test } from 'node:test'
import { TfIdfIndex } from '../src/similarity.ts'
import { indexCore } from '../src/similarity-core.ts'

// texts built at run time: equal strings that are other objects, as a second build of a group's documents gives
const documents = (extra = '') =>
  ['which gas do plants take in', 'plants release oxygen', 'the moon orbits the earth', `which planet is closest${extra}`].map((t, i) => [
    [t, ''].join(''),
    `option ${i}`,
  ])

test('an index over the same texts in the same order shares the arrays built before, and scores the same', () => {
  const first = indexCore(documents())
  assert.equal(indexCore(documents()), first)
  const a = new TfIdfIndex(documents())
  const b = new TfIdfIndex(documents())
  for (let d = 0; d < 4; d++) assert.deepEqual([...a.similarities(d)], [...b.similarities(d)])
})

test('one text different, or the same texts in another order, is another index', () => {
  const first = indexCore(documents())
  const changed = indexCore(documents(' to the sun'))
  assert.notEqual(changed, first)
  assert.notDeepEqual([...changed.terms], [...first.terms])
  const reversed = documents().reverse()
  const other = indexCore(reversed)
  assert.notEqual(other, first)
  // the cores built fresh, compared: the same documents in another order number their terms otherwise
  assert.deepEqual(other.words, [
    'which',
    'planet',
    'is',
    'closest',
    'option',
    '3',
    'the',
    'moon',
    'orbits',
    'earth',
    '2',
    'plants',
    'release',
    'oxygen',
    '1',
    'gas',
    'do',
    'take',
    'in',
    '0',
  ])
})
