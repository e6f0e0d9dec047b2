import type { Candidate } from '../prepare/eligibility.ts'
import type { SimilarBorrowing } from '../recipe/schema.ts'
import { type Rng, sample } from '../shape/rng.ts'
import { codePointLength, compareStrings, normalize } from '../util/canonical.ts'
import { fitsClass, formFilter, isLabelLike, NearCopyShapes, nearCopyTest, numberClass } from './option-kinds.ts'
import { ranked } from './rank.ts'
import { quantise, TfIdfIndex } from './similarity.ts'

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
  /** items' candidates by id, worked out already (by an earlier build of the same side and rules); filled in as more are */
  memo?: Map<string, Borrowed[]>
}

/**
 * Amendment 1.1: an item's lenders are the other questions of its group's side
 * ranked by TF-IDF similarity (near-copies skipped); only their wrong options
 * are lent, like for like; the draw is from the first drawFactor × needed.
 * The index is built on first use, for the items whose capacity the deal of
 * option counts asks for, and each item's candidates are worked out once.
 */
export function similarLending(
  side: readonly Candidate[],
  o: SimilarLendingOptions,
): Lending & { candidates(c: Candidate): readonly Borrowed[] } {
  const memo = o.memo ?? new Map<string, Borrowed[]>()
  // the lenders in id order (nothing below depends on the order the rows came in), set up on the first item
  // the memo does not hold: a warm build given every item's candidates never reads the side at all
  let ready: Side | null = null
  let index: TfIdfIndex | null = null
  const nearCopy = quantise(o.rules.nearCopy)
  // the narrower-lender rule compares questions' content words, read off the index's own terms (each text tokenized once)
  let words: ContentWords | null = null
  // the near-copy test's reading of each option text, shared by the group's items
  let shapes: NearCopyShapes | null = null

  function candidates(c: Candidate): Borrowed[] {
    const held = memo.get(c.id)
    if (held) return held
    const own = c.options.length
    const limit = o.rules.drawFactor * Math.max(0, 8 - own)
    const out: Borrowed[] = []
    memo.set(c.id, out)
    if (limit === 0) return out
    const { lenders, position, ties, isNegative } = (ready ??= lendingSide(side, o))
    const at = position.get(c.id)
    if (at === undefined) return out
    if (index === null) {
      index = new TfIdfIndex(lenders.map(lendingDocument))
      words = new ContentWords(index)
      shapes = new NearCopyShapes()
    }
    const content = words!
    const covered = o.rules.skipNarrowerLenders ? content.coveredBy(at) : () => false
    const mine = new Set(c.normOptions)
    const cls = numberClass(c.options)
    const sameForm = o.rules.sameForm ? formFilter(c.options) : () => true
    const nearCopyOfOwn = o.rules.skipNearCopies ? nearCopyTest(c.normOptions, shapes!) : () => false
    const seen = new Set<string>()
    const byScore = ranked(index, at, ties, nearCopy)
    // the right answers of the most similar questions are never lent, even where a lender lists one as wrong:
    // "Which resource is renewable?" must not borrow "solar energy" from "Which renewable resource is made by convection?"
    const nearest: number[] = []
    if (o.rules.rightAnswersOf > 0) for (const j of byScore) if (nearest.push(j) === o.rules.rightAnswersOf) break
    const rightNearby = new Set(nearest.filter((j) => !isNegative(j)).map((j) => lenders[j]!.normOptions[lenders[j]!.answer]!))
    const order = (function* () {
      yield* nearest
      yield* byScore
    })()
    let used = 0
    for (const j of order) {
      const lender = lenders[j]!
      if (o.rules.skipNegativeLenders && isNegative(j)) continue
      if (o.rules.skipOverlappingLenders && lender.normOptions.some((n) => mine.has(n))) continue
      if (covered(j)) continue
      // the least similar of a large group lend options that are plainly foreign: better a smaller capacity
      if (used++ === o.rules.maxLenders) break
      for (let i = 0; i < lender.options.length; i++) {
        if (i === lender.answer) continue
        const text = lender.options[i]!
        const norm = lender.normOptions[i]!
        if (mine.has(norm) || seen.has(norm) || rightNearby.has(norm)) continue
        if (text.length > o.maxChars && codePointLength(text) > o.maxChars) continue
        if (o.rules.likeForLike && !fitsClass(cls, text)) continue
        if (o.rules.skipLabelLike && isLabelLike(text)) continue
        if (!sameForm(text) || nearCopyOfOwn(norm)) continue
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

interface Side {
  lenders: Candidate[]
  position: Map<string, number>
  /** each lender's tie key */
  ties: Uint32Array
  isNegative: (j: number) => boolean
}

function lendingSide(side: readonly Candidate[], o: SimilarLendingOptions): Side {
  const lenders = [...side].sort((a, b) => compareStrings(a.id, b.id))
  const position = new Map(lenders.map((c, i) => [c.id, i]))
  const ties = Uint32Array.from(lenders, o.tieKey)
  // by lender position, worked out on first need, once per lender
  const negative = new Int8Array(lenders.length).fill(-1)
  const isNegative = (j: number) => (negative[j]! < 0 ? (negative[j] = o.isNegative(lenders[j]!) ? 1 : 0) : negative[j]) === 1
  return { lenders, position, ties, isNegative }
}

// words that say nothing of what a question is about
const FUNCTION_WORDS = new Set(
  'the and are was were for with that this these those which what who whom whose when where why how does did has have had not can could would should will from into onto than then there their they them its his her our your most best following statement statements true false example describes described'.split(
    ' ',
  ),
)

/**
 * The words of a question that say what it is about (Latin words of 3+
 * letters but function words; every Japanese bigram), over an index's terms:
 * which terms are such words is worked out once per term.
 */
class ContentWords {
  /** by term id: 0 not yet known, 1 a content word, 2 not */
  private readonly kind: Int8Array
  /** by term id: the query it was last marked for */
  private readonly mark: Int32Array
  private query = 0

  constructor(private readonly index: TfIdfIndex) {
    this.kind = new Int8Array(index.words.length)
    this.mark = new Int32Array(index.words.length)
  }

  private isContent(id: number): boolean {
    if (this.kind[id] === 0) {
      const w = this.index.words[id]!
      this.kind[id] = isLatinOrDigits(w) && (w.length < 3 || FUNCTION_WORDS.has(w)) ? 2 : 1
    }
    return this.kind[id] === 1
  }

  /**
   * Whether a lender's question holds every content word of the item's: it
   * asks a narrower question about the same thing ("Which renewable resource
   * is made by convection?" for "Which resource is renewable?"), so its wrong
   * options are often right answers here. An item without content words is
   * covered by none. One test at a time: asking for another item ends this one's.
   */
  coveredBy(item: number): (lender: number) => boolean {
    const q = ++this.query
    let want = 0
    for (const id of this.index.headTerms(item))
      if (this.isContent(id)) {
        this.mark[id] = q
        want++
      }
    return (lender) => {
      if (q !== this.query) throw new RangeError("a content-word test asked after the next item's began")
      if (want === 0) return false
      let hits = 0
      for (const id of this.index.headTerms(lender)) if (this.mark[id] === q) hits++
      return hits === want
    }
  }
}

/** Latin letters and digits only; ASCII answered without the regular expression (most words are) */
function isLatinOrDigits(w: string): boolean {
  for (let k = 0; k < w.length; k++) {
    const c = w.charCodeAt(k)
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39))) return /^[\p{Script=Latin}\p{N}]+$/u.test(w)
  }
  return w.length > 0
}

/** Question, context and options: what a lender and an item are compared by (normalised texts). */
export function lendingDocument(c: Candidate): string[] {
  return [c.normQuestion, ...(c.context === null ? [] : [normalize(c.context)]), ...c.normOptions]
}
