import { pathToFileURL } from 'node:url'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ERROR_CODES, isJevError, JevError } from '../errors.ts'
import { scrub } from '../secrets.ts'
import { BUILDER } from '../version.ts'

// the Hub token is removed from anything about to be printed (src/secrets.ts)
export { scrub } from '../secrets.ts'

export interface Io {
  out: (line: string) => void
  err: (line: string) => void
}

export const stdio: Io = {
  out: (line) => process.stdout.write(`${scrub(line)}\n`),
  err: (line) => process.stderr.write(`${scrub(line)}\n`),
}

/** Flags every command takes; parseCli documents them under each command's usage. */
const COMMON_OPTIONS = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' }, debug: { type: 'boolean' } } as const
const COMMON_USAGE = `  -h, --help       print this text
  --version        print the builder's name and version
  --debug          print the stack trace of an error`
const QUIET_USAGE = `  --quiet          no progress lines (downloads, retries, waits for the cache lock, publishing steps); results, warnings and errors still print`

/**
 * Parses a command's arguments. -h/--help and --version are answered here, on
 * `io.out`, and give null: the command then exits 0. `more` follows the usage
 * in --help only.
 */
export function parseCli<T extends ParseArgsConfig['options']>(argv: string[], options: T, usage: string, maxPositionals = 0, io: Io = stdio, more?: string) {
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: { ...options, ...COMMON_OPTIONS }, allowPositionals: true, strict: true })
  } catch (e) {
    throw new JevError('USAGE', `${(e as Error).message}\n${usage}`)
  }
  const common = parsed.values as { help?: boolean; version?: boolean }
  if (common.help) {
    io.out([usage, ...(options && 'quiet' in options ? [QUIET_USAGE] : []), COMMON_USAGE, ...(more ? [more] : [])].join('\n'))
    return null
  }
  if (common.version) {
    io.out(`${BUILDER.name} ${BUILDER.version}`)
    return null
  }
  if (parsed.positionals.length > maxPositionals)
    throw new JevError('USAGE', `unexpected argument ${JSON.stringify(parsed.positionals[maxPositionals])}\n${usage}`)
  return parsed
}

/** Runs a command; a typed error becomes one line plus a hint and its documented exit status. */
export async function runCli(
  main: () => Promise<number | void>,
  io: Io = stdio,
  debug = process.argv.includes('--debug'),
): Promise<number> {
  try {
    return (await main()) ?? 0
  } catch (e) {
    if (isJevError(e)) {
      io.err(`error[${e.code}]: ${e.message}`)
      io.err(`hint: ${ERROR_CODES[e.code].hint}`)
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
export async function runMain(main: () => Promise<number | void>): Promise<void> {
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

/** True when the module is the script node was started with (not imported by a test). */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === moduleUrl
}
