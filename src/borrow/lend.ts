import type { Candidate } from '../prepare/eligibility.ts'
import type { Borrowing, Plausible } from '../recipe/schema.ts'
import { codePointLength, compareStrings, normalize } from '../util/canonical.ts'
import { lengthPenalty, nearAnswer, sameKind } from './fit.ts'
import { fitsClass, formFilter, isLabelLike, NearCopyShapes, nearCopyTest, numberClass } from './option-kinds.ts'
import { mix32, ranked } from './rank.ts'
import type { RelatedOptions } from './related.ts'
import type { Screen } from './screen.ts'
import { quantise, SCALE, TfIdfIndex } from './similarity.ts'
import { Tokenizer } from './tokens.ts'
import { centroid, cosine1024, type TextVector, type WordVectors } from './vectors.ts'

const LATIN = /\p{Script=Latin}/u

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
  /**
   * The `k` best-fitting options for the item. `longest` (Amendment 1.2's
   * length rule) says whether an item whose right answer is its longest
   * option keeps it so; without it, it does.
   */
  borrow(c: Candidate, k: number, longest?: 'keep' | 'lengthen'): Borrowed[]
  /** Whether the length rule has a choice for the item at k borrowed options: it lends something longer than its right answer, which is its longest. */
  canLengthen?(c: Candidate, k: number): boolean
}

export interface SimilarLendingOptions {
  rules: Borrowing
  maxChars: number
  /** keys the tie-break between lenders of equal similarity */
  tieKey: (c: Candidate) => number
  /** the source's training questions' options, and the least tie to an own option a candidate needs (×1024) */
  related?: RelatedOptions
  relatedMin?: number
  /** English word vectors for the plausible rule's topic fit (the recipe pins them) */
  vectors?: WordVectors
  /** the reviewers' screening: only candidates it accepts for the item are lent */
  screen?: Screen
  /** a keyed 52-bit draw of the item's own, for the length rule of Amendment 1.2 */
  cueKey: (c: Candidate) => bigint
  isNegative: (c: Candidate) => boolean
  /** items' candidates by id, worked out already (by an earlier build of the same side and rules); filled in as more are */
  memo?: Map<string, Borrowed[]>
}

