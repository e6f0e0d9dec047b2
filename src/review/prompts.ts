/**
 * The reviewers' instructions, one file per task in the package's prompts/ (shipped with it): a model gets the
 * whole file as its system prompt; a person's sheet gets the criteria above "## Answer" and the line format instead.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { JevError } from '../errors.ts'
import { sha256Hex } from '../util/hash.ts'
import { PACKAGE_ROOT } from '../version.ts'

export type ReviewTask = 'screen' | 'recheck' | 'judge'

/** The letters each task's marks are made of, in the order the prompt lists them. */
export const MARK_LETTERS: Record<ReviewTask, readonly string[]> = {
  screen: ['a', 'f', 'r'],
  recheck: ['w', 'r', 'f'],
  judge: ['b', 'f', 'm'],
}

const ANSWER = '\n\n## Answer\n\n'

/** How a person answers on a sheet, after the criteria (the sheets' wording since 1.1.0, kept so old sheets reproduce). */
const LINE_FORMAT: Record<ReviewTask, { join: string; text: string }> = {
  screen: {
    join: '\n\n',
    text: `Answer with one line per item, nothing else: the item's number, a colon, then one letter per candidate in
order, separated by spaces, e.g. \`7: a f f r a f\`. Check that each line has exactly as many letters as the
item has candidates.`,
  },
  recheck: {
    join: '\n\n',
    text: `Answer with one line per item, nothing else: the item's number, a colon, then one letter per candidate in
order, separated by spaces, e.g. \`7: w w r f\`. Check that each line has exactly as many letters as the item
has candidates.`,
  },
  judge: {
    join: ' ',
    text: `Write one line per question, the question's number, a colon, and one letter per
option in the order shown, separated by spaces, e.g. "12: b b f b m m". Write nothing else.`,
  },
}

export const PROMPT_DIR = join(PACKAGE_ROOT, 'prompts')

const read = new Map<ReviewTask, string>()

function promptText(task: ReviewTask): string {
  let text = read.get(task)
  if (text === undefined) {
    const file = join(PROMPT_DIR, `${task}.md`)
    try {
      text = readFileSync(file, 'utf8')
    } catch (e) {
      throw new JevError('IO', `cannot read the reviewer prompt ${file}: ${(e as Error).message}`, {
        file,
        hint: "the package's prompts/ is incomplete: reinstall it",
      })
    }
    if (!text.includes(ANSWER)) throw new Error(`${file} has no "## Answer" section`)
    read.set(task, text)
  }
  return text
}

/** What a model reviewer is told, and its sha256 (recorded with every mark it gives). */
export function reviewerPrompt(task: ReviewTask): { text: string; sha256: string } {
  const text = promptText(task)
  return { text, sha256: sha256Hex(text) }
}

/** A sheet's instructions for a person: the prompt's criteria, then how to write the answer lines. */
export function sheetInstructions(task: ReviewTask): string {
  const criteria = promptText(task).split(ANSWER)[0]!
  return `${criteria}${LINE_FORMAT[task].join}${LINE_FORMAT[task].text}`
}
