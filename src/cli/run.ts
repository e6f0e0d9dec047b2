import { ERROR_CODES, hintOf, isJevError } from '../errors.ts'
import type { Progress, TerminalStream } from '../util/progress.ts'
import { scrub } from '../util/secrets.ts'

// the Hub token is removed from anything about to be printed (src/util/secrets.ts)
export { scrub } from '../util/secrets.ts'

export interface Io {
  out: (line: string) => void
  err: (line: string) => void
  /** where progress may be drawn (a TTY stderr draws it; see progress.ts); none: no progress */
  terminal?: TerminalStream
  /** this run's progress display, made by command.ts (or given to the library); none: nothing drawn */
  progress?: Progress
}

export const stdio: Io = {
  out: (line) => process.stdout.write(`${scrub(line)}\n`),
  err: (line) => process.stderr.write(`${scrub(line)}\n`),
  terminal: process.stderr,
}

/** Runs a command; a typed error becomes one line plus a hint and its documented exit status. */
export async function runCli(
  main: () => Promise<number | undefined>,
  io: Io = stdio,
  debug = process.argv.includes('--debug'),
): Promise<number> {
  try {
    return (await main()) ?? 0
  } catch (e) {
    if (isJevError(e)) {
      io.err(`error[${e.code}]: ${e.message}`)
      // a USAGE error shows the command's usage (see command.ts), then the hint
      if (typeof e.context.usage === 'string') io.err(e.context.usage)
      io.err(`hint: ${hintOf(e)}`)
      if (debug && e.stack) io.err(e.stack)
      return ERROR_CODES[e.code].exit
    }
    io.err(`error[INTERNAL]: ${(e as Error)?.message ?? String(e)}`)
    if (debug && e instanceof Error && e.stack) io.err(e.stack)
    else io.err('hint: this is a bug in the builder; rerun with --debug for a stack trace')
    return 1
  }
}

/**
 * A CLI process's entry: after a failure it exits once its output is out, so
 * work still in flight — the next source's downloads, their retries, a wait for
 * another build's cache lock — does not keep it running after the error is
 * printed. That work only ever writes to temp paths first, and the cache locks
 * it holds are released on exit, so stopping it loses nothing.
 */
export async function runMain(main: () => Promise<number | undefined>): Promise<void> {
  // a reader that stopped early (| head) is not an error of ours: finish quietly
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e
    })
  const code = await runCli(main)
  if (code === 0) return
  process.exitCode = code
  // output to a pipe is written asynchronously: let it drain, then stop what is still running
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise((done) => s.write('', done))))
  process.exit(code)
}
