import assert from 'node:assert/strict'
import { test } from 'node:test'
import { lendingArrays } from '../src/array-pool.ts'
import { TfIdfIndex } from '../src/similarity.ts'
import { indexCore, letGo } from '../src/similarity-core.ts'

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

// enough documents for the scratch of a query (a score per document) to come from the pool
const many = (salt: number) =>
  Array.from({ length: 700 }, (_, i) => [Array.from({ length: 9 }, (_, k) => `w${(i * 7 + k * 13 + salt) % 400}`).join(' '), `o${i % 50}`])

test('an index disposed of gives its arrays back and answers nothing more; the next index, on those arrays, scores as a fresh one', () => {
  const first = new TfIdfIndex(many(0))
  first.similar(3)
  first.candidates(5, 32, Math.round(0.9 * 2 ** 30))
  const before = lendingArrays.held
  first.dispose()
  assert.ok(lendingArrays.held > before, 'its scratch went back to the pool')
  assert.throws(() => first.similar(3), /disposed/)
  first.dispose()
  // the same core twice: one index's scratch from the pool, the other's new
  const reused = new TfIdfIndex(many(1))
  const sparse = (s: { docs: Int32Array; scores: Float64Array }) => [...s.docs].map((d, i) => [d, s.scores[i]])
  const got = [0, 17, 350, 699].map((d) => [sparse(reused.similar(d)), sparse(reused.candidates(d, 32, Math.round(0.9 * 2 ** 30))!)])
  const fresh = new TfIdfIndex(many(1))
  const want = [0, 17, 350, 699].map((d) => [sparse(fresh.similar(d)), sparse(fresh.candidates(d, 32, Math.round(0.9 * 2 ** 30))!)])
  assert.deepEqual(got, want)
})

test('a core let go of more often than it was held is an error', () => {
  const core = indexCore(many(2))
  // held by the caller and by the list of recent cores
  letGo(core)
  letGo(core)
  assert.throws(() => letGo(core), /more often than it was held/)
})
