import type { Candidate } from '../prepare/eligibility.ts'
import type { Sparse, TfIdfIndex } from './similarity.ts'

/**
 * An item's lenders, most similar first (the order of `rank` over all of
 * them). A walk rarely needs more than the first few (lend.ts reads at most
 * `rightAnswersOf`), so the first TOP come from the index's pruned search,
 * and only a walk past them pays for the full pass, which yields the same
 * first TOP again (skipped) and then the rest.
 */
export function* ranked(index: TfIdfIndex, self: number, ties: Pick<Ties, 'of'>, nearCopy: number): Generator<number> {
  const some = index.candidates(self, TOP, nearCopy)
  if (some !== null) {
    // at least TOP of them score in (0, nearCopy): rank's first TOP over them are the first TOP over all
    const first: number[] = []
    const it = rank(some, ties, self, nearCopy, index.size)
    while (first.length < TOP) first.push(it.next().value as number)
    it.return(undefined)
    yield* first
  }
  let skip = some === null ? 0 : TOP
  for (const j of rank(index.similar(self), ties, self, nearCopy, index.size))
    if (skip === 0) yield j
    else skip--
}

/**
 * Other documents, most similar first; ties by a keyed mix of both, then
 * position (id order); near-copies left out. `sim` holds the documents that
 * share a term with `self`; the other `size` − those all score 0 and come
 * last. Lazily: an item usually needs only its first few lenders, so one pass
 * keeps the best TOP in order, and only a longer walk pays for sorting the
 * rest, and only a walk past every scoring lender for the zeros.
 */
export function* rank(sim: Sparse, ties: Pick<Ties, 'of'>, self: number, nearCopy: number, size: number): Generator<number> {
  const mine = ties.of(self)
  const { docs, scores } = sim
  const m = docs.length
  // a before b (positions into sim): higher score, then the smaller keyed mix, then the smaller position
  const before = (a: number, b: number) =>
    scores[b]! - scores[a]! || mix32(mine ^ ties.of(docs[a]!)) - mix32(mine ^ ties.of(docs[b]!)) || docs[a]! - docs[b]!
  // only lenders that score above 0 and are not near-copies; a full top turns most away on the score alone
  const top: number[] = []
  let floor = 0
  for (let i = 0; i < m; i++) {
    const q = scores[i]!
    if (q <= 0 || q >= nearCopy || q < floor || docs[i] === self) continue
    if (top.length === TOP && before(i, top[TOP - 1]!) > 0) continue
    let at = top.length === TOP ? TOP - 1 : top.length
    while (at > 0 && before(i, top[at - 1]!) < 0) at--
    if (top.length === TOP) top.pop()
    top.splice(at, 0, i)
    if (top.length === TOP) floor = scores[top[TOP - 1]!]!
  }
  for (const i of top) yield docs[i]!
  if (top.length === TOP) {
    const last = top[TOP - 1]!
    const rest: number[] = []
    for (let i = 0; i < m; i++) {
      const q = scores[i]!
      if (q > 0 && q < nearCopy && q <= floor && docs[i] !== self && before(i, last) > 0) rest.push(i)
    }
    for (const i of rest.sort(before)) yield docs[i]!
  }
  // every other lender scores 0 (a near-copy at 0 would need a threshold of 0)
  if (nearCopy <= 0) return
  const scoring = new Uint8Array(size)
  for (let i = 0; i < docs.length; i++) if (scores[i]! > 0) scoring[docs[i]!] = 1
  // among the zeros only the keyed mix orders: worked out once per lender, the best TOP kept in one pass as above
  const zeros: number[] = []
  const keys: number[] = []
  for (let j = 0; j < size; j++)
    if (j !== self && scoring[j] === 0) {
      zeros.push(j)
      keys.push(mix32(mine ^ ties.of(j)))
    }
  const after = (a: number, b: number) => keys[a]! - keys[b]! || zeros[a]! - zeros[b]!
  const first: number[] = []
  for (let i = 0; i < zeros.length; i++) {
    if (first.length === TOP && after(i, first[TOP - 1]!) > 0) continue
    let at = first.length === TOP ? TOP - 1 : first.length
    while (at > 0 && after(i, first[at - 1]!) < 0) at--
    if (first.length === TOP) first.pop()
    first.splice(at, 0, i)
  }
  for (const i of first) yield zeros[i]!
  if (first.length < TOP) return
  const last = first[TOP - 1]!
  const rest: number[] = []
  for (let i = 0; i < zeros.length; i++) if (after(i, last) > 0) rest.push(i)
  for (const i of rest.sort(after)) yield zeros[i]!
}

/** how many lenders one pass ranks in order; the pruned search finds exactly these */
export const TOP = 32

/** Each lender's tie key, computed when first asked for (it is a keyed hash). */
export class Ties {
  private readonly keys: Uint32Array
  private readonly known: Uint8Array

  constructor(
    private readonly lenders: readonly Candidate[],
    private readonly key: (c: Candidate) => number,
  ) {
    this.keys = new Uint32Array(lenders.length)
    this.known = new Uint8Array(lenders.length)
  }

  of(j: number): number {
    if (this.known[j] === 0) {
      this.keys[j] = this.key(this.lenders[j]!)
      this.known[j] = 1
    }
    return this.keys[j]!
  }
}

/** MurmurHash3's finaliser: spreads the bits of a 32-bit key. */
export function mix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}
