import assert from 'node:assert/strict'
import { test } from 'node:test'
import { kthBest, SLACK } from '../src/borrow/top-k.ts'
import { rngFor } from '../src/shape/rng.ts'

test('kthBest: the k-th largest partial score, over all and over those sure to stay under the ceiling, as a sort finds them', () => {
  const rng = rngFor(9, 'unit', 'kth-best')
  for (let round = 0; round < 200; round++) {
    const n = 1 + (rng.uint32() % 80)
    const k = 1 + (rng.uint32() % 12)
    // few distinct values, so ties happen; some at 0 and at the slack, which never count
    const acc = Float64Array.from({ length: n }, () => [0, SLACK, 0.1, 0.25, 0.5, 0.7, 0.9][rng.uint32() % 7]!)
    const touched = Int32Array.from({ length: n }, (_, j) => j)
    const self = rng.uint32() % n
    const rest = [0, 0.1, 0.3][rng.uint32() % 3]!
    const ceil = 0.8
    const out = new Float64Array(2 * k + 2)
    const below = [-1, 0.3, 0.6][rng.uint32() % 3]!
    const kept = kthBest(acc, touched, n, self, rest, ceil, k, out, below)
    const others = [...acc].filter((p, j) => j !== self && p > SLACK)
    const all = others.sort((a, b) => b - a)
    const sure = all.filter((p) => p + rest < ceil)
    assert.equal(out[2 * k], sure.length < k ? -1 : sure[k - 1])
    assert.equal(out[2 * k + 1], all.length < k ? SLACK : all[k - 1])
    assert.equal(kept, [...acc].filter((p) => p + rest >= below).length)
  }
})
