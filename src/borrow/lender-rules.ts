import type { Candidate } from '../prepare/eligibility.ts'
import type { Borrowing } from '../recipe/schema.ts'
import type { LendingSide } from './side.ts'

/** A rule on a lender (its position on the side) for one item: true skips the lender, whose options are then not read. */
export type LenderSkip = (j: number) => boolean

/** The lender rules the recipe switches on, for the item at `at`; the cheap ones first. */
export function lenderSkips(rules: Borrowing, side: LendingSide, c: Candidate, at: number): LenderSkip[] {
  const mine = new Set(c.normOptions)
  const skips: LenderSkip[] = []
  // a negative question's wrong options are often right for a positive one
  if (rules.skipNegativeLenders) skips.push((j) => side.isNegative(j))
  // a lender sharing an option with the item asks about the same things, perhaps the other way round
  if (rules.skipOverlappingLenders) skips.push((j) => side.questions[j]!.normOptions.some((n) => mine.has(n)))
  // a lender whose question holds every content word of the item's asks a narrower question about the same thing
  if (rules.skipNarrowerLenders) skips.push(side.words.coveredBy(at))
  return skips
}