/**
 * An item's lenders are the other questions of its group's side ranked by
 * TF-IDF similarity (near-copies skipped); only their wrong options of the
 * item's own kind are lent, best fit first (plausibleCandidates). The index is
 * built on first use, for the items whose capacity the deal of option counts
 * asks for, and each item's candidates are worked out once.
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
    const out = plausibleCandidates(c, o.rules.plausible)
    memo.set(c.id, out)
    return out
  }

  /**
   * Amendment 1.2: the wrong options of the most similar lenders that are of
   * the item's own kind (./fit.ts) and no paraphrase of a nearby right answer,
   * best fit first: the lender's similarity, how often the option is listed
   * with the item's own options elsewhere on the side, the words it shares
   * with the item, less a penalty for a length unlike the item's options.
   */
  function plausibleCandidates(c: Candidate, rules: Plausible): Borrowed[] {
    const own = c.options.length
    if (own >= 8 || tooLong(c.options, rules.maxWords)) return []
    const { lenders, position, ties, isNegative } = (ready ??= lendingSide(side, o))
    const at = position.get(c.id)
    if (at === undefined) return []
    if (index === null) {
      index = new TfIdfIndex(lenders.map(lendingDocument))
      words = new ContentWords(index)
      shapes = new NearCopyShapes()
    }
    const scores = index.similarities(at)
    const byScore = ranked(index, at, ties, nearCopy, scores)
    const covered = o.rules.skipNarrowerLenders ? words!.coveredBy(at) : () => false
    const mine = new Set(c.normOptions)
    const cls = numberClass(c.options)
    const sameForm = o.rules.sameForm ? formFilter(c.options) : () => true
    const kind = sameKind(c.options)
    const nearCopyOfOwn = o.rules.skipNearCopies ? nearCopyTest(c.normOptions, shapes!) : () => false
    const penalty = lengthPenalty(c.options)
    // read by next(), not for…of with a break, which would close the walk before the lenders are read
    const nearest: number[] = []
    while (nearest.length < o.rules.rightAnswersOf) {
      const step = byScore.next()
      if (step.done) break
      nearest.push(step.value)
    }
    const rightNorms = nearest.filter((j) => !isNegative(j)).map((j) => lenders[j]!.normOptions[lenders[j]!.answer]!)
    const rightNearby = new Set(rightNorms)
    const paraphrase = nearCopyTest(rightNorms, shapes!)
    const tooClose = nearAnswer(c.options[c.answer]!)
    const listedWith = coOccurrence(ready, c, at)
    const inTraining = o.related?.around(c.normOptions)
    const answering = o.related?.answering(c.normQuestion)
    const need = o.relatedMin ?? 0
    const itemTerms = termsOf([c.normQuestion, ...c.normOptions])
    const topic = topicFit(c, rules)
    const found: { b: Borrowed; fit: number; tie: number }[] = []
    const seen = new Set<string>()
    let used = 0
    for (const j of (function* () {
      yield* nearest
      yield* byScore
    })()) {
      const lender = lenders[j]!
      if (o.rules.skipNegativeLenders && isNegative(j)) continue
      if (o.rules.skipOverlappingLenders && lender.normOptions.some((n) => mine.has(n))) continue
      if (covered(j)) continue
      if (used++ === rules.lenders) break
      const similarity = Math.round((scores[j]! / SCALE) * 1024)
      for (let i = 0; i < lender.options.length; i++) {
        if (i === lender.answer) continue
        const text = lender.options[i]!
        const norm = lender.normOptions[i]!
        if (mine.has(norm) || seen.has(norm) || rightNearby.has(norm)) continue
        seen.add(norm)
        if (o.screen && !o.screen.accepts(c.id, norm)) continue
        if (text.length > o.maxChars && codePointLength(text) > o.maxChars) continue
        if (o.rules.likeForLike && !fitsClass(cls, text)) continue
        if (o.rules.skipLabelLike && isLabelLike(text)) continue
        // an option the question itself names ("教会" for "キリスト教の教会のことを何という？") may well be its answer
        if (c.normQuestion.includes(norm)) continue
        // tied to the own options, or listed by training questions like this one (the cheap tests first)
        const trained = Math.max(inTraining?.get(norm) ?? 0, answering?.get(norm) ?? 0)
        if (trained < need) continue
        if (!sameForm(text) || !kind(text)) continue
        const onTopic = topic(text)
        if (onTopic === null) continue
        if (nearCopyOfOwn(norm) || paraphrase(norm) || tooClose(text)) continue
        const fit = similarity + onTopic + 384 * Math.min(3, listedWith.get(norm) ?? 0) + trained + shared(itemTerms, norm) - penalty(text)
        found.push({ b: { text, lender: lender.id, index: i }, fit, tie: mix32(ties[at]! ^ ties[j]! ^ i) })
      }
    }
    // where the right answer is the item's longest option and nothing to borrow is longer, it grows only
    // now and then (keepsLongest, 1/forcedLongest of what 1/n allows): else length becomes a cue
    if (rules.lengthCue && longestCredit(c.options, c.answer) > 0) {
      const right = codePointLength(c.options[c.answer]!)
      if (
        !found.some((f) => codePointLength(f.b.text) > right) &&
        !keepsLongest(o.cueKey(c), rules.forcedLongest * (own + 1), longestShare(ready))
      )
        return []
    }
    found.sort((a, b) => b.fit - a.fit || a.tie - b.tie || compareStrings(a.b.lender, b.b.lender) || a.b.index - b.b.index)
    return found.map((f) => f.b)
  }

  // each option text's vector, shared by the group's items
  const textVectors = new Map<string, TextVector>()
  const vectorOf = (text: string) => {
    let v = textVectors.get(text)
    if (!v) textVectors.set(text, (v = o.vectors!.of(text)))
    return v
  }
  /**
   * The topic fit of a candidate for an item whose own options are English
   * words: twice the cosine (×1024) of its vector with the own options'
   * centroid plus the cosine with the question; null when it is below the
   * recipe's minTopic or has no word with a vector. 0 for every candidate
   * where there are no vectors or the item's options are numbers or Japanese.
   */
  function topicFit(c: Candidate, rules: Plausible): (text: string) => number | null {
    const pinned = rules.vectors
    if (!o.vectors || !pinned || numberClass(c.options) !== 'words' || !c.options.every((x) => LATIN.test(x))) return () => 0
    const own = centroid(c.options.map(vectorOf), o.vectors.header.dimensions)
    if (own.norm2 === 0) return () => 0
    const question = o.vectors.of(c.question)
    const right = vectorOf(c.options[c.answer]!)
    const min = Math.round(pinned.minTopic * 1024)
    const max = Math.round(pinned.maxAnswer * 1024)
    return (text) => {
      const v = vectorOf(text)
      const withOwn = cosine1024(v, own)
      // as close to the right answer as a synonym: too often right too ("hours" beside "days")
      if (v.norm2 === 0 || withOwn < min || cosine1024(v, right) >= max) return null
      return 2 * withOwn + (question.norm2 === 0 ? 0 : cosine1024(v, question))
    }
  }

  // the item's terms, to credit a candidate for the words it shares with the question and options
  const tokenizer = new Tokenizer()
  function termsOf(norms: readonly string[]): Set<number> {
    const out = new Set<number>()
    for (const n of norms) for (const id of tokenizer.ids(n)) if (!isFunctionWord(tokenizer.word(id))) out.add(id)
    return out
  }
  /** 1024 × the share of a candidate's content terms that the item has */
  function shared(item: ReadonlySet<number>, norm: string): number {
    const mineTerms = termsOf([norm])
    if (mineTerms.size === 0) return 0
    let hits = 0
    for (const id of mineTerms) if (item.has(id)) hits++
    return Math.round((1024 * hits) / mineTerms.size)
  }

  return {
    candidates,
    capacity: (c) => Math.min(8, c.options.length + candidates(c).length),
    borrow: (c, k, longest) => bestFit(c, candidates(c), k, o.rules.plausible.lengthCue ? (longest ?? 'keep') : 'keep'),
    ...(o.rules.plausible.lengthCue && {
      canLengthen(c: Candidate, k: number) {
        if (k <= 0 || longestCredit(c.options, c.answer) === 0) return false
        const right = codePointLength(c.options[c.answer]!)
        return candidates(c).some((b) => codePointLength(b.text) > right)
      },
    }),
  }
}

