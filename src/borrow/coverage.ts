/**
 * Whether the reviewers' marks cover what a build needs: where a screened recipe's quota table cannot be met, the
 * selected items the marks do not cover that could borrow without the screen are the cause, not the groups' capacity.
 */
import { JevError } from '../errors.ts'
import type { Candidate } from '../prepare/eligibility.ts'
import type { Split } from '../recipe/schema.ts'
import { compareStrings } from '../util/canonical.ts'
import type { Screen } from './screen.ts'

/** The ids (in id order) of the items no mark covers whose unscreened capacity is above their own options. */
export function uncoveredItems(
  items: readonly { c: Candidate; held: boolean; unscreenedCapacity: () => number }[],
  screen: Screen,
): string[] {
  return items
    .filter(({ c, held, unscreenedCapacity }) => !held && !screen.covers(c.id) && unscreenedCapacity() > Math.min(8, c.options.length))
    .map(({ c }) => c.id)
    .sort(compareStrings)
}

/** SCREEN: the items the quota table needs options for that no reviewer has screened, and how to screen them. */
export function screeningNeeded(split: Split, ids: readonly string[], selected: number): JevError {
  return new JevError(
    'SCREEN',
    `${split}: ${ids.length} of the ${selected} selected items could borrow options that no reviewer's mark covers (e.g. ${ids[0]}), and the option-count table needs them`,
    {
      id: ids[0],
      items: ids.length,
      field: 'distractors.borrow.plausible.screened',
      hint: 'screen them: jev screen --recipe FILE (--url URL --model NAME, or --sheets DIR), then build again; or let them borrow unscreened with distractors.borrow.plausible.screened.allowUnscreened: true (the card then says how many options were not screened)',
    },
  )
}
