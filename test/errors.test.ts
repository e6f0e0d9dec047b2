/**
 * One error type with a stable code per kind: every code the source can raise
 * or print is in README.md's troubleshooting table with its exit status; the
 * CLIs print `error[CODE]: message` and a hint and exit with that status; and
 * HF_TOKEN appears in no output and no file, whatever the error.
 */
import assert from 'node:assert/strict'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { buildToDir } from '../src/build-io.ts'
import { ERROR_CODES, type ErrorCode } from '../src/errors.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, ROOT, type RunResult, runInProcess, runNode, STACK_FRAME } from './helpers/cli.ts'
import { depthNote, FULL } from './helpers/depth.ts'
import { rewriteRows } from './helpers/parquet.ts'

/** What runCli prints for an exception that is not a JevError (a bug): not in ERROR_CODES, but documented. */
const INTERNAL = { code: 'INTERNAL', exit: 1 }

/** `| \`CODE\` | exit | meaning | what to do |` rows of README.md's "Troubleshooting" section. */
async function troubleshootingTable(): Promise<Map<string, { exit: number; meaning: string; fix: string }>> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf('\n## Troubleshooting\n')
  assert.ok(start >= 0, 'README.md has a "## Troubleshooting" section')
  const end = readme.indexOf('\n## ', start + 1)
  const section = readme.slice(start, end < 0 ? undefined : end)
  const rows = new Map<string, { exit: number; meaning: string; fix: string }>()
  for (const line of section.split('\n')) {
    const m = /^\| `([A-Z_]+)` \| (\d+) \| (.+?) \| (.+?) \|$/.exec(line)
    if (!m) continue
    assert.ok(!rows.has(m[1]!), `${m[1]} is listed once`)
    rows.set(m[1]!, { exit: Number(m[2]), meaning: m[3]!.trim(), fix: m[4]!.trim() })
  }
  return rows
}

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, d.name)
    if (d.isDirectory()) yield* sourceFiles(p)
    else if (/\.(ts|mjs|js)$/.test(d.name)) yield p
  }
}

/**
 * Codes the source raises or prints: `new JevError('X'`, `new TransientError('X'`,
 * literals on a line that mentions ErrorCode, and printed `error[X]` literals.
 */