interface Side {
  lenders: Candidate[]
  position: Map<string, number>
  /** normalised option → the lenders that list it, worked out on first need */
  listing?: Map<string, number[]>
  /** the lenders' longest-baseline credit, in 840ths, worked out on first need */
  longestRight?: number
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

function isFunctionWord(w: string): boolean {
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

/** Question, context and options: what a lender and an item are compared by (normalised texts). */
export function lendingDocument(c: Candidate): string[] {
  return [c.normQuestion, ...(c.context === null ? [] : [normalize(c.context)]), ...c.normOptions]
}

/** How many of the side's other questions list each option together with one of the item's own options. */
function coOccurrence(side: Side, c: Candidate, at: number): Map<string, number> {
  if (!side.listing) {
    side.listing = new Map()
    side.lenders.forEach((l, j) => {
      for (const n of new Set(l.normOptions)) {
        const list = side.listing!.get(n)
        if (list) list.push(j)
        else side.listing!.set(n, [j])
      }
    })
  }
  const related = new Set<number>()
  for (const n of c.normOptions) for (const j of side.listing.get(n) ?? []) if (j !== at) related.add(j)
  const out = new Map<string, number>()
  for (const j of [...related].sort((a, b) => a - b))
    for (const n of new Set(side.lenders[j]!.normOptions)) out.set(n, (out.get(n) ?? 0) + 1)
  return out
}

/** What the audit's "longest" baseline credits an item with: 1/t where the right answer is one of the t longest options, 840ths (840 = lcm of 1..8, so it is exact). */
export function longestCredit(options: readonly string[], answer: number): number {
  const lengths = options.map(codePointLength)
  const max = Math.max(...lengths)
  return lengths[answer] === max ? 840 / lengths.filter((l) => l === max).length : 0
}

/** The side's longest-baseline credit on its own options: [sum in 840ths, items]. */
function longestShare(side: Side): [number, number] {
  side.longestRight ??= side.lenders.reduce((sum, l) => sum + longestCredit(l.options, l.answer), 0)
  return [side.longestRight, side.lenders.length]
}

/**
 * Whether an item whose right answer is its longest option, and which has
 * nothing longer to borrow, may still grow (called with forcedLongest times
 * its smallest grown size): with chance 840·of / (n · credit), at most 1, by a
 * keyed 52-bit draw of the item's own, compared exactly. Such items spend the
 * length deal's budget without choice, so only a part of what 1/n allows grow
 * this way (a quarter by default); the build deals the rest.
 */
function keepsLongest(cue: bigint, n: number, [credit, of]: [number, number]): boolean {
  return credit === 0 || cue * BigInt(n * credit) < BigInt(840 * of) << 52n
}

/**
 * The k best-fitting candidates; to `lengthen`, the best-fitting one longer
 * than the right answer among them, to `keep`, none longer where it can.
 */
function bestFit(c: Candidate, list: readonly Borrowed[], k: number, longest: 'keep' | 'lengthen'): Borrowed[] {
  if (list.length < k) throw new RangeError(`${c.id}: ${list.length} options to borrow, ${k} needed`)
  if (longestCredit(c.options, c.answer) === 0) return list.slice(0, k)
  const right = codePointLength(c.options[c.answer]!)
  const longer = list.filter((b) => codePointLength(b.text) > right)
  const rest = list.filter((b) => codePointLength(b.text) <= right)
  if (longest === 'keep') return [...rest, ...longer].slice(0, k)
  if (longer.length === 0) return list.slice(0, k)
  const first = longer[0]!
  return [first, ...list.filter((b) => b !== first).slice(0, k - 1)]
}

/** Whether an English item's longest own option has more than `max` words. */
function tooLong(options: readonly string[], max: number | undefined): boolean {
  if (max === undefined) return false
  return options.some((o) => LATIN.test(o) && o.trim().split(/\s+/).length > max)
}
