// The screening sheets of docs/judging.md: an item's question, its own options with the right one marked, and its
// top candidates, numbered; a person answers one line per item with a mark per candidate. A model reviewer is shown
// the same text for one item at a time (itemText).
import { JevError } from '../errors.ts'
import type { Split } from '../recipe/schema.ts'
import { MARK_LETTERS, sheetInstructions } from './prompts.ts'

/** A selected item that can borrow, with the candidates a reviewer is shown for it. */
export interface ScreenItem {
  id: string
  split: Split
  source: string
  question: string
  context: string | null
  options: string[]
  answer: number
  /** in the build's rank order; `norm` is the text normalised, as the screen file keeps it */
  candidates: { text: string; norm: string; lender: string; index: number }[]
}

/** One item as a sheet or a model shows it, numbered `n`. */
export function itemText(x: ScreenItem, n: number): string {
  const own = x.options.map((o, j) => `- ${j === x.answer ? '✓ ' : ''}${o}`).join('\n')
  const cands = x.candidates.map((c, j) => `${j + 1}. ${c.text}`).join('\n')
  const context = x.context === null ? '' : `Context: ${x.context}\n\n`
  return `## ${n} (${x.candidates.length} candidates)\n\n${context}Question: ${x.question}\n\nOwn options:\n${own}\n\nCandidates:\n${cands}\n`
}

/** The sheet for a screening round, or (`recheck`) for a second look at the candidates a round accepted. */
export function renderScreenSheet(items: readonly ScreenItem[], title: string, recheck = false): string {
  const parts = [`# ${title}\n\n${sheetInstructions(recheck ? 'recheck' : 'screen')}\n`]
  items.forEach((x, i) => {
    parts.push(itemText(x, i + 1))
  })
  return parts.join('\n')
}

/** The marks of a reply by item id; a line with the wrong number of marks, or an item twice, is DATA naming the file. */
export function parseScreenMarks(text: string, items: readonly ScreenItem[], file: string, recheck = false): Map<string, string> {
  const letters = MARK_LETTERS[recheck ? 'recheck' : 'screen']
  const bad = (what: string) =>
    new JevError('DATA', `${file}: ${what}`, {
      file,
      hint: 'correct the marks file: one line per item, "N: " and one letter per candidate',
    })
  const out = new Map<string, string>()
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s*[:.]\s*(.+)$/.exec(line)
    if (!m) continue
    const item = items[Number(m[1]) - 1]
    if (!item) throw bad(`item ${m[1]} is not on the sheet`)
    const marks = m[2]!
      .trim()
      .toLowerCase()
      .split(/[\s,]+/)
      .filter((t) => t !== '')
    if (marks.some((t) => !letters.includes(t))) throw bad(`item ${m[1]}: marks must be ${letters.join(', ')}: ${m[2]}`)
    if (marks.length !== item.candidates.length) throw bad(`item ${m[1]} has ${item.candidates.length} candidates, ${marks.length} marks`)
    if (out.has(item.id)) throw bad(`item ${m[1]} is marked twice`)
    out.set(item.id, marks.join(''))
  }
  return out
}
