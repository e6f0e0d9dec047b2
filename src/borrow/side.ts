import type { Candidate } from '../prepare/eligibility.ts'
import { compareStrings, normalize } from '../util/canonical.ts'
import { longestCredit } from './length-cue.ts'
import { NearCopyShapes } from './option-kinds.ts'
import { TfIdfIndex } from './similarity.ts'

/**
 * A group's side as its items' lenders: in id order (nothing depends on the order the rows came in), each with
 * its tie key. The TF-IDF index and what is read off it are worked out on first need, each once for all the items.
 */
export class LendingSide {
  /** the side's questions, each a possible lender, by position */
  readonly questions: Candidate[]
  readonly position: Map<string, number>
  readonly ties: Uint32Array
  /** by lender position: -1 not yet known, 1 a negative question, 0 not */
  readonly #negative: Int8Array
  #index: TfIdfIndex | undefined
  #words: ContentWords | undefined
  #shapes: NearCopyShapes | undefined
  /** normalised option → the lenders that list it */
  #listing: Map<string, number[]> | undefined
  /** the lenders' longest-baseline credit, in 840ths */
  #longestRight: number | undefined

  constructor(
    side: readonly Candidate[],
    tieKey: (c: Candidate) => number,
    private readonly negative: (c: Candidate) => boolean,
  ) {
    this.questions = [...side].sort((a, b) => compareStrings(a.id, b.id))
    this.position = new Map(this.questions.map((c, i) => [c.id, i]))
    this.ties = Uint32Array.from(this.questions, tieKey)
    this.#negative = new Int8Array(this.questions.length).fill(-1)
  }

  isNegative(j: number): boolean {
    if (this.#negative[j]! < 0) this.#negative[j] = this.negative(this.questions[j]!) ? 1 : 0
    return this.#negative[j] === 1
  }

  get index(): TfIdfIndex {
    return (this.#index ??= new TfIdfIndex(this.questions.map(lendingDocument)))
  }

  /** the narrower-lender rule's content words, read off the index's own terms (each text tokenized once) */
  get words(): ContentWords {
    return (this.#words ??= new ContentWords(this.index))
  }

  /** the near-copy test's reading of each option text, shared by the group's items */
  get shapes(): NearCopyShapes {
    return (this.#shapes ??= new NearCopyShapes())
  }

  /** The lenders that list a normalised option (as right or wrong), in position order. */
  listing(norm: string): readonly number[] {
    return (this.#listing ??= listingOf(this.questions)).get(norm) ?? []
  }

  /** How many of the side's other questions list each option together with one of the item's (at `at`) own options. */
  coOccurrence(c: Candidate, at: number): Map<string, number> {
    const related = new Set<number>()
    for (const n of c.normOptions) for (const j of this.listing(n)) if (j !== at) related.add(j)
    const out = new Map<string, number>()
    for (const j of [...related].sort((a, b) => a - b))
      for (const n of new Set(this.questions[j]!.normOptions)) out.set(n, (out.get(n) ?? 0) + 1)
    return out
  }

  /** The side's longest-baseline credit on its own options: [sum in 840ths, items]. */
  longestShare(): [number, number] {
    this.#longestRight ??= this.questions.reduce((sum, l) => sum + longestCredit(l.options, l.answer), 0)
    return [this.#longestRight, this.questions.length]
  }
}

function listingOf(lenders: readonly Candidate[]): Map<string, number[]> {
  const listing = new Map<string, number[]>()
  lenders.forEach((l, j) => {
    for (const n of new Set(l.normOptions)) {
      const list = listing.get(n)
      if (list) list.push(j)
      else listing.set(n, [j])
    }
  })
  return listing
}

/** Question, context and options: what a lender and an item are compared by (normalised texts). */
export function lendingDocument(c: Candidate): string[] {
  return [c.normQuestion, ...(c.context === null ? [] : [normalize(c.context)]), ...c.normOptions]
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
export class ContentWords {
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
      this.kind[id] = isFunctionWord(w) ? 2 : 1
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

/** A word that says nothing of what a text is about: a Latin word of fewer than 3 letters, or a function word. */
export function isFunctionWord(w: string): boolean {
  return isLatinOrDigits(w) && (w.length < 3 || FUNCTION_WORDS.has(w))
}

/** Latin letters and digits only; ASCII answered without the regular expression (most words are) */
function isLatinOrDigits(w: string): boolean {
  for (let k = 0; k < w.length; k++) {
    const c = w.charCodeAt(k)
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39))) return /^[\p{Script=Latin}\p{N}]+$/u.test(w)
  }
  return w.length > 0
}
