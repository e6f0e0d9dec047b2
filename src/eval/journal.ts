/**
 * The response journal: JSONL, a header line naming the run, then one line per answered request
 * (split, record id, the request's hash, the answer's part that is scored, its time), appended and
 * fsynced line by line. Each line ends with the sha256 of the rest, so an edited line is refused,
 * not scored. A rerun sends only what it lacks; a last line cut short by a kill is dropped; a run
 * from the journal alone needs no server. One run at a time holds a journal (withJournalLock).
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { JevError } from '../errors.ts'
import { withFileLock } from '../util/file-lock.ts'
import { sha256Hex } from '../util/hash.ts'

export const JOURNAL_VERSION = 2

export interface JournalHeader {
  journal: 'jev-eval'
  version: typeof JOURNAL_VERSION
  url: string
  api: string
  model: string
  assistant_prefix: string | null
  datasetHash: string
}

export interface AnswerLine {
  split: string
  id: string
  key: string
  /** the answer's part the scores come from (answers.q, or the first token's top_logprobs) */
  answer: unknown
  ms: number
}

/** The probe's finding when it found no logits (a found logit is the first item's answer line). */
export interface ProbeLine {
  probe: 'probabilities'
  key: string
  status: number
}

export interface JournalContent {
  header: JournalHeader | null
  answers: Map<string, AnswerLine>
  probes: Map<string, ProbeLine>
  /** the byte length of the whole lines: what a kill left after it is cut off before appending */
  goodBytes: number
}

const HEADER_FIELDS = ['url', 'api', 'model', 'assistant_prefix', 'datasetHash'] as const

/** A line's text: its JSON with `"sum"`, the sha256 of that JSON without it, as the last field. */
export function sealLine(line: object): string {
  const body = JSON.stringify(line)
  return `${body.slice(0, -1)}${body === '{}' ? '' : ','}"sum":"${sha256Hex(body)}"}`
}

const SUM = /,?"sum":"([0-9a-f]{64})"\}$/

/** A line's JSON once its sum is checked; a reason when the line has none or was changed. */
function unsealLine(text: string): { json: string } | { why: string } {
  const m = SUM.exec(text)
  if (!m) return { why: 'has no checksum' }
  const body = `${text.slice(0, m.index)}}`
  return sha256Hex(body) === m[1] ? { json: body } : { why: 'does not match its checksum: it was edited or damaged' }
}

export function readJournal(path: string): JournalContent | null {
  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new JevError('IO', `cannot read the journal ${path}: ${(e as Error).message}`, { file: path })
  }
  const out: JournalContent = { header: null, answers: new Map(), probes: new Map(), goodBytes: 0 }
  let at = 0
  let row = 0
  while (at < bytes.length) {
    const nl = bytes.indexOf(10, at)
    // no newline: the line a kill cut short, dropped
    if (nl < 0) break
    row++
    const line = bytes.subarray(at, nl).toString('utf8')
    let v: Record<string, unknown>
    try {
      v = JSON.parse(line) as Record<string, unknown>
    } catch {
      throw new JevError('DATA', `${path} line ${row}: not JSON`, {
        file: path,
        row,
        hint: 'the journal was edited or damaged; remove the line (its question is asked again), or the journal to start over',
      })
    }
    if (row === 1 && (v.journal !== 'jev-eval' || v.version !== JOURNAL_VERSION))
      throw new JevError(
        'DATA',
        v.journal === 'jev-eval'
          ? `${path}: a version ${JSON.stringify(v.version)} journal; this eval-model reads version ${JOURNAL_VERSION} (with line checksums)`
          : `${path}: not an eval-model journal (its first line is no jev-eval header)`,
        { file: path, hint: 'name another --journal or --out, or remove the file to ask the server again' },
      )
    const sealed = unsealLine(line)
    if ('why' in sealed)
      throw new JevError('DATA', `${path} line ${row} ${sealed.why}`, {
        file: path,
        row,
        hint: 'a journal is written by eval-model only; remove the line (its question is asked again), or the journal to start over',
      })
    v = JSON.parse(sealed.json) as Record<string, unknown>
    if (row === 1) {
      out.header = v as unknown as JournalHeader
    } else if (v.probe === 'probabilities' && typeof v.key === 'string') out.probes.set(v.key, v as unknown as ProbeLine)
    else if (typeof v.key === 'string' && typeof v.id === 'string' && typeof v.split === 'string' && 'answer' in v)
      out.answers.set(v.key, v as unknown as AnswerLine)
    else throw new JevError('DATA', `${path} line ${row}: not a journal line`, { file: path, row })
    at = nl + 1
    out.goodBytes = at
  }
  return out
}

/** Whether a journal's header is this run's: the same server, API, model, prefix and data. */
export function headerMismatch(a: JournalHeader, b: JournalHeader): string | null {
  for (const f of HEADER_FIELDS) if (a[f] !== b[f]) return `${f} is ${JSON.stringify(a[f])} there, ${JSON.stringify(b[f])} here`
  return null
}

/** Appends lines, each written at the end and fsynced before the next answer is counted as kept. */
export class JournalWriter {
  private readonly fd: number
  private offset: number
  constructor(
    readonly path: string,
    content: JournalContent | null,
    header: JournalHeader,
  ) {
    mkdirSync(dirname(path), { recursive: true })
    this.fd = openSync(path, content ? 'r+' : 'w')
    // a line cut short by a kill is cut off, so the next line starts on its own
    if (content) ftruncateSync(this.fd, content.goodBytes)
    this.offset = fstatSync(this.fd).size
    if (!content) this.append(header)
  }
  append(line: object): void {
    const buf = Buffer.from(`${sealLine(line)}\n`)
    writeSync(this.fd, buf, 0, buf.length, this.offset)
    this.offset += buf.length
    fsyncSync(this.fd)
  }
  close(): void {
    closeSync(this.fd)
  }
}

/**
 * Runs `run` holding the journal's lock (`FILE.lock`), so no two runs append to one journal. A live
 * holder is refused at once rather than waited for; a lock whose process is gone is taken over.
 */
export function withJournalLock<T>(path: string, run: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(path), { recursive: true })
  return withFileLock(`${path}.lock`, run, {
    sleep: (ms) => new Promise((ok) => setTimeout(ok, ms)),
    maxWaitMs: 0,
    pollMs: 100,
    now: Date.now,
    gaveUp: (holder) =>
      new JevError(
        'IO',
        `the journal ${path} is in use by another eval-model run${holder.pid === null ? '' : ` (process ${holder.pid})`}`,
        {
          file: path,
          hint: `let that run finish, or give this one another --out or --journal; a lock left by a run that was killed (${path}.lock) is removed by itself`,
        },
      ),
  })
}
