import assert from 'node:assert/strict'
import { test } from 'node:test'
import { lendingArrays } from '../src/borrow/array-pool.ts'
import { TfIdfIndex } from '../src/borrow/similarity.ts'
import { indexCore, letGo } from '../src/borrow/similarity-core.ts'

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

// enough documents for an index's arrays to come from the pool (4 KB and up)
const many = (salt: number) =>
  Array.from({ length: 700 }, (_, i) => [Array.from({ length: 9 }, (_, k) => `w${(i * 7 + k * 13 + salt) % 400}`).join(' '), `o${i % 50}`])
// a core of ~35 MB: two of them push every other core out of the recent list (64 MB)
const big = (salt: number) =>
  Array.from({ length: 20000 }, (_, i) => [Array.from({ length: 30 }, (_, k) => `b${salt}x${(i * 31 + k * 7919) % 200000}`).join(' ')])

const NEAR = Math.round(0.9 * 2 ** 30)
const sparse = (s: { docs: Int32Array; scores: Float64Array }) => [...s.docs].map((d, i) => [d, s.scores[i]])
const answers = (index: TfIdfIndex) => [0, 17, 350, 699].map((d) => [sparse(index.similar(d)), sparse(index.candidates(d, 32, NEAR)!)])

test('an index disposed of gives its scratch back and answers nothing more', () => {
  const index = new TfIdfIndex(many(0))
  answers(index)
  const before = lendingArrays.held
  index.dispose()
  assert.ok(lendingArrays.held > before, 'its scratch went back to the pool')
  assert.throws(() => index.similar(3), /disposed/)
  assert.throws(() => index.headTerms(3), /disposed/)
  index.dispose()
})

test('a core an index holds keeps its arrays when the recent list lets it go; let go by all, they serve a new core, which scores as the first did', () => {
  const a = new TfIdfIndex(many(1))
  const b = new TfIdfIndex(many(1)) // the same texts: the same core
  const held = answers(b)
  const first = new TfIdfIndex(many(2)) // held to the end
  const want = answers(first)
  a.dispose()
  for (const salt of [1, 2]) new TfIdfIndex(big(salt)).dispose()
  // every core above is out of the recent list now: b's is held by b alone, and a new core takes what the pool has
  const other = new TfIdfIndex(many(3))
  answers(other)
  other.dispose()
  assert.deepEqual(answers(b), held)
  b.dispose()
  // many(2)'s first core has left the recent list too: this is a new core, on arrays b and other gave back
  const again = new TfIdfIndex(many(2))
  assert.deepEqual(answers(again), want)
  assert.notEqual(again.headTerms(0).buffer, first.headTerms(0).buffer)
})

test('a core let go of more often than it was held is an error', () => {
  // texts no other test uses: this core stays on the recent list with its arrays given back
  const core = indexCore(many(99))
  // held by the caller and by the list of recent cores
  letGo(core)
  letGo(core)
  assert.throws(() => letGo(core), /more often than it was held/)
})
