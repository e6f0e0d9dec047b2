import { codePointLength, compareStrings, normalize } from './canonical.ts'
import type { Candidate } from './eligibility.ts'
import { fitsClass, formFilter, isLabelLike, numberClass } from './option-kinds.ts'
import { type Rng, sample } from './rng.ts'
import type { SimilarBorrowing } from './schema.ts'
import { TfIdfIndex, quantise, tokens } from './similarity.ts'

/** An option lent to an item: its text and where it came from. */
export interface Borrowed {
  text: string
  /** the lender's record-style id */
  lender: string
  /** its index among the lender's upstream options */
  index: number
}

/** What a group's side can lend to one of its items. */
export interface Lending {
  /** the item's own options plus what it may borrow, at most 8 */
  capacity(c: Candidate): number
  /** `k` options for the item, drawn with its own stream */
  borrow(c: Candidate, k: number, rng: Rng): Borrowed[]
}

export interface SimilarLendingOptions {
  rules: SimilarBorrowing
  maxChars: number
  /** keys the tie-break between lenders of equal similarity */
  tieKey: (c: Candidate) => number
  isNegative: (c: Candidate) => boolean
}

/**
 * Amendment 1.1: an item's lenders are the other questions of its group's side
 * ranked by TF-IDF similarity (near-copies skipped); only their wrong options
 * are lent, like for like; the draw is from the first drawFactor × needed.
 * The index is built on first use and each item's candidates once.
 */
export function similarLending(side: readonly Candidate[], o: SimilarLendingOptions): Lending & { candidates(c: Candidate): readonly Borrowed[] } {
  // id order: nothing below depends on the order the rows came in
  const lenders = [...side].sort((a, b) => compareStrings(a.id, b.id))
  const position = new Map(lenders.map((c, i) => [c.id, i]))
  let index: TfIdfIndex | null = null
  let ties: Uint32Array | null = null
  const memo = new Map<string, Borrowed[]>()
  const nearCopy = quantise(o.rules.nearCopy)

  function candidates(c: Candidate): Borrowed[] {
    const held = memo.get(c.id)
    if (held) return held
    const own = c.options.length
    const limit = o.rules.drawFactor * Math.max(0, 8 - own)
    const out: Borrowed[] = []
    memo.set(c.id, out)
    const at = position.get(c.id)
    if (limit === 0 || at === undefined) return out
    index ??= new TfIdfIndex(lenders.map(document))
    ties ??= Uint32Array.from(lenders, o.tieKey)
    const scores = index.similarities(at)
    const mine = new Set(c.normOptions)
    const cls = numberClass(c.options)
    const sameForm = o.rules.sameForm ? formFilter(c.options) : () => true
    const seen = new Set<string>()
    const order = rank(scores, ties, at, nearCopy)
    let used = 0
    for (const j of order) {
      const lender = lenders[j]!
      if (o.rules.skipNegativeLenders && o.isNegative(lender)) continue
      if (o.rules.skipOverlappingLenders && lender.normOptions.some((n) => mine.has(n))) continue
      // the least similar of a large group lend options that are plainly foreign: better a smaller capacity
      if (used++ === o.rules.maxLenders) break
      for (let i = 0; i < lender.options.length; i++) {
        if (i === lender.answer) continue
        const text = lender.options[i]!
        const norm = lender.normOptions[i]!
        if (mine.has(norm) || seen.has(norm)) continue
        if (text.length > o.maxChars && codePointLength(text) > o.maxChars) continue
        if (o.rules.likeForLike && !fitsClass(cls, text)) continue
        if (o.rules.skipLabelLike && isLabelLike(text)) continue
        if (!sameForm(text)) continue
        seen.add(norm)
        out.push({ text, lender: lender.id, index: i })
        if (out.length === limit) return out
      }
    }
    return out
  }

  return {
    candidates,
    capacity: (c) => Math.min(8, c.options.length + candidates(c).length),
    borrow(c, k, rng) {
      const list = candidates(c)
      const from = list.slice(0, Math.min(list.length, o.rules.drawFactor * k))
      if (from.length < k) throw new RangeError(`${c.id}: ${from.length} options to borrow, ${k} needed`)
      return sample(rng, from, k)
    },
  }
}

/** Question, context and options: what a lender and an item are compared by. */
function document(c: Candidate): string[] {
  const out = tokens(c.normQuestion)
  if (c.context !== null) out.push(...tokens(normalize(c.context)))
  for (const n of c.normOptions) out.push(...tokens(n))
  return out
}

/** Other documents, most similar first; ties by a keyed mix of both, then position (id order). */
function rank(scores: Float64Array, ties: Uint32Array, self: number, nearCopy: number): number[] {
  const order: number[] = []
  for (let j = 0; j < scores.length; j++) if (j !== self && scores[j]! < nearCopy) order.push(j)
  const mine = ties[self]!
  const tie = (j: number) => mix32(mine ^ ties[j]!)
  return order.sort((a, b) => scores[b]! - scores[a]! || tie(a) - tie(b) || a - b)
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
