/**
 * A model reviewer's journal: JSONL, a header naming the task, endpoint, model and prompt, then one line per item
 * marked (its id, the request's hash, the marks), appended and fsynced one at a time. A rerun asks only for the items
 * it lacks; a last line cut short by a kill is dropped. No line holds a key or a URL's credentials.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'
import { JevError } from '../errors.ts'
import { makeDirs } from '../util/files.ts'

export const ReviewHeader = z.strictObject({
  journal: z.literal('jev-review'),
  version: z.literal(1),
  task: z.enum(['screen', 'recheck', 'judge']),
  /** the endpoint as safeUrl shows it */
  endpoint: z.string(),
  model: z.string(),
  /** sha256 of the prompt file's text */
  prompt: z.string(),
})
export type ReviewHeader = z.infer<typeof ReviewHeader>

const MarkLine = z.strictObject({ id: z.string(), key: z.string(), marks: z.string(), ms: z.int().nonnegative() })
export type MarkLine = z.infer<typeof MarkLine>

export interface ReviewJournal {
  header: ReviewHeader
  /** by request hash */
  lines: Map<string, MarkLine>
  /** bytes up to the end of the last whole line */
  whole: number
}

/** The journal at `path`, or null where there is none; DATA naming the file and line for one that is not a journal. */
export function readReviewJournal(path: string): ReviewJournal | null {
  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new JevError('IO', `cannot read the journal ${path}: ${(e as Error).message}`, { file: path })
  }
  const bad = (row: number, what: string) =>
    new JevError('DATA', `${path} line ${row}: ${what}`, {
      file: path,
      row,
      hint: 'the journal was edited, or is not a jev review journal: name another --journal, or remove it to start over',
    })
  let header: ReviewHeader | null = null
  const lines = new Map<string, MarkLine>()
  let at = 0
  let row = 0
  for (;;) {
    const nl = bytes.indexOf(10, at)
    // no newline: a line a kill cut short, dropped
    if (nl < 0) break
    row++
    let v: unknown
    try {
      v = JSON.parse(bytes.subarray(at, nl).toString('utf8'))
    } catch {
      throw bad(row, 'not JSON')
    }
    if (row === 1) {
      const h = ReviewHeader.safeParse(v)
      if (!h.success) throw bad(row, 'not a jev review journal header')
      header = h.data
    } else {
      const m = MarkLine.safeParse(v)
      if (!m.success) throw bad(row, 'not a journal line')
      lines.set(m.data.key, m.data)
    }
    at = nl + 1
  }
  return header ? { header, lines, whole: at } : null
}

/** Appends lines to a journal, each fsynced before the next answer counts as kept; a line a kill cut short is cut off first. */
export class ReviewJournalWriter {
  private readonly fd: number
  private offset: number

  private constructor(fd: number, offset: number) {
    this.fd = fd
    this.offset = offset
  }

  static async open(path: string, journal: ReviewJournal | null, header: ReviewHeader): Promise<ReviewJournalWriter> {
    await makeDirs(dirname(path))
    const fd = openSync(path, journal ? 'r+' : 'w')
    if (journal) ftruncateSync(fd, journal.whole)
    const w = new ReviewJournalWriter(fd, fstatSync(fd).size)
    if (!journal) w.append(header)
    return w
  }

  append(line: ReviewHeader | MarkLine): void {
    const buf = Buffer.from(`${JSON.stringify(line)}\n`)
    writeSync(this.fd, buf, 0, buf.length, this.offset)
    this.offset += buf.length
    fsyncSync(this.fd)
  }

  close(): void {
    closeSync(this.fd)
  }
}

/** Why a journal's header is not this run's (another task, endpoint, model or prompt), or null. */
export function headerDiffers(was: ReviewHeader, now: ReviewHeader): string | null {
  for (const k of ['task', 'endpoint', 'model', 'prompt'] as const)
    if (was[k] !== now[k]) return `its ${k} is ${JSON.stringify(was[k])}, this run's ${JSON.stringify(now[k])}`
  return null
}
