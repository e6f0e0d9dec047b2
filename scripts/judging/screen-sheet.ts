// The screening sheets of docs/judging.md: an item's question, its own options with the right one marked, and
// its top candidates, numbered; the reviewer answers one line per item with a mark per candidate.
import { RECHECK_MARKS, SCREEN_MARKS } from '../../src/borrow/screen.ts'
import type { CandidateItem } from './rebuild.ts'

export type ScreenItem = CandidateItem

const INSTRUCTIONS = `You are screening extra wrong options ("distractors") for multiple-choice questions. Each item shows a
question, its own options with the right answer marked ✓, and numbered candidate options taken from other
questions. A candidate would be added as one more wrong option. Mark every candidate with one letter:

- a — acceptable: a reader who does not know the answer would take it for a genuine option of this question (the
  same kind of answer as the own options, on the question's topic, reading naturally beside them), and it is
  clearly wrong.
- f — foreign: a reader would strike it without knowing the answer (another kind of thing, another topic, a
  clause among single words, odd beside the others, plainly absurd).
- r — may also be right: it could be defended as a correct answer, is as good as the marked one, or restates it.

Be strict: in doubt between a and f, mark f; in doubt between a and r, mark r.

Answer with one line per item, nothing else: the item's number, a colon, then one letter per candidate in
order, separated by spaces, e.g. \`7: a f f r a f\`. Check that each line has exactly as many letters as the
item has candidates.`

const RECHECK = `You are double-checking extra wrong options ("distractors") that another reviewer accepted for
multiple-choice questions. Each item shows a question, its own options with the right answer marked ✓, and numbered
candidates; each would be added as one more wrong option. Mark every candidate with one letter:

- w — surely wrong, and it belongs: no careful reader could defend it as a correct answer, and it reads as a
  genuine option of this question.
- r — may also be right: a careful reader could defend it as a correct answer (as good as the marked one, partly
  right, a restatement of it, a broader or narrower term that also fits, or right on another reading of the
  question).
- f — foreign: a reader would strike it at once without knowing the answer (another kind of thing, another topic,
  odd beside the others).

Be strict about r: if you can imagine a careful reader arguing that it answers the question, mark r.

Answer with one line per item, nothing else: the item's number, a colon, then one letter per candidate in
order, separated by spaces, e.g. \`7: w w r f\`. Check that each line has exactly as many letters as the item
has candidates.`

/** The sheet for a screening round, or (`recheck`) for a second look at the candidates a round accepted. */
export function renderScreenSheet(items: readonly ScreenItem[], title: string, recheck = false): string {
  const parts = [`# ${title}\n\n${recheck ? RECHECK : INSTRUCTIONS}\n`]
  items.forEach((x, i) => {
    const own = x.options.map((o, j) => `- ${j === x.answer ? '✓ ' : ''}${o}`).join('\n')
    const cands = x.candidates.map((c, j) => `${j + 1}. ${c.text}`).join('\n')
    const context = x.context === null ? '' : `Context: ${x.context}\n\n`
    parts.push(
      `## ${i + 1} (${x.candidates.length} candidates)\n\n${context}Question: ${x.question}\n\nOwn options:\n${own}\n\nCandidates:\n${cands}\n`,
    )
  })
  return parts.join('\n')
}

/** The marks of a reply by item id; a line with the wrong number of marks, or an item twice, is an error naming the file. */
export function parseScreenMarks(text: string, items: readonly ScreenItem[], file: string, recheck = false): Map<string, string> {
  const letters: Record<string, string> = recheck ? RECHECK_MARKS : SCREEN_MARKS
  const out = new Map<string, string>()
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s*[:.]\s*(.+)$/.exec(line)
    if (!m) continue
    const item = items[Number(m[1]) - 1]
    if (!item) throw new Error(`${file}: item ${m[1]} is not on the sheet`)
    const marks = m[2]!
      .trim()
      .toLowerCase()
      .split(/[\s,]+/)
      .filter((t) => t !== '')
    if (marks.some((t) => !(t in letters)))
      throw new Error(`${file}: item ${m[1]}: marks must be ${Object.keys(letters).join(', ')}: ${m[2]}`)
    if (marks.length !== item.candidates.length)
      throw new Error(`${file}: item ${m[1]} has ${item.candidates.length} candidates, ${marks.length} marks`)
    if (out.has(item.id)) throw new Error(`${file}: item ${m[1]} is marked twice`)
    out.set(item.id, marks.join(''))
  }
  return out
}
