import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { SCALE, TfIdfIndex } from '../src/borrow/similarity.ts'

describe('TfIdfIndex', () => {
  const docs = [
    'which gas do plants take in for photosynthesis carbon dioxide oxygen',
    'plants release oxygen during photosynthesis in sunlight',
    'the moon orbits the earth once a month',
    'which planet is closest to the sun mercury venus',
    'which gas do plants take in for photosynthesis carbon dioxide oxygen',
  ].map((text) => [text])
  const index = new TfIdfIndex(docs)

  test('a document is fully similar to itself and to an exact copy; unrelated ones score 0', () => {
    const s = index.similarities(0)
    assert.equal(s[0], SCALE)
    assert.equal(s[4], SCALE)
    assert.equal(index.similarities(2)[1], 0)
  })

  test('scores agree both ways (the quantising absorbs the summation order) and rank the topical neighbour first', () => {
    for (let a = 0; a < docs.length; a++)
      for (let b = 0; b < docs.length; b++) assert.equal(index.similarities(a)[b], index.similarities(b)[a])
    const s = index.similarities(1)
    assert.ok(s[0]! > s[3]! && s[0]! > s[2]!)
  })

  test('a term in every document weighs less than a rare one', () => {
    const common = new TfIdfIndex([['x a'], ['x', 'b'], ['x c'], ['y', 'a']])
    // doc 0 shares "x" with doc 1 (in 3 of 4 documents) and "a" with doc 3 (in 2 of 4)
    assert.ok(common.similarities(0)[3]! > common.similarities(0)[1]!)
  })

  test('a document that shares no weighted term with another scores 0 with it', () => {
    // "which" is in documents 0, 3 and 4, "the" in 2 and 3; document 1 shares nothing with document 3
    const s = index.similarities(3)
    assert.deepEqual(
      [0, 1, 2, 3, 4].filter((d) => s[d]! > 0),
      [0, 2, 3, 4],
    )
    // a term in every document weighs 0, so it makes no score
    assert.deepEqual([...new TfIdfIndex([['x'], ['x'], ['x y']]).similarities(0)], [0, 0, 0])
  })

  test('the same documents in another order give the same score to each pair', () => {
    const order = [3, 0, 4, 2, 1]
    const permuted = new TfIdfIndex(order.map((i) => docs[i]!))
    for (let a = 0; a < order.length; a++)
      for (let b = 0; b < order.length; b++) assert.equal(permuted.similarities(a)[b], index.similarities(order[a]!)[order[b]!])
  })
})
