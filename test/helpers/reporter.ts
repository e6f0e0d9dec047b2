/**
 * npm test's reporter (`--test-reporter`): what a person reads after a run. Each failure in full as it comes (the
 * names leading to it, where the test is, the error with its stack and diff, its diagnostics); at the end what each
 * failing test file wrote to stdout and stderr, a list of the failures, one line per skipped or todo test with its
 * reason, and the closing lines of node's spec reporter (`ℹ tests N` …) with `N passed, N failed, N skipped` after
 * them. A passing test is only counted: its line, its diagnostics and its file's output are dropped.
 */
import { isAbsolute, relative } from 'node:path'
import type { TestEvent } from 'node:test/reporters'
import { inspect } from 'node:util'
import { FULL } from './depth.ts'

/** The counters node's runner sends as its own closing diagnostics, in the order the spec reporter prints them. */
const COUNTERS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo', 'duration_ms'] as const
const COUNTER_LINE = new RegExp(`^(${COUNTERS.join('|')}) (\\S+)$`)

type Data<T extends TestEvent['type']> = Extract<TestEvent, { type: T }>['data']
type Failure = Data<'test:fail'>

/** A file as a person finds it: relative to the folder the run started in when it is inside it. */
function where(file: string | undefined): string {
  if (!file) return '(no file)'
  const rel = relative(process.cwd(), file)
  return rel.startsWith('..') || isAbsolute(rel) ? file : rel
}
const indented = (text: string, by: string): string =>
  text
    .split(/\r?\n/)
    .map((l) => (l ? by + l : l))
    .join('\n')

/** The error as node's spec reporter shows it: a test failure's cause (the assertion, with its diff and stack), inspected. */
function formatError(error: unknown): string {
  const e = error as { code?: string; cause?: unknown; exitCode?: number | null; signal?: string | null } | undefined
  // a test file's process that failed outside any test: the runner's error only says 'test failed'
  if (e?.code === 'ERR_TEST_FAILURE' && e.cause === 'test failed' && (e.exitCode != null || e.signal != null))
    return e.signal ? `the file's process was killed by ${e.signal}` : `the file's process exited with code ${e.exitCode}`
  const shown = e?.code === 'ERR_TEST_FAILURE' ? e.cause : error
  try {
    return inspect(shown, { breakLength: Number.POSITIVE_INFINITY })
  } catch {
    return inspect(shown, { breakLength: Number.POSITIVE_INFINITY, customInspect: false })
  }
}

/** A test file that failed as a whole is reported as a test named by its path. */
const isFileItself = (f: Failure): boolean => f.nesting === 0 && f.name === f.file

/** A failure's title (the suites and tests leading to it) and where it is. */
function titleOf(f: Failure, path: readonly string[]): { title: string; at: string } {
  if (isFileItself(f)) return { title: `test file ${where(f.file)}`, at: where(f.file) }
  return { title: [...path, f.name].join(' › '), at: `${where(f.file)}:${f.line}:${f.column}` }
}

/** One failure in full: its title, where it is, its error. */
function formatFailure(f: Failure, path: readonly string[]): string {
  const { title, at } = titleOf(f, path)
  return `✖ ${title}\n${isFileItself(f) ? '' : `  test at ${at}\n`}${indented(formatError(f.details.error), '  ')}\n`
}

/** A skipped or todo test on one line, with its reason and file. */
function formatAside(kind: 'skipped' | 'todo', d: Data<'test:pass'>, path: readonly string[]): string {
  const reason = d[kind === 'skipped' ? 'skip' : 'todo']
  const label = d.details.type === 'suite' ? `${kind} suite` : kind
  return `${label}: ${[...path, d.name].join(' › ')}${typeof reason === 'string' && reason ? ` — ${reason}` : ''} (${where(d.file)})`
}

// biome-ignore lint/style/noDefaultExport: node's runner takes a reporter module's default export
export default async function* reporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  // The runner reports one test file's tests after another's, each test's start just before its result (a suite's
  // before its tests'), and a test's diagnostics right after it, though a suite and its tests may be in two files.
  /** the names of the suites and tests that lead to the one being reported, by nesting */
  const names: string[] = []
  /** the test reported last, which the diagnostics that follow belong to */
  let last: { nesting: number; failed: boolean } | undefined
  /** per test file (as the runner started it), what its process wrote to stdout and stderr */
  const output = new Map<string, string[]>()
  const failingFiles = new Set<string>()
  const failures: string[] = []
  const asides: string[] = []
  const closing: string[] = []
  const counters = new Map<string, string>()
  const pathOf = (nesting: number) => names.slice(0, nesting)
  // the parts of the report are set apart by a blank line
  let started = false
  const part = (text: string): string => {
    const spaced = started ? `\n${text}` : text
    started = true
    return spaced
  }

  for await (const { type, data } of source) {
    switch (type) {
      case 'test:start':
        names.length = data.nesting
        names.push(data.name)
        break
      case 'test:pass':
        last = { nesting: data.nesting, failed: false }
        if (data.skip !== undefined) asides.push(formatAside('skipped', data, pathOf(data.nesting)))
        else if (data.todo !== undefined) asides.push(formatAside('todo', data, pathOf(data.nesting)))
        break
      case 'test:fail': {
        // a todo test may fail without failing the run; a suite fails for its failing tests, each shown already
        const counts = data.todo === undefined && (data.details.error as { failureType?: string }).failureType !== 'subtestsFailed'
        last = { nesting: data.nesting, failed: counts }
        if (data.todo !== undefined) asides.push(formatAside('todo', data, pathOf(data.nesting)))
        if (!counts) break
        const path = pathOf(data.nesting)
        const { title, at } = titleOf(data, path)
        failures.push(isFileItself(data) ? `✖ ${title}` : `✖ ${title} (${at})`)
        yield part(formatFailure(data, path))
        break
      }
      case 'test:diagnostic': {
        if (data.file === undefined) {
          // the runner's own: its counters, or a note on the whole run (such as activity after a test ended)
          const m = COUNTER_LINE.exec(data.message)
          if (m && data.nesting === 0) counters.set(m[1]!, m[2]!)
          closing.push(`ℹ ${data.message}`)
          break
        }
        if (last?.failed && last.nesting === data.nesting) yield `${indented(`ℹ ${data.message}`, '  ')}\n`
        break
      }
      case 'test:stdout':
      case 'test:stderr': {
        const chunks = output.get(data.file) ?? []
        chunks.push(data.message)
        output.set(data.file, chunks)
        break
      }
      case 'test:complete':
        // the test file itself, run in a process of its own: whether anything in it failed
        if (data.nesting === 0 && data.name === data.file && !data.details.passed && data.file) failingFiles.add(data.file)
        break
    }
  }

  for (const file of failingFiles) {
    const text = (output.get(file) ?? []).join('')
    if (text) yield part(`── what ${where(file)} wrote to stdout and stderr ──\n${text.endsWith('\n') ? text : `${text}\n`}`)
  }
  if (failures.length > 0) yield part(`failing tests:\n${failures.join('\n')}\n`)
  if (asides.length > 0) yield part(`${asides.join('\n')}\n`)
  if (!FULL) yield part('the tests that repeat one check ran a part of their cases; JEV_TEST_FULL=1 runs them all\n')
  yield part(`${closing.join('\n')}\n`)
  if (COUNTERS.every((c) => counters.has(c))) {
    const n = (c: string) => Number(counters.get(c))
    // a cancelled test (its file timed out or crashed) did not pass: a person counts it as failed
    yield `${n('pass')} passed, ${n('fail') + n('cancelled')} failed, ${n('skipped')} skipped\n`
  }
}