async function codesInSource(): Promise<{ raised: Map<string, string[]>; printed: Map<string, string[]> }> {
  const raised = new Map<string, string[]>()
  const printed = new Map<string, string[]>()
  const add = (into: Map<string, string[]>, code: string, where: string) => into.set(code, [...(into.get(code) ?? []), where])
  for (const dir of ['src']) {
    for await (const file of sourceFiles(join(ROOT, dir))) {
      const text = await readFile(file, 'utf8')
      const rel = relative(ROOT, file)
      for (const m of text.matchAll(/\b(?:JevError|TransientError)\(\s*'([A-Z][A-Z_]*)'/g)) add(raised, m[1]!, rel)
      for (const line of text.split('\n'))
        if (/\bErrorCode\b/.test(line) && !/^\s*(import|export type)\b/.test(line))
          for (const m of line.matchAll(/'([A-Z][A-Z_]+)'/g)) add(raised, m[1]!, rel)
      for (const m of text.matchAll(/error\[([A-Z][A-Z_]*)\]/g)) add(printed, m[1]!, rel)
    }
  }
  return { raised, printed }
}

describe('error codes and the README', () => {
  test('every code in ERROR_CODES is in the troubleshooting table with the same exit status, and the table lists nothing else', async () => {
    const table = await troubleshootingTable()
    for (const [code, { exit }] of Object.entries(ERROR_CODES)) {
      assert.ok(table.has(code), `README troubleshooting table lists ${code}`)
      assert.equal(table.get(code)!.exit, exit, `${code}: README says exit ${table.get(code)!.exit}, ERROR_CODES says ${exit}`)
      assert.ok(table.get(code)!.meaning.length > 5 && table.get(code)!.fix.length > 5, `${code} has a meaning and a fix`)
    }
    assert.equal(table.get(INTERNAL.code)?.exit, INTERNAL.exit, 'INTERNAL (an untyped exception) is documented with exit 1')
    assert.deepEqual(
      [...table.keys()].sort(),
      [...Object.keys(ERROR_CODES), INTERNAL.code].sort(),
      'no code in the table that the builder does not have',
    )
  })

  test('every code the source raises exists in ERROR_CODES, and every code it prints is in the README table', async () => {
    const { raised, printed } = await codesInSource()
    // the scan finds what it should, so an empty result cannot pass by accident
    for (const c of ['RECIPE', 'DATA', 'SCHEMA', 'QUOTA', 'LOCK', 'IO', 'CHECK', 'VERIFY', 'NETWORK', 'INTEGRITY', 'USAGE'])
      assert.ok(raised.has(c), `the scan finds ${c}`)
    // dist/cli/main.js no longer prints error[USAGE] itself (src/cli/dispatch.ts raises it)
    assert.ok(printed.has('INTERNAL'), 'the scan finds the printed error[INTERNAL]')
    const table = await troubleshootingTable()
    for (const [code, where] of raised) {
      assert.ok(code in ERROR_CODES, `${code} (in ${[...new Set(where)].join(', ')}) is not in ERROR_CODES`)
      assert.ok(table.has(code), `${code} (in ${[...new Set(where)].join(', ')}) is not in README's troubleshooting table`)
    }
    for (const [code, where] of printed)
      assert.ok(table.has(code), `error[${code}] (printed in ${[...new Set(where)].join(', ')}) is not in README's troubleshooting table`)
  })
})

describe('the CLIs: one error line, a hint, the documented exit status, and never HF_TOKEN', () => {
  const TOKEN = 'hf_RecognisableToken123'
  let tmp: string
  /** a folder whose name holds the token, so messages naming paths in it must scrub it */
  let tokenDir: string
  let goodOut: string
  let editedOut: string
  let dataHub: string
  let quotaRecipe: string
  let badRecipe: string

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'jev-errors-'))
    tokenDir = join(tmp, `dir-${TOKEN}`)
    // the repo's folder without its files: a file missing (a mirror without the repo, or without datasets/, says so instead)
    await mkdir(join(tokenDir, 'empty-mirror', 'datasets', 'sbintuitions', 'JCommonsenseQA'), { recursive: true })
    const json = JSON.parse(await readFile(FIXTURE_RECIPE, 'utf8'))
    // RECIPE: a negative seed, in a file whose path holds the token
    badRecipe = join(tokenDir, 'bad.json')
    await writeFile(badRecipe, JSON.stringify({ ...json, seed: -1 }))
    // QUOTA: arc_challenge asks for 50 test questions of the 40 rows there are (the quotas grow to match)
    const q = structuredClone(json)
    q.sources[2].test.count = 50
    q.quotas.test['4'] += 38
    quotaRecipe = join(tmp, 'quota.json')
    await writeFile(quotaRecipe, JSON.stringify(q))
    // DATA: an MMLU answer out of range
    dataHub = join(tmp, 'data-hub')
    await cp(FIXTURE_HUB, dataHub, { recursive: true })
    await rewriteRows(join(dataHub, 'datasets/cais/mmlu/all/test-00000-of-00001.parquet'), (rows) =>
      rows.map((r, i) => (i === 3 ? { ...r, answer: 7n } : r)),
    )
    // CHECK and VERIFY: a built folder with one record removed
    const recipe = await loadRecipe(FIXTURE_RECIPE)
    const lock = (await readLock(join(ROOT, 'test/fixtures/recipe.lock.json')))!
    goodOut = join(tmp, 'good-out')
    await buildToDir(recipe, createMirrorFetcher(FIXTURE_HUB), goodOut, { lock })
    editedOut = join(tmp, 'edited-out')
    await cp(goodOut, editedOut, { recursive: true })
    const lines = (await readFile(join(editedOut, 'test.jsonl'), 'utf8')).split('\n')
    await writeFile(join(editedOut, 'test.jsonl'), lines.slice(1).join('\n'))
  })
  after(() => rm(tmp, { recursive: true, force: true }))

  const lockArgs = () => ['--update-lock', '--lock', join(tmp, 'written.lock.json')]
  // hint: where the case has one of its own rather than its code's
  const cases: { name: string; code: ErrorCode; script: string; args: () => string[]; scrubbed?: boolean; hint?: string }[] = [
    {
      name: 'a bad recipe',
      code: 'RECIPE',
      script: 'build-dataset.ts',
      args: () => ['--recipe', badRecipe, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'o1')],
      scrubbed: true,
    },
    {
      name: 'a recipe file that is not there',
      code: 'IO',
      script: 'build-dataset.ts',
      args: () => ['--recipe', join(tokenDir, 'missing.json'), '--out', join(tmp, 'o2')],
      scrubbed: true,
    },
    {
      name: 'a file missing from the mirror',
      code: 'NOT_FOUND',
      script: 'build-dataset.ts',
      args: () => ['--recipe', FIXTURE_RECIPE, '--mirror', join(tokenDir, 'empty-mirror'), '--out', join(tmp, 'o3'), ...lockArgs()],
      scrubbed: true,
    },
    {
      name: 'a malformed upstream row',
      code: 'DATA',
      script: 'build-dataset.ts',
      args: () => ['--recipe', FIXTURE_RECIPE, '--mirror', dataHub, '--out', join(tmp, 'o4'), ...lockArgs()],
    },
    {
      name: 'too few eligible questions',
      code: 'QUOTA',
      script: 'build-dataset.ts',
      args: () => ['--recipe', quotaRecipe, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'o5'), ...lockArgs()],
    },
    {
      name: 'rows that differ from the lock',
      code: 'LOCK',
      script: 'build-dataset.ts',
      args: () => [
        '--recipe',
        FIXTURE_RECIPE,
        '--lock',
        join(ROOT, 'test/fixtures/recipe.lock.json'),
        '--mirror',
        join(tmp, 'data-hub-ok'),
        '--out',
        join(tmp, 'o6'),
      ],
    },
    { name: 'an edited build, checked', code: 'CHECK', script: 'check-dataset.ts', args: () => [editedOut, '--recipe', FIXTURE_RECIPE] },
    {
      name: 'an edited build, verified',
      code: 'VERIFY',
      script: 'verify-dataset.ts',
      args: () => [
        '--out',
        editedOut,
        '--recipe',
        FIXTURE_RECIPE,
        '--lock',
        join(ROOT, 'test/fixtures/recipe.lock.json'),
        '--mirror',
        FIXTURE_HUB,
      ],
    },
    {
      name: 'an unknown flag',
      code: 'USAGE',
      script: 'build-dataset.ts',
      args: () => ['--no-such-flag'],
      hint: 'build-dataset has no option --no-such-flag; the usage above lists them, -h says what each does',
    },
  ]

  /**
   * --debug on one path of each kind, since the stack is printed by runCli for every command alike:
   * before any work (RECIPE), while sources are read (DATA), another command (VERIFY), the argument parser (USAGE)
   */
  const DEBUGGED = new Set<ErrorCode>(['RECIPE', 'DATA', 'VERIFY', 'USAGE'])
  /**
   * What also runs as a real subprocess (every path under JEV_TEST_FULL=1): one path of each thing only a
   * process shows — stdio's scrubbing and the exit status a process ends with, after an error while sources
   * are read and with no stack since its argv has no --debug (NOT_FOUND); and --debug taken from argv, with
   * dist/cli/main.js's source maps, the stack scrubbed too (RECIPE, a path holding the token).
   */
  const AS_PROCESS = new Set(['NOT_FOUND', 'RECIPE --debug'])

  test('each error path in-process, with HF_TOKEN set, one of each kind also with --debug; as a real subprocess one plain and one --debug (every path under JEV_TEST_FULL=1)', async (t) => {
    // LOCK: rows other than the locked ones (one MMLU answer changed, still in range)
    const lockHub = join(tmp, 'data-hub-ok')
    await cp(FIXTURE_HUB, lockHub, { recursive: true })
    await rewriteRows(join(lockHub, 'datasets/cais/mmlu/all/test-00000-of-00001.parquet'), (rows) =>
      rows.map((r, i) => (i === 3 ? { ...r, answer: (BigInt(r.answer as bigint) + 1n) % 4n } : r)),
    )

    const table = await troubleshootingTable()
    const env = { HF_TOKEN: TOKEN }
    const paths = cases.flatMap((c) => (DEBUGGED.has(c.code) ? [false, true] : [false]).map((debug) => ({ c, debug })))
    const key = ({ c, debug }: { c: (typeof cases)[number]; debug: boolean }) => `${c.code}${debug ? ' --debug' : ''}`
    const processPaths = FULL ? paths : paths.filter((p) => AS_PROCESS.has(key(p)))
    assert.equal(processPaths.length, FULL ? paths.length : AS_PROCESS.size, 'every path named to run as a process is one')
    const argsOf = ({ c, debug }: (typeof paths)[number]) => [...c.args(), ...(debug ? ['--debug'] : [])]
    // the processes first, all at once; then in-process, so the two runs of a path never share its folders at once
    const processes = await Promise.all(processPaths.map(async (p) => ({ ...p, r: await runNode(p.c.script, argsOf(p), env) })))
    const inProcessRuns = await Promise.all(paths.map(async (p) => ({ ...p, r: await runInProcess(p.c.script, argsOf(p), env) })))
    t.diagnostic(`${paths.length} paths in-process; as a subprocess ${depthNote(processPaths.length, paths.length)}`)

    const check = ({ c, debug, r }: (typeof paths)[number] & { r: RunResult }, how: string) => {
      const what = `${c.name}${debug ? ' (--debug)' : ''}, ${how}`
      const all = `${r.stdout}\n${r.stderr}`
      assert.ok(!all.includes(TOKEN), `${what}: the token is in the output:\n${all}`)
      assert.equal(r.status, ERROR_CODES[c.code].exit, `${what}: exit status\n${r.stderr}`)
      assert.equal(r.status, table.get(c.code)!.exit, `${what}: the README's exit status`)
      const lines = r.stderr.split('\n')
      const errorLines = lines.filter((l) => l.startsWith('error['))
      assert.equal(errorLines.length, 1, `${what}: one error line\n${r.stderr}`)
      const at = lines.indexOf(errorLines[0]!)
      assert.ok(errorLines[0]!.startsWith(`error[${c.code}]: `), `${what}: ${errorLines[0]}`)
      // the message may go on over lines of its own (the recipe's issues, the usage text); then the hint
      const hint = lines.findIndex((l, i) => i > at && l.startsWith('hint: '))
      assert.equal(lines[hint], `hint: ${c.hint ?? ERROR_CODES[c.code].hint}`, `${what}: the hint\n${r.stderr}`)
      const frames = lines.filter((l) => STACK_FRAME.test(l))
      if (debug) assert.ok(frames.length > 0, `${what}: --debug shows the stack`)
      else assert.deepEqual(frames, [], `${what}: no stack without --debug`)
      if (c.scrubbed) assert.ok(all.includes('<HF_TOKEN>'), `${what}: a path holding the token was printed, scrubbed`)
      return lines.slice(at, hint + 1)
    }
    const inProcessLines = new Map(inProcessRuns.map((run) => [key(run), check(run, 'in-process')]))
    // a process prints what the command does in-process: the same error line, message and hint
    for (const run of processes)
      assert.deepEqual(check(run, 'as a subprocess'), inProcessLines.get(key(run)), `${key(run)}: the same error`)
  })

  test('a successful build with HF_TOKEN set: neither its output nor any file written holds the token', async () => {
    const out = join(tokenDir, 'out')
    const r = await runInProcess(
      'build-dataset',
      ['--recipe', FIXTURE_RECIPE, '--mirror', FIXTURE_HUB, '--out', out, '--update-lock', '--lock', join(tmp, 'ok.lock.json')],
      { HF_TOKEN: TOKEN },
    )
    assert.equal(r.status, 0, r.stderr)
    assert.ok(!`${r.stdout}${r.stderr}`.includes(TOKEN))
    assert.ok(r.stdout.includes('<HF_TOKEN>'), 'the "built <dir>/" line names a path holding the token, scrubbed')
  })

  test('no file anywhere under the test folder holds the token (outputs, locks, temp folders)', async (t) => {
    let n = 0
    for (const d of await readdir(tmp, { withFileTypes: true, recursive: true })) {
      if (!d.isFile()) continue
      const content = await readFile(join(d.parentPath, d.name))
      assert.ok(!content.includes(TOKEN), `${relative(tmp, join(d.parentPath, d.name))} holds the token`)
      n++
    }
    assert.ok(n > 20, `files were written and scanned (${n})`)
    t.diagnostic(`${n} files scanned`)
  })
})
