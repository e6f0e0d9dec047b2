/**
 * The screening marks file as `jev screen` grows it: which candidates to show next, and the marks of a round (and of
 * a recheck) joined into the file, each item naming the reviewer who made them. Pure functions over ScreenedFile.
 */
import { type ScreenedFile, ScreenedFile as ScreenedFileSchema, type ScreenReviewer } from '../borrow/screen.ts'
import { JevError } from '../errors.ts'
import { compareStrings } from '../util/canonical.ts'
import type { ScreenItem } from './screen-sheets.ts'

export const SCREEN_PROTOCOL = 'docs/judging.md#screening'

/** An empty file, or `earlier` with every item that names no reviewer credited to `earlier` (the file it came from). */
export function startFrom(earlier: ScreenedFile | null, file: string): ScreenedFile {
  if (!earlier) return { protocol: SCREEN_PROTOCOL, items: {} }
  const out: ScreenedFile = { ...earlier, items: { ...earlier.items } }
  const key = `earlier:${file}`
  let credited = false
  for (const [id, x] of Object.entries(out.items)) {
    const by = x.by ?? [[key, x.marks.length] as [string, number]]
    const recheckBy = x.recheckBy ?? (x.recheck ? [[key, x.recheck.length] as [string, number]] : undefined)
    if (x.by && (x.recheckBy || !x.recheck)) continue
    out.items[id] = { ...x, by, ...(recheckBy && { recheckBy }) }
    credited = true
  }
  if (credited) out.reviewers = { ...out.reviewers, [key]: { kind: 'earlier', file, protocol: earlier.protocol } }
  return out
}

/** The candidates accepted for an item after its recheck, where there is one. */
function acceptedCount(x: ScreenedFile['items'][string]): number {
  const first = [...x.marks].filter((m) => m === 'a').length
  return x.recheck === undefined ? first : [...x.recheck].filter((m) => m === 'w').length + first - x.recheck.length
}

/**
 * What a round shows: for each item no mark covers, its first `top` candidates (`topEn` where the question has a
 * Latin letter); with `want`, for a covered item with fewer accepted, its next candidates no reviewer has seen.
 */
export function toShow(items: readonly ScreenItem[], file: ScreenedFile, top: number, topEn: number, want: number): ScreenItem[] {
  return items.flatMap((x) => {
    const had = file.items[x.id]
    if (had && acceptedCount(had) >= want) return []
    const seen = new Set(had?.shown ?? [])
    const next = x.candidates.filter((c) => !seen.has(c.norm)).slice(0, /\p{Script=Latin}/u.test(x.question) ? topEn : top)
    return next.length ? [{ ...x, candidates: next }] : []
  })
}

/** A reviewer's key in the file's `reviewers`: its name, made unique where another reviewer had it. */
export function reviewerKey(file: ScreenedFile, name: string, who: ScreenReviewer): string {
  const same = (r: ScreenReviewer | undefined) => r !== undefined && JSON.stringify(r) === JSON.stringify(who)
  for (let n = 1; ; n++) {
    const key = n === 1 ? name : `${name} (${n})`
    if (!file.reviewers?.[key] || same(file.reviewers[key])) return key
  }
}

/** The file with a round's marks added after each item's earlier ones, credited to `by`. */
export function addRound(
  file: ScreenedFile,
  shown: readonly ScreenItem[],
  marks: ReadonlyMap<string, string>,
  by: string,
  who: ScreenReviewer,
): ScreenedFile {
  const items = { ...file.items }
  for (const x of shown) {
    const m = marks.get(x.id)
    if (m === undefined) continue
    const had = items[x.id]
    items[x.id] = {
      ...had,
      shown: [...(had?.shown ?? []), ...x.candidates.map((c) => c.norm)],
      marks: `${had?.marks ?? ''}${m}`,
      by: [...(had?.by ?? []), [by, m.length]],
    }
  }
  return { ...file, reviewers: { ...file.reviewers, [by]: who }, items: sorted(items) }
}

/**
 * What a second reviewer is shown: for each item this run marked, its accepted candidates no recheck covers yet
 * (texts from the build's candidate lists, the normalised text where the list no longer has one).
 */
export function toRecheck(file: ScreenedFile, touched: ReadonlySet<string>, items: readonly ScreenItem[]): ScreenItem[] {
  const byId = new Map(items.map((x) => [x.id, x]))
  const out: ScreenItem[] = []
  for (const id of [...touched].sort(compareStrings)) {
    const x = file.items[id]
    const item = byId.get(id)
    if (!x || !item) continue
    const accepted = x.shown.filter((_, i) => x.marks[i] === 'a')
    const rest = accepted.slice(x.recheck?.length ?? 0)
    if (rest.length === 0) continue
    const texts = new Map(item.candidates.map((c) => [c.norm, c]))
    out.push({ ...item, candidates: rest.map((norm) => texts.get(norm) ?? { text: norm, norm, lender: '', index: -1 }) })
  }
  return out
}

/** The file with a recheck's marks appended to each item's, credited to `by`. */
export function addRecheck(
  file: ScreenedFile,
  rechecked: readonly ScreenItem[],
  marks: ReadonlyMap<string, string>,
  by: string,
  who: ScreenReviewer,
): ScreenedFile {
  const items = { ...file.items }
  for (const x of rechecked) {
    const m = marks.get(x.id)
    const had = items[x.id]
    if (m === undefined || !had) continue
    items[x.id] = { ...had, recheck: `${had.recheck ?? ''}${m}`, recheckBy: [...(had.recheckBy ?? []), [by, m.length]] }
  }
  return { ...file, reviewers: { ...file.reviewers, [by]: who }, items }
}

/** Items this run marked that an earlier reviewer rechecked: their new accepted candidates need a second reviewer too. */
export function needsSecond(file: ScreenedFile, touched: ReadonlySet<string>): string[] {
  return [...touched].filter((id) => {
    const x = file.items[id]
    return x?.recheck !== undefined && x.recheck.length < [...x.marks].filter((m) => m === 'a').length
  })
}

/** The file checked against its schema (an internal fault otherwise) as the bytes written: one item a line's worth of JSON. */
export function marksFileText(file: ScreenedFile): string {
  const r = ScreenedFileSchema.safeParse(file)
  if (!r.success) throw new JevError('DATA', `the screening marks do not make a valid file: ${r.error.issues[0]?.message}`, {})
  return `${JSON.stringify(r.data, null, 1)}\n`
}

function sorted<T>(items: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.keys(items)
      .sort(compareStrings)
      .map((k) => [k, items[k]!]),
  )
}
