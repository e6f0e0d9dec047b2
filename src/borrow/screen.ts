import { z } from 'zod'
import { compareStrings } from '../util/canonical.ts'

/** A screening mark: `a` a reader would accept the candidate and it is wrong, `f` foreign, `r` may also be right. */
export const SCREEN_MARKS = { a: 'acceptable', f: 'foreign', r: 'may also be right' } as const
/** A second reviewer's mark on each accepted candidate: `w` surely wrong and belongs, `r` may also be right, `f` foreign. */
export const RECHECK_MARKS = { w: 'wrong and belongs', r: 'may also be right', f: 'foreign' } as const

const acceptedCount = (marks: string) => [...marks].filter((m) => m === 'a').length

/**
 * The reviewers' screening of borrowable options (docs/judging.md), which the recipe pins: per item id,
 * the candidates shown (normalised, in the order shown) and one mark for each.
 */
export const ScreenedFile = z.strictObject({
  protocol: z.string().min(1),
  items: z.record(
    z.string().min(1),
    z
      .strictObject({
        shown: z.array(z.string().min(1)).min(1),
        marks: z.string().regex(/^[afr]+$/),
        /** the second reviewer's marks, one per candidate marked `a`, in the order shown */
        recheck: z
          .string()
          .regex(/^[wrf]*$/)
          .optional(),
      })
      .refine((x) => x.shown.length === x.marks.length, 'one mark per candidate shown')
      .refine((x) => x.recheck === undefined || x.recheck.length === acceptedCount(x.marks), 'one recheck mark per accepted candidate'),
  ),
})
export type ScreenedFile = z.infer<typeof ScreenedFile>

/** What the build asks of a screening: the normalised candidates accepted for an item (none for an item not screened). */
export class Screen {
  private readonly accepted = new Map<string, ReadonlySet<string>>()

  constructor(file: ScreenedFile) {
    for (const [id, { shown, marks, recheck }] of Object.entries(file.items)) {
      const first = shown.filter((_, i) => marks[i] === 'a')
      // where a second reviewer looked, only what both took for a wrong option that belongs
      this.accepted.set(id, new Set(recheck === undefined ? first : first.filter((_, j) => recheck[j] === 'w')))
    }
  }

  /** Whether anything is accepted for the item: without, it borrows nothing and its candidates need no ranking. */
  acceptsAny(id: string): boolean {
    return (this.accepted.get(id)?.size ?? 0) > 0
  }

  accepts(id: string, norm: string): boolean {
    return this.accepted.get(id)?.has(norm) ?? false
  }

  /** The screened items that are none of `ids` (in id order): marks for another build's items, which lend nothing. */
  strangers(ids: ReadonlySet<string>): string[] {
    return [...this.accepted.keys()].filter((id) => !ids.has(id)).sort(compareStrings)
  }

  get size(): number {
    return this.accepted.size
  }
}

/**
 * The file for what was screened: items (with the normalised candidates shown), each one's marks, and where a
 * second reviewer rechecked the accepted ones, those marks.
 */
export function screenedFile(
  items: readonly { id: string; candidates: readonly { norm: string }[] }[],
  marks: ReadonlyMap<string, string>,
  recheck: ReadonlyMap<string, string> = new Map(),
): ScreenedFile {
  const out: ScreenedFile = { protocol: 'docs/judging.md#screening', items: {} }
  for (const x of [...items].sort((a, b) => compareStrings(a.id, b.id))) {
    const m = marks.get(x.id)
    if (m === undefined) continue
    const again = recheck.get(x.id)
    out.items[x.id] = { shown: x.candidates.map((c) => c.norm), marks: m, ...(again !== undefined && { recheck: again }) }
  }
  return ScreenedFile.parse(out)
}
