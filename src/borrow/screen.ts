import { z } from 'zod'

/** A screening mark: `a` a reader would accept the candidate and it is wrong, `f` foreign, `r` may also be right. */
export const SCREEN_MARKS = { a: 'acceptable', f: 'foreign', r: 'may also be right' } as const

/**
 * The reviewers' screening of borrowable options (docs/judging.md), which the recipe pins: per item id,
 * the candidates shown (normalised, in the order shown) and one mark for each.
 */
export const ScreenedFile = z.strictObject({
  protocol: z.string().min(1),
  items: z.record(
    z.string().min(1),
    z
      .strictObject({ shown: z.array(z.string().min(1)).min(1), marks: z.string().regex(/^[afr]+$/) })
      .refine((x) => x.shown.length === x.marks.length, 'one mark per candidate shown'),
  ),
})
export type ScreenedFile = z.infer<typeof ScreenedFile>

/** What the build asks of a screening: the normalised candidates accepted for an item (none for an item not screened). */
export class Screen {
  private readonly accepted = new Map<string, ReadonlySet<string>>()

  constructor(file: ScreenedFile) {
    for (const [id, { shown, marks }] of Object.entries(file.items))
      this.accepted.set(id, new Set(shown.filter((_, i) => marks[i] === 'a')))
  }

  accepts(id: string, norm: string): boolean {
    return this.accepted.get(id)?.has(norm) ?? false
  }
}

/** The file for what was screened: items (with the normalised candidates shown) and each one's marks. */
export function screenedFile(
  items: readonly { id: string; candidates: readonly { norm: string }[] }[],
  marks: ReadonlyMap<string, string>,
): ScreenedFile {
  const out: ScreenedFile = { protocol: 'docs/judging.md#screening', items: {} }
  for (const x of [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const m = marks.get(x.id)
    if (m === undefined) continue
    out.items[x.id] = { shown: x.candidates.map((c) => c.norm), marks: m }
  }
  return ScreenedFile.parse(out)
}
