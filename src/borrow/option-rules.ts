/**
 * The rules one candidate option meets to be lent to an item, each a small function over the option's text and
 * normalised text: null rejects the option, a number is its part of the option's fit (×1024; 0 for a plain test).
 * They run in list order, the cheap tests first, and the first null ends the list.
 */
import type { Candidate } from '../prepare/eligibility.ts'
import { codePointLength } from '../util/canonical.ts'
import { lengthPenalty, nearAnswer, sameKind } from './fit.ts'
import { fitsClass, formFilter, isLabelLike, type NearCopyShapes, nearCopyTest, numberClass } from './option-kinds.ts'
import type { RelatedOptions } from './related.ts'
import type { Screen } from './screen.ts'

export type OptionRule = (text: string, norm: string) => number | null

const pass = (ok: boolean): number | null => (ok ? 0 : null)

/** The option's fit, the sum of what every rule credits it with on top of `base`; null when a rule rejects it. */
export function fitOf(rules: readonly OptionRule[], text: string, norm: string, base: number): number | null {
  let fit = base
  for (const rule of rules) {
    const got = rule(text, norm)
    if (got === null) return null
    fit += got
  }
  return fit
}

/** Only what the reviewers accepted for the item. */
export const screenedBy =
  (screen: Screen, item: string): OptionRule =>
  (_, norm) =>
    pass(screen.accepts(item, norm))

/** At most `max` code points (code points never outnumber code units, so only long texts are counted). */
export const notLongerThan =
  (max: number): OptionRule =>
  (text) =>
    pass(text.length <= max || codePointLength(text) <= max)

/** Numbers only among numbers, no numbers among words. */
export function likeForLike(own: readonly string[]): OptionRule {
  const cls = numberClass(own)
  return (text) => pass(fitsClass(cls, text))
}

/** Never an option that looks like a label: (A), A., A), or a lone letter. */
export const notLabelLike: OptionRule = (text) => pass(!isLabelLike(text))

/** An option the question itself names ("教会" for "キリスト教の教会のことを何という？") may well be its answer. */
export const notNamedIn =
  (question: string): OptionRule =>
  (_, norm) =>
    pass(!question.includes(norm))

/** Tied to the own options by the training splits, or listed by training questions like this one: at least `need`, credited in full. */
export function trainingTie(related: RelatedOptions, c: Candidate, need: number): OptionRule {
  const around = related.around(c.normOptions)
  const answering = related.answering(c.normQuestion)
  return (_, norm) => {
    const tie = Math.max(around(norm), answering.get(norm) ?? 0)
    return tie < need ? null : tie
  }
}

/** Shaped like the item's own options (./option-kinds.ts: case, ending, length). */
export function sameFormAs(own: readonly string[]): OptionRule {
  const form = formFilter(own)
  return (text) => pass(form(text))
}

/** Of the item's own kind (./fit.ts: units, no option that refers to others). */
export function sameKindAs(own: readonly string[]): OptionRule {
  const kind = sameKind(own)
  return (text) => pass(kind(text))
}

/** Never a near-copy of one of `norms` (the item's own options, or the right answers of its nearest questions). */
export function notNearCopyOf(norms: readonly string[], shapes: NearCopyShapes): OptionRule {
  const near = nearCopyTest(norms, shapes)
  return (_, norm) => pass(!near(norm))
}

/** Never one that shares a content word with the item's right answer (./fit.ts's nearAnswer). */
export function notNearAnswer(right: string): OptionRule {
  const near = nearAnswer(right)
  return (text) => pass(!near(text))
}

/** Credit for the other questions of the side that list the option with one of the item's own, up to three. */
export const listedWith =
  (listing: ReadonlyMap<string, number>): OptionRule =>
  (_, norm) =>
    384 * Math.min(3, listing.get(norm) ?? 0)

/** Less a penalty for a length unlike the own options'. */
export function lengthLike(own: readonly string[]): OptionRule {
  const penalty = lengthPenalty(own)
  return (text) => -penalty(text)
}
