import type { Candidate } from '../prepare/eligibility.ts'
import type { Borrowing } from '../recipe/schema.ts'
import { codePointLength, compareStrings } from '../util/canonical.ts'
import { lenderSkips } from './lender-rules.ts'
import { keepsLongest, longestCredit } from './length-cue.ts'
import {
  fitOf,
  lengthLike,
  likeForLike,
  listedWith,
  notLabelLike,
  notLongerThan,
  notNamedIn,
  notNearAnswer,
  notNearCopyOf,
  type OptionRule,
  sameFormAs,
  sameKindAs,
  screenedBy,
  trainingTie,
} from './option-rules.ts'
import { isLender, lenderOrder, mix32, ranked } from './rank.ts'
import type { RelatedOptions } from './related.ts'
import type { Screen } from './screen.ts'
import { SharedWords } from './shared-words.ts'
import { LendingSide } from './side.ts'
import { quantise, SCALE } from './similarity.ts'
import { TopicFit } from './topic.ts'
import type { WordVectors } from './vectors.ts'

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
 * What a group's side lends its items. An item's lenders are the other questions of the side, ranked by TF-IDF
 * similarity (near-copies left out) and passed by the lender rules (./lender-rules.ts); their wrong options that
 * meet every option rule (./option-rules.ts) are its candidates, best fit first. The side is read on the first item
 * the memo does not hold (a warm build given every item's candidates never reads it), and each item's candidates
 * are worked out once.
 */
export function similarLending(
  side: readonly Candidate[],
  o: SimilarLendingOptions,
): Lending & { candidates(c: Candidate): readonly Borrowed[] } {
  const memo = o.memo ?? new Map<string, Borrowed[]>()
  const rules = o.rules.plausible
  let indexed: LendingSide | null = null
  const nearCopy = quantise(o.rules.nearCopy)
  const topic = o.vectors && rules.vectors ? new TopicFit(o.vectors, rules.vectors) : null
  const words = new SharedWords()

  function candidates(c: Candidate): Borrowed[] {
    const held = memo.get(c.id)
    if (held) return held
    const out = find(c)
    memo.set(c.id, out)
    return out
  }

  /** The option rules for the item, in the order they run; `rightNorms`, the right answers of its nearest questions. */
  function optionRules(c: Candidate, s: LendingSide, at: number, rightNorms: readonly string[]): OptionRule[] {
    const on = (rule: OptionRule | false | null | undefined) => (rule ? [rule] : [])
    return [
      ...on(o.screen && screenedBy(o.screen, c.id)),
      notLongerThan(o.maxChars),
      ...on(o.rules.likeForLike && likeForLike(c.options)),
      ...on(o.rules.skipLabelLike && notLabelLike),
      notNamedIn(c.normQuestion),
      ...on(o.related && trainingTie(o.related, c, o.relatedMin ?? 0)),
      ...on(o.rules.sameForm && sameFormAs(c.options)),
      sameKindAs(c.options),
      ...on(topic?.ruleFor(c)),
      ...on(o.rules.skipNearCopies && notNearCopyOf(c.normOptions, s.shapes)),
      notNearCopyOf(rightNorms, s.shapes),
      notNearAnswer(c.options[c.answer]!),
      listedWith(s.coOccurrence(c, at)),
      words.ruleFor(c),
      lengthLike(c.options),
    ]
  }

  function find(c: Candidate): Borrowed[] {
    const own = c.options.length
    if (own >= 8 || tooLong(c.options, rules.maxWords)) return []
    // an item the screen accepts nothing for borrows nothing: its candidates need no ranking
    if (o.screen && !o.screen.acceptsAny(c.id)) return []
    const s = (indexed ??= new LendingSide(side, o.tieKey, o.isNegative))
    const at = s.position.get(c.id)
    if (at === undefined) return []
    const scores = s.index.similarities(at)
    const byScore = ranked(s.index, at, s.ties, nearCopy, scores)
    const skips = lenderSkips(o.rules, s, c, at)
    // the right answers of the most similar questions are never lent, even where a lender lists one as wrong:
    // "Which resource is renewable?" must not borrow "solar energy" from "Which renewable resource is made by convection?"
    // (read by next(), not for…of with a break, which would close the walk before the lenders are read)
    const nearest: number[] = []
    while (nearest.length < o.rules.rightAnswersOf) {
      const step = byScore.next()
      if (step.done) break
      nearest.push(step.value)
    }
    const rightNorms = nearest.filter((j) => !s.isNegative(j)).map((j) => s.questions[j]!.normOptions[s.questions[j]!.answer]!)
    const rightNearby = new Set(rightNorms)
    const mine = new Set(c.normOptions)
    const optionTests = optionRules(c, s, at, rightNorms)
    const found: { b: Borrowed; fit: number; tie: number }[] = []
    const seen = new Set<string>()
    let used = 0
    const accepted = o.screen?.acceptedFor(c.id) ?? null
    // with the screen naming what the item may borrow, only lenders listing one of those can lend; while the cap on
    // lenders cannot bind, walking just those in rank order finds each the same first lender as walking them all
    const walk =
      accepted && s.questions.length - 1 <= rules.lenders
        ? listingAny(s, accepted, at, nearCopy, scores)
        : (function* () {
            yield* nearest
            yield* byScore
          })()
    for (const j of walk) {
      if (skips.some((skip) => skip(j))) continue
      if (used++ === rules.lenders) break
      const lender = s.questions[j]!
      const similarity = Math.round((scores[j]! / SCALE) * 1024)
      for (let i = 0; i < lender.options.length; i++) {
        if (i === lender.answer) continue
        const norm = lender.normOptions[i]!
        // each text once, as the most similar lender that lists it offers it; never an own option or a nearby right answer
        if (mine.has(norm) || seen.has(norm) || rightNearby.has(norm)) continue
        seen.add(norm)
        const text = lender.options[i]!
        const fit = fitOf(optionTests, text, norm, similarity)
        if (fit !== null) found.push({ b: { text, lender: lender.id, index: i }, fit, tie: mix32(s.ties[at]! ^ s.ties[j]! ^ i) })
      }
    }
    // where the right answer is the item's longest option and nothing to borrow is longer, it grows only
    // now and then (keepsLongest, 1/forcedLongest of what 1/n allows): else length becomes a cue
    if (rules.lengthCue && longestCredit(c.options, c.answer) > 0) {
      const right = codePointLength(c.options[c.answer]!)
      if (
        !found.some((f) => codePointLength(f.b.text) > right) &&
        !keepsLongest(o.cueKey(c), rules.forcedLongest * (own + 1), s.longestShare())
      )
        return []
    }
    found.sort((a, b) => b.fit - a.fit || a.tie - b.tie || compareStrings(a.b.lender, b.b.lender) || a.b.index - b.b.index)
    return found.map((f) => f.b)
  }

  return {
    candidates,
    capacity: (c) => Math.min(8, c.options.length + candidates(c).length),
    borrow: (c, k, longest) => bestFit(c, candidates(c), k, rules.lengthCue ? (longest ?? 'keep') : 'keep'),
    ...(rules.lengthCue && {
      canLengthen(c: Candidate, k: number) {
        if (k <= 0 || longestCredit(c.options, c.answer) === 0) return false
        const right = codePointLength(c.options[c.answer]!)
        return candidates(c).some((b) => codePointLength(b.text) > right)
      },
    }),
  }
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

/** The item's (at `at`) lenders that list one of `options`, in the order `ranked` yields them. */
function listingAny(s: LendingSide, options: ReadonlySet<string>, at: number, nearCopy: number, scores: Float64Array): number[] {
  const out = new Set<number>()
  for (const n of options) for (const j of s.listing(n)) if (isLender(j, at, nearCopy, scores)) out.add(j)
  return [...out].sort(lenderOrder(at, s.ties, scores))
}

const LATIN = /\p{Script=Latin}/u

/** Whether an English item's longest own option has more than `max` words. */
function tooLong(options: readonly string[], max: number | undefined): boolean {
  if (max === undefined) return false
  return options.some((o) => LATIN.test(o) && o.trim().split(/\s+/).length > max)
}
