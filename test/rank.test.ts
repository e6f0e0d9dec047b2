import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { mix32, rank, ranked, TOP } from '../src/borrow/rank.ts'
import { SCALE, TfIdfIndex } from '../src/borrow/similarity.ts'
import { type Rng, rngFor } from '../src/shape/rng.ts'
import { normalize } from '../src/util/canonical.ts'
import { readRows } from './helpers/parquet.ts'

/** tie keys as lend.ts's are, a fixed number per lender, with few distinct values so that ties happen */
const tiesOf = (n: number, distinct: number, rng: Rng) => {
  const keys = Uint32Array.from({ length: n }, () => rng.uint32() % distinct)
  return { keys, of: (j: number) => keys[j]! }
}

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

/** how many queries the pruned search answered with fewer documents than a full pass touches */
function check(index: TfIdfIndex, rng: Rng, queries: number, nearCopy: number): number {
  const ties = tiesOf(index.size, 5, rng)
  let pruned = 0
  for (let q = 0; q < queries; q++) {
    const self = rng.uint32() % index.size
    const want = bruteForce(index, self, ties.keys, nearCopy)
    const some = index.candidates(self, TOP, nearCopy)
    const candidates = some === null ? null : [...some.docs]
    if (candidates !== null && candidates.length < index.similar(self).docs.length) pruned++
    // the first TOP from the pruned search, a short walk (closed early), and a long one through the fall-back
    assert.deepEqual(take(ranked(index, self, ties, nearCopy), TOP), want.slice(0, TOP), `query ${self}`)
    assert.deepEqual(take(ranked(index, self, ties, nearCopy), 30), want.slice(0, 30))
    assert.deepEqual([...ranked(index, self, ties, nearCopy)], want)
    if (candidates === null) continue
    // the candidates' scores are bit-identical to a full pass's
    const all = index.similarities(self)
    const again = index.candidates(self, TOP, nearCopy)!
    assert.deepEqual(
      [...again.scores],
      [...again.docs].map((d) => all[d]!),
    )
  }
  return pruned
}

describe('ranked: the pruned top-k search', () => {
  test('gives the full ranking on Zipf-like text, and prunes most queries there', () => {
    const rng = rngFor(3, 'unit', 'ranked-zipf')
    const index = new TfIdfIndex(zipfDocs(rng, 1500, 3000))
    const pruned = check(index, rng, 60, Math.round(0.9 * SCALE))
    assert.ok(pruned > 40, `pruned ${pruned} of 60`)
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

describe('rank', () => {
  test('rank: lenders in the order of a full sort by score, tie key and position, also past the first 32 and into the unlisted zeros', () => {
    const rng = rngFor(7, 'unit', 'rank')
    for (let round = 0; round < 50; round++) {
      const n = 40 + (rng.uint32() % 60)
      // few distinct scores and tie keys, so that ties of both happen
      // every other round mostly zeros, so that more than 32 of them are walked too
      const scores = Float64Array.from({ length: n }, () => (round % 2 === 1 && rng.uint32() % 4 !== 0 ? 0 : rng.uint32() % 6))
      const ties = Uint32Array.from({ length: n }, () => rng.uint32() % 4)
      const self = rng.uint32() % n
      const nearCopy = 5
      const key = { of: (j: number) => ties[j]! } as never
      // as the index gives them: only some documents listed, in no particular order; a listed one may score 0 too
      const listed = Array.from({ length: n }, (_, j) => j).filter((j) => scores[j]! > 0 || rng.uint32() % 2 === 0)
      for (let i = listed.length - 1; i > 0; i--) {
        const k = rng.uint32() % (i + 1)
        ;[listed[i], listed[k]] = [listed[k]!, listed[i]!]
      }
      const sim = { docs: Int32Array.from(listed), scores: Float64Array.from(listed, (j) => scores[j]!) }
      const got = [...rank(sim, key, self, nearCopy, n)]
      const mine = ties[self]!
      const want = Array.from({ length: n }, (_, j) => j)
        .filter((j) => j !== self && scores[j]! < nearCopy)
        .sort((a, b) => scores[b]! - scores[a]! || mix32(mine ^ ties[a]!) - mix32(mine ^ ties[b]!) || a - b)
      assert.deepEqual(got, want)
    }
  })
})
