/** Helpers for running the CLIs in-process (with a collecting Io) and as real subprocesses. */
import { spawn, spawnSync } from 'node:child_process'
import { isAbsolute, join, relative } from 'node:path'
import { type Cli, COMMANDS } from '../../src/cli/commands.ts'
import { type Io, runCli, scrub } from '../../src/cli/run.ts'
import { PACKAGE_ROOT } from '../../src/version.ts'

/** The project's folder, whether the tests run from test/ or compiled in .test-build/ */
export const ROOT = PACKAGE_ROOT
export const FIXTURE_HUB = join(ROOT, 'test/fixtures/hub')
export const FIXTURE_RECIPE = join(ROOT, 'test/fixtures/recipe.json')

/** Whether these tests run compiled (`npm test`: JavaScript in .test-build/) or from source through tsx. */
export const COMPILED = import.meta.url.endsWith('.js')
/** What a child node needs before one of the project's TypeScript files: nothing when compiled, else tsx. */
export const TS_LOADER: readonly string[] = COMPILED ? [] : ['--import', import.meta.resolve('tsx')]

/** One of the project's own files (`src/…`, `test/…`, `scripts/…`, relative to ROOT or absolute) as these tests run it: its compiled twin, or the source. */
export function ownFile(path: string): string {
  const abs = isAbsolute(path) ? path : join(ROOT, path)
  return COMPILED ? join(ROOT, '.test-build', relative(ROOT, abs)).replace(/\.ts$/, '.js') : abs
}

export interface Collected {
  io: Io
  out: string[]
  err: string[]
  /** stdout and stderr lines together, in the order they were written */
  all: string[]
  text(): string
}

/** An Io that records every line (multi-line writes are split into lines). */
export function collectIo(): Collected {
  const out: string[] = []
  const err: string[] = []
  const all: string[] = []
  const push = (into: string[]) => (line: string) => {
    const lines = line.split('\n')
    into.push(...lines)
    all.push(...lines)
  }
  return { io: { out: push(out), err: push(err) }, out, err, all, text: () => all.join('\n') }
}

/** A V8 stack frame line such as `    at fn (/x/y.ts:1:2)` (recipe issue lines `  at $.seed: …` are not). */
export const STACK_FRAME = /^\s+at .*(\.[cm]?[jt]s|node:[\w/]+):\d+:\d+\)?$/

export interface RunResult {
  status: number | null
  stdout: string
  stderr: string
}

// The compiled CLI, as users run it (`npm test` compiles first). Absolute, so a
// child started in another folder still finds it.
const JEV = join(ROOT, 'dist/cli/main.js')
/** V8 flags the test process runs under (npm test's `--no-opt`), passed on so the CLIs it starts run as it does */
export const NODE_FLAGS = process.execArgv.filter((a) => a === '--no-opt')
const cliArgs = (script: string, args: string[]) => [...NODE_FLAGS, JEV, script.replace(/\.ts$/, ''), ...args]

/** A child still running after this is killed: a guard against a hang, wide enough for a whole eval on a loaded machine. */
const CHILD_GUARD_MS = 240_000

/** Runs `node dist/cli/main.js <command> ...args` (script: `build-dataset.ts` or `build-dataset`) from the project root, synchronously. */
export function runNodeSync(script: string, args: string[], env: NodeJS.ProcessEnv = {}): RunResult {
  const r = spawnSync(process.execPath, cliArgs(script, args), {
    cwd: ROOT,
    env: childEnv(env),
    encoding: 'utf8',
    timeout: CHILD_GUARD_MS,
  })
  if (r.error) throw r.error
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** Same, without blocking the event loop (needed when this process serves the loopback Hub). */
export function runNode(script: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = ROOT): Promise<RunResult> {
  return new Promise((ok, ko) => {
    const child = spawn(process.execPath, cliArgs(script, args), { cwd, env: childEnv(env) })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => child.kill(), CHILD_GUARD_MS)
    child.on('error', ko)
    child.on('close', (status) => {
      clearTimeout(timer)
      ok({ status, stdout, stderr })
    })
  })
}

/**
 * `jev <command> ...args` in this process, as runNode would run it in a child but without starting one: the
 * command's function from the bin's own table (or `cli`), under runCli, given the environment a child gets; the
 * result's stdout and stderr are the text a pipe would carry, each line scrubbed of HF_TOKEN as the bin's stdio does.
 * A child ran in ROOT, so paths given should be absolute; --debug counts only when `args` hold it, as in a child.
 * Unlike a child: work still in flight after an error (a download, a decode) is not stopped by an exit, `homedir()`
 * is this process's HOME, and serve-hub, which runs until a signal, needs a `cli` that stops it.
 */
export async function runInProcess(command: string, args: string[], env: NodeJS.ProcessEnv = {}, cli?: Cli): Promise<RunResult> {
  const name = command.replace(/\.ts$/, '')
  if (!cli && !Object.hasOwn(COMMANDS, name)) throw new Error(`no command ${command}`)
  const run = cli ?? (await COMMANDS[name]!())
  const full = childEnv(env)
  const c = collectIo()
  const io: Io = { out: (l) => c.io.out(scrub(l, full)), err: (l) => c.io.err(scrub(l, full)) }
  const status = await runCli(() => run(args, full, io), io, args.includes('--debug'))
  const text = (lines: string[]) => lines.map((l) => `${l}\n`).join('')
  return { status, stdout: text(c.out), stderr: text(c.err) }
}

/** The environment a child gets: this process's minus anything that would point it at a real Hub or cache, then `env`. */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const k of Object.keys(env)) if (k.startsWith('HF_') || k === 'XDG_CACHE_HOME' || k.startsWith('NODE_TEST')) delete env[k]
  // nor at the user's cache of prepared sources: a test that wants one names its own folder
  env.JEV_PREPARED_CACHE = '0'
  return { ...env, ...extra }
}
