/**
 * Progress on a terminal: the build's stage, each download's bytes with rate
 * and ETA, each source's rows. Drawn on stderr only when it is a TTY, and not
 * under CI, --quiet or HF_HUB_DISABLE_PROGRESS_BARS (the Hub's convention);
 * otherwise every call is a no-op. Never on stdout, never in a file: the
 * wall clock it reads reaches nothing but the terminal.
 */

import { fitColumns } from './columns.ts'

export interface FileProgress {
  /** bytes received since the last call */
  advance(bytes: number): void
  done(): void
}

export interface Progress {
  /** the build's current stage ("loading sources", "selecting", "writing out/"); the rows of the one before go */
  stage(text: string): void
  /** a download of `total` bytes (when the server said) */
  file(label: string, total?: number): FileProgress
  /** rows decoded so far of a source */
  rows(source: string, rows: number, total?: number): void
  /** a line printed above the bars (warnings, `hub: …` lines), which are then drawn again */
  log(line: string): void
  /** the bars taken off while `write` prints (on stderr or stdout, which may share the terminal), then drawn again */
  above(write: () => void): void
  /** removes the bars; the final summary is printed after */
  end(): void
}

/** The Hub's convention: 1, ON, YES, TRUE (any case). */
const truthy = (v: string | undefined) => v !== undefined && /^(1|on|yes|true)$/i.test(v.trim())

/** Whether progress is drawn: a TTY, not CI, not --quiet, not HF_HUB_DISABLE_PROGRESS_BARS. */
export function progressWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv, quiet = false): boolean {
  return (
    stream.isTTY === true &&
    !quiet &&
    !truthy(env.HF_HUB_DISABLE_PROGRESS_BARS) &&
    !(env.CI !== undefined && env.CI !== '' && !/^(0|false)$/i.test(env.CI))
  )
}

const NOOP_FILE: FileProgress = { advance() {}, done() {} }
/** The progress of a non-TTY run: nothing at all. */
export const NO_PROGRESS: Progress = { stage() {}, file: () => NOOP_FILE, rows() {}, log() {}, above: (write) => write(), end() {} }

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  const units = ['kB', 'MB', 'GB']
  let v = n / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`
}

/** 12,345: digits grouped by hand, so no locale is consulted */
const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')

function formatSeconds(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '?'
  // rounded once, then split: 119.6 s is 2 min 0 s, never 1 min 60 s
  const whole = Math.ceil(s)
  if (whole < 60) return `${whole} s`
  return `${Math.floor(whole / 60)} min ${whole % 60} s`
}

interface Download {
  label: string
  total?: number
  received: number
  started: number
}

export interface TerminalOptions {
  /** where to draw; process.stderr */
  write: (text: string) => void
  /** columns of the terminal, to cut lines that would wrap */
  columns?: number
  /** ms between redraws */
  intervalMs?: number
  now?: () => number
}

/** Bars drawn with \r and ANSI erase/cursor-up, redrawn at most every `intervalMs`. */
export function terminalProgress(o: TerminalOptions): Progress {
  const now = o.now ?? (() => performance.now())
  const interval = o.intervalMs ?? 100
  // a pty without a size (script with no terminal) reports 0 columns
  const width = Math.max(20, (o.columns || 80) - 1)
  let stage = ''
  const downloads = new Set<Download>()
  const rows = new Map<string, { rows: number; total?: number }>()
  let drawn = 0
  let lastDraw = -Infinity
  let ended = false

  const lines = (): string[] => {
    const t = now()
    const out = stage ? [stage] : []
    for (const d of downloads) {
      const secs = (t - d.started) / 1000
      const rate = secs > 0 ? d.received / secs : 0
      const of = d.total ? ` / ${formatBytes(d.total)} (${Math.floor((100 * d.received) / d.total)} %)` : ''
      const eta = d.total && rate > 0 ? `, ${formatSeconds((d.total - d.received) / rate)} left` : ''
      out.push(`  ${d.label}: ${formatBytes(d.received)}${of}, ${formatBytes(Math.round(rate))}/s${eta}`)
    }
    for (const [source, r] of rows) out.push(`  ${source}: ${grouped(r.rows)}${r.total ? ` of ${grouped(r.total)}` : ''} rows`)
    return out.map((l) => fitColumns(l, width))
  }
  const erase = () => {
    if (drawn > 0) o.write(`\r\x1b[K${'\x1b[1A\x1b[K'.repeat(drawn - 1)}`)
    drawn = 0
  }
  const draw = (force = false) => {
    if (ended) return
    const t = now()
    if (!force && t - lastDraw < interval) return
    lastDraw = t
    erase()
    const ls = lines()
    if (ls.length) o.write(ls.join('\n'))
    drawn = ls.length
  }
  const above = (write: () => void) => {
    erase()
    write()
    draw(true)
  }
  return {
    stage(text) {
      stage = text
      rows.clear()
      draw(true)
    },
    file(label, total) {
      const d: Download = { label, received: 0, started: now(), ...(total !== undefined ? { total } : {}) }
      downloads.add(d)
      draw(true)
      return {
        advance(bytes) {
          d.received += bytes
          draw()
        },
        done() {
          downloads.delete(d)
          draw(true)
        },
      }
    },
    rows(source, n, total) {
      rows.set(source, { rows: n, ...(total !== undefined ? { total } : {}) })
      draw(total !== undefined && n >= total) // a finished file is shown finished
    },
    log: (line) => above(() => o.write(`${line}\n`)),
    above,
    end() {
      erase()
      ended = true
    },
  }
}

/** What progress is drawn on: process.stderr, or a test's stand-in for a terminal. */
export interface TerminalStream {
  isTTY?: boolean
  columns?: number
  write(text: string): unknown
}

/** The progress for a CLI run: bars on a TTY stderr, else nothing. */
export function progressFor(stream: TerminalStream, env: NodeJS.ProcessEnv, quiet: boolean): Progress {
  if (!progressWanted(stream, env, quiet)) return NO_PROGRESS
  return terminalProgress({ write: (t) => stream.write(t), columns: stream.columns })
}
