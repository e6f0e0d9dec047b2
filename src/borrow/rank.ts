import type { TfIdfIndex } from './similarity.ts'

/**
 * An item's lenders, most similar first: higher score, then the smaller keyed
 * mix of both tie keys, then position (id order); the item itself and
 * near-copies (score ≥ `nearCopy`) left out. Lenders that share no weighted
 * term score 0 and come last, in the same order. A walk usually reads only the
 * first few, so each part is put in order lazily.
 */
export function* ranked(
  index: TfIdfIndex,
  self: number,
  ties: Uint32Array,
  nearCopy: number,
  scores: Float64Array = index.similarities(self),
): Generator<number> {
  const before = lenderOrder(self, ties, scores)
  const scoring: number[] = []
  const zeros: number[] = []
  for (let j = 0; j < scores.length; j++) {
    if (!isLender(j, self, nearCopy, scores)) continue
    ;(scores[j]! > 0 ? scoring : zeros).push(j)
  }
  yield* sortedLazily(scoring, before)
  yield* sortedLazily(zeros, before)
}

/** The order `ranked` yields an item's (at `self`) lenders in: higher score, then the smaller keyed mix of both tie keys, then position. */
export function lenderOrder(self: number, ties: Uint32Array, scores: Float64Array): (a: number, b: number) => number {
  const mine = ties[self]!
  // each lender's keyed mix with the item, worked out once rather than in every comparison
  const mix = Uint32Array.from(ties, (t) => mix32(mine ^ t))
  return (a, b) => scores[b]! - scores[a]! || mix[a]! - mix[b]! || a - b
}

/** Whether `j` is among the item's (at `self`) lenders: not the item itself, nor a near-copy of it. */
export function isLender(j: number, self: number, nearCopy: number, scores: Float64Array): boolean {
  return j !== self && scores[j]! < nearCopy
}

/** How many of a list one pass puts in order before the rest is sorted: a walk rarely reads more. */
const FIRST = 32

/** `list` in the order of `before`: the first FIRST by one insertion pass, the rest sorted only if the walk gets there. */
function* sortedLazily(list: number[], before: (a: number, b: number) => number): Generator<number> {
  const first: number[] = []
  for (const j of list) {
    if (first.length === FIRST && before(j, first[FIRST - 1]!) > 0) continue
    let at = first.length === FIRST ? FIRST - 1 : first.length
    while (at > 0 && before(j, first[at - 1]!) < 0) at--
    if (first.length === FIRST) first.pop()
    first.splice(at, 0, j)
  }
  yield* first
  if (first.length < FIRST) return
  const last = first[FIRST - 1]!
  yield* list.filter((j) => before(j, last) > 0).sort(before)
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
