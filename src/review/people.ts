/**
 * People as the screening reviewers: the items dealt to sheets in a folder (screen-K.md, and items.json naming each
 * sheet's items), and the marks read back from marks-K.txt beside them. A first run writes the sheets; a later one
 * with the same items reads the marks, or says which files are still to fill.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { JevError } from '../errors.ts'
import { writeAtomic } from '../util/atomic.ts'
import { parseScreenMarks, renderScreenSheet, type ScreenItem } from './screen-sheets.ts'

export interface PeopleReviewer {
  kind: 'people'
  /** the folder of sheets and marks */
  sheets: string
  /** items per sheet */
  perSheet: number
}

export type PeopleAnswer = { marks: Map<string, string> } | { waiting: string[] }

interface Drawn {
  sheets: string[][]
  items: ScreenItem[]
}

/** What a round's items are, as a later run compares them: ids and the candidates shown, in order. */
const fingerprint = (items: readonly ScreenItem[]) => JSON.stringify(items.map((x) => [x.id, x.candidates.map((c) => c.norm)]))

async function readIfThere(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new JevError('IO', `cannot read ${file}: ${(e as Error).message}`, { file })
  }
}

/** The marks people gave for `items` on the sheets in `r.sheets`, or the marks files still to fill (the sheets written first). */
export async function askPeople(r: PeopleReviewer, items: readonly ScreenItem[], recheck: boolean): Promise<PeopleAnswer> {
  const index = join(r.sheets, 'items.json')
  const text = await readIfThere(index)
  let drawn: Drawn
  if (text === null) {
    const sheets: string[][] = []
    for (let i = 0; i < items.length; i += r.perSheet) sheets.push(items.slice(i, i + r.perSheet).map((x) => x.id))
    drawn = { sheets, items: [...items] }
    const byId = new Map(items.map((x) => [x.id, x]))
    for (const [k, ids] of sheets.entries())
      await writeAtomic(
        join(r.sheets, `screen-${k + 1}.md`),
        renderScreenSheet(
          ids.map((id) => byId.get(id)!),
          `${recheck ? 'Recheck sheet' : 'Sheet'} ${k + 1}`,
          recheck,
        ),
      )
    await writeAtomic(index, `${JSON.stringify(drawn, null, 1)}\n`)
  } else {
    try {
      drawn = JSON.parse(text) as Drawn
    } catch {
      throw new JevError('DATA', `${index}: not JSON`, {
        file: index,
        hint: 'the folder holds no sheets jev screen wrote: give another folder',
      })
    }
    if (fingerprint(drawn.items ?? []) !== fingerprint(items))
      throw new JevError('USAGE', `${r.sheets} holds the sheets of another round (other items or candidates than this one shows)`, {
        usage: null,
        file: r.sheets,
        hint: 'give each round a new folder; marks already collected are in the marks file',
      })
  }
  const byId = new Map(drawn.items.map((x) => [x.id, x]))
  const marks = new Map<string, string>()
  const waiting: string[] = []
  for (const [k, ids] of drawn.sheets.entries()) {
    const file = join(r.sheets, `marks-${k + 1}.txt`)
    const reply = await readIfThere(file)
    if (reply === null) {
      waiting.push(file)
      continue
    }
    const got = parseScreenMarks(
      reply,
      ids.map((id) => byId.get(id)!),
      file,
      recheck,
    )
    if (ids.some((id) => !got.has(id))) waiting.push(file)
    for (const [id, m] of got) marks.set(id, m)
  }
  return waiting.length ? { waiting } : { marks }
}
