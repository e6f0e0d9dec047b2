import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { mix32, ranked } from '../src/borrow/rank.ts'
import { SCALE, TfIdfIndex } from '../src/borrow/similarity.ts'
import { type Rng, rngFor } from '../src/shape/rng.ts'
import { normalize } from '../src/util/canonical.ts'
import { readRows } from './helpers/parquet.ts'

/** tie keys as lend.ts's are, a fixed number per lender, with few distinct values so that ties happen */
const tiesOf = (n: number, distinct: number, rng: Rng) => Uint32Array.from({ length: n }, () => rng.uint32() % distinct)

/** the full order: every other document by score, then keyed mix, then position; near-copies and self out */
function bruteForce(index: TfIdfIndex, self: number, keys: Uint32Array, nearCopy: number): number[] {
  const s = index.similarities(self)
  const mine = keys[self]!
  return Array.from({ length: index.size }, (_, j) => j)
    .filter((j) => j !== self && s[j]! < nearCopy)
    .sort((a, b) => s[b]! - s[a]! || mix32(mine ^ keys[a]!) - mix32(mine ^ keys[b]!) || a - b)
}

/** the first `n` a walk takes, and the walk closed, as lend.ts does */
function take(it: Iterable<number>, n: number): number[] {
  const out: number[] = []
  for (const j of it) if (out.push(j) === n) break
  return out
}

/** Zipf-like words: the r-th most common word drawn with weight 1/r, as in real questions */
function zipfDocs(rng: Rng, n: number, vocab: number): string[][] {
  const cdf = new Float64Array(vocab)
  let sum = 0
  for (let r = 0; r < vocab; r++) cdf[r] = sum += 1 / (r + 1)
  const word = () => {
    const u = (rng.uint32() / 2 ** 32) * sum
    let lo = 0
    let hi = vocab - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cdf[mid]! < u) lo = mid + 1
      else hi = mid
    }
    return `w${lo}`
  }
  return Array.from({ length: n }, () => [Array.from({ length: 5 + (rng.uint32() % 30) }, word).join(' ')])
}

/** ranked's order, walked whole and closed early as lend.ts does, is a full sort's */
function check(index: TfIdfIndex, rng: Rng, queries: number, nearCopy: number): void {
  const ties = tiesOf(index.size, 5, rng)
  for (let q = 0; q < queries; q++) {
    const self = rng.uint32() % index.size
    const want = bruteForce(index, self, ties, nearCopy)
    assert.deepEqual(take(ranked(index, self, ties, nearCopy), 30), want.slice(0, 30), `query ${self}`)
    assert.deepEqual([...ranked(index, self, ties, nearCopy)], want)
  }
}

describe('ranked', () => {
  test('gives the full ranking on Zipf-like text', () => {
    const rng = rngFor(3, 'unit', 'ranked-zipf')
    const index = new TfIdfIndex(zipfDocs(rng, 1500, 3000))
    check(index, rng, 60, Math.round(0.9 * SCALE))
  })

  test('gives the full ranking on uniform text, small groups, many ties and near-copy thresholds', () => {
    const rng = rngFor(4, 'unit', 'ranked-uniform')
    for (const [n, vocab, nearCopy] of [
      [300, 400, 0.9],
      [60, 30, 0.5],
      [35, 10, 0.95],
      [20, 50, 0.9],
      [200, 8, 0.3],
    ] as const) {
      // few distinct words: many equal scores; exact copies give scores of 1, above the threshold
      const docs = Array.from({ length: n }, () => [
        Array.from({ length: 3 + (rng.uint32() % 6) }, () => `v${rng.uint32() % vocab}`).join(' '),
      ])
      for (let i = 0; i < n / 10; i++) docs[rng.uint32() % n] = docs[rng.uint32() % n]!
      check(new TfIdfIndex(docs), rng, 15, Math.round(nearCopy * SCALE))
    }
  })

  test('gives the full ranking on real questions (the fixtures: ARC, MMLU, BoolQ)', async () => {
    const hub = 'test/fixtures/hub/datasets'
    const docs: string[][] = []
    for (const f of ['allenai/ai2_arc/ARC-Easy/test', 'allenai/ai2_arc/ARC-Challenge/test', 'cais/mmlu/all/test'])
      for (const r of await readRows(`${hub}/${f}-00000-of-00001.parquet`)) {
        const choices = r.choices as { text: string[] } | string[]
        docs.push([normalize(r.question as string), ...(Array.isArray(choices) ? choices : choices.text).map((t) => normalize(t))])
      }
    for (const r of await readRows(`${hub}/google/boolq/data/validation-00000-of-00001.parquet`))
      docs.push([normalize(r.question as string), normalize(r.passage as string)])
    const rng = rngFor(5, 'unit', 'ranked-real')
    check(new TfIdfIndex(docs), rng, 80, Math.round(0.9 * SCALE))
  })
})
