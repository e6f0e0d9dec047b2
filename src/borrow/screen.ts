import { z } from 'zod'
import { compareStrings } from '../util/canonical.ts'

const acceptedCount = (marks: string) => [...marks].filter((m) => m === 'a').length

const Credit = z.tuple([z.string().min(1), z.int().positive()])
const credited = (by: readonly (readonly [string, number])[]) => by.reduce((n, [, k]) => n + k, 0)

/** Who marked: a model (its name, endpoint without credentials, and the prompt's sha256), sheets filled in by people (or anyone), or an earlier file. */
export const ScreenReviewer = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('model'), model: z.string().min(1), endpoint: z.string(), prompt: z.string().regex(/^[0-9a-f]{64}$/) }),
  z.strictObject({ kind: z.literal('sheets'), sheets: z.string().min(1) }),
  z.strictObject({ kind: z.literal('earlier'), file: z.string().min(1), protocol: z.string().min(1) }),
])
export type ScreenReviewer = z.infer<typeof ScreenReviewer>

/**
 * The reviewers' screening of borrowable options (docs/judging.md), which the recipe pins: per item id,
 * the candidates shown (normalised, in the order shown) and one mark for each; where `jev screen` wrote it,
 * which reviewer made each item's marks and its recheck.
 */
export const ScreenedFile = z
  .strictObject({
    protocol: z.string().min(1),
    reviewers: z.record(z.string().min(1), ScreenReviewer).optional(),
    items: z.record(
      z.string().min(1),
      z
        .strictObject({
          shown: z.array(z.string().min(1)).min(1),
          /** one per candidate shown: `a` a reader would accept it and it is wrong, `f` foreign, `r` may also be right */
          marks: z.string().regex(/^[afr]+$/),
          /** the second reviewer's marks, one per candidate marked `a`, in the order shown: `w` surely wrong and belongs, `r` may also be right, `f` foreign */
          recheck: z
            .string()
            .regex(/^[wrf]*$/)
            .optional(),
          /** who made the marks, in order: [key in `reviewers`, how many marks], and the same for the recheck */
          by: z.array(Credit).min(1).optional(),
          recheckBy: z.array(Credit).min(1).optional(),
        })
        .refine((x) => x.shown.length === x.marks.length, 'one mark per candidate shown')
        .refine((x) => x.recheck === undefined || x.recheck.length === acceptedCount(x.marks), 'one recheck mark per accepted candidate')
        .refine((x) => x.by === undefined || credited(x.by) === x.marks.length, '"by" credits every mark once')
        .refine(
          (x) => x.recheckBy === undefined || credited(x.recheckBy) === (x.recheck?.length ?? 0),
          '"recheckBy" credits every recheck mark once',
        ),
    ),
  })
  .superRefine((f, ctx) => {
    for (const [id, x] of Object.entries(f.items))
      for (const [who] of [...(x.by ?? []), ...(x.recheckBy ?? [])])
        if (!f.reviewers?.[who])
          ctx.addIssue({ code: 'custom', path: ['items', id], message: `names a reviewer "${who}" that "reviewers" does not list` })
  })
export type ScreenedFile = z.infer<typeof ScreenedFile>

/**
 * What the build asks of a screening: the normalised candidates accepted for an item. An item the file has no entry
 * for lends nothing, or, where the recipe allows unscreened borrowing (`open`), whatever the rules let it.
 */
export class Screen {
  private readonly accepted = new Map<string, ReadonlySet<string>>()

  constructor(
    /** the marks file as read */
    readonly file: ScreenedFile,
    private readonly open = false,
  ) {
    for (const [id, { shown, marks, recheck }] of Object.entries(file.items)) {
      const first = shown.filter((_, i) => marks[i] === 'a')
      // where a second reviewer looked, only what both took for a wrong option that belongs
      this.accepted.set(id, new Set(recheck === undefined ? first : first.filter((_, j) => recheck[j] === 'w')))
    }
  }

  /** Whether anything may be lent to the item: without, it borrows nothing and its candidates need no ranking. */
  acceptsAny(id: string): boolean {
    const accepted = this.accepted.get(id)
    return accepted === undefined ? this.open : accepted.size > 0
  }

  /** The normalised candidates accepted for the item; null where it borrows unscreened (an item the file does not cover, with `open`). */
  acceptedFor(id: string): ReadonlySet<string> | null {
    return this.accepted.get(id) ?? (this.open ? null : new Set())
  }

  accepts(id: string, norm: string): boolean {
    return this.accepted.get(id)?.has(norm) ?? this.open
  }

  /** Whether the file has marks for the item. */
  covers(id: string): boolean {
    return this.accepted.has(id)
  }

  /** The same marks, with items they do not cover borrowing unscreened. */
  opened(): Screen {
    return new Screen(this.file, true)
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
