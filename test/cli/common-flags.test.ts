/** -h/--help, --version and --debug on every command, --quiet where a command prints progress lines. */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildCommand, buildDatasetCli } from '../../src/cli/build-dataset.ts'
import { checkCommand } from '../../src/cli/check-dataset.ts'
import { COMMANDS as ALL_COMMANDS } from '../../src/cli/commands.ts'
import type { Command, Options } from '../../src/cli/common/command.ts'
import { compareBuildsCommand } from '../../src/cli/compare-builds.ts'
import { compareResultsCommand } from '../../src/cli/compare-results.ts'
import { diffCommand } from '../../src/cli/diff-dataset.ts'
import { dispatch } from '../../src/cli/dispatch.ts'
import { evalCommand } from '../../src/cli/eval-model.ts'
import { judgeCommand } from '../../src/cli/judge.ts'
import { publishCommand } from '../../src/cli/publish-dataset.ts'
import { recipeSchemaCommand } from '../../src/cli/recipe-schema.ts'
import { runCli, scrub } from '../../src/cli/run.ts'
import { screenCommand } from '../../src/cli/screen.ts'
import { serveCommand } from '../../src/cli/serve-hub.ts'
import { verifyCommand } from '../../src/cli/verify-dataset.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE, ROOT, type RunResult } from '../helpers/cli.ts'
import { startHubServer } from '../helpers/hub-server.ts'

const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }
const COMMANDS = Object.keys(ALL_COMMANDS).sort()
/** The commands that fetch sources, and so print hub: progress lines. */
const QUIET = ['build-dataset', 'check-dataset', 'eval-model', 'publish-dataset', 'screen', 'verify-dataset']
const jev = (...args: string[]) => spawnSync(process.execPath, ['dist/cli/main.js', ...args], { cwd: ROOT, encoding: 'utf8' })
/** The one command whose -h also goes through the bin; the others' run in-process as the bin runs them. */
const THROUGH_BIN = 'build-dataset'

/** `jev ...args` in this process: main.ts's dispatch over the same command table, under runCli as runMain runs it; its output as the bin prints it. */
async function jevInProcess(...args: string[]): Promise<RunResult> {
  const c = collectIo()
  const run = async (command: string, rest: string[]) => (await ALL_COMMANDS[command]!())(rest, process.env, c.io)
  const status = await runCli(() => dispatch(args, c.io, COMMANDS, run), c.io, args.includes('--debug'))
  const text = (lines: string[]) => lines.map((l) => `${scrub(l)}\n`).join('')
  return { status, stdout: text(c.out), stderr: text(c.err) }
}

/** Each command's declaration, to ask it for --help and --version in-process (the same code the bin runs). */
const DECLARED: Record<string, Pick<Command<Options>, 'parse'>> = {
  'build-dataset': buildCommand,
  'check-dataset': checkCommand,
  'compare-builds': compareBuildsCommand,
  'compare-results': compareResultsCommand,
  'diff-dataset': diffCommand,
  'eval-model': evalCommand,
  judge: judgeCommand,
  'publish-dataset': publishCommand,
  'recipe-schema': recipeSchemaCommand,
  screen: screenCommand,
  'serve-hub': serveCommand,
  'verify-dataset': verifyCommand,
}

/** What parse prints for one flag, in-process; it answers -h/--help/--version itself and gives null. */
function inProcess(command: string, flag: string): string {
  const c = collectIo()
  assert.equal(DECLARED[command]!.parse([flag], c.io), null, `${command} ${flag} is answered by parse`)
  return `${c.out.join('\n')}\n`
}

test('every command: -h (as the bin runs it, one command through dist/cli/main.js) and --help print its usage with --version and --debug (and --quiet where it applies); --version the package', async () => {
  assert.ok(COMMANDS.includes('diff-dataset') && COMMANDS.length >= 7, COMMANDS.join(', '))
  assert.deepEqual(Object.keys(DECLARED).sort(), COMMANDS, 'every command is declared here')
  for (const command of COMMANDS) {
    // -h as users run it: one command in a real process through the bin, the others through the bin's dispatch in-process;
    // --help in-process must print the same
    const r = command === THROUGH_BIN ? jev(command, '-h') : await jevInProcess(command, '-h')
    if (command === THROUGH_BIN)
      assert.deepEqual(await jevInProcess(command, '-h'), { status: r.status, stdout: r.stdout, stderr: r.stderr }, 'in-process as the bin')
    assert.equal(r.status, 0, `${command} -h: ${r.stderr}`)
    assert.equal(inProcess(command, '--help'), r.stdout, `${command}: --help is -h`)
    assert.match(r.stdout, new RegExp(`^usage: npm run ${command} -- `), command)
    for (const line of [
      /^ {2}-h, --help +print this text$/m,
      /^ {2}--version +print the builder's name and version$/m,
      /^ {2}--debug +print the stack trace of an error$/m,
    ])
      assert.match(r.stdout, line, `${command} -h`)
    assert.equal(/^ {2}--quiet /m.test(r.stdout), QUIET.includes(command), `${command}: --quiet documented exactly where it exists`)
    assert.equal(inProcess(command, '--version'), `${pkg.name} ${pkg.version}\n`, command)
  }
  // --version through the bin, for a command and for the bin itself
  const v = jev('build-dataset', '--version')
  assert.equal(v.status, 0, v.stderr)
  assert.equal(v.stdout, `${pkg.name} ${pkg.version}\n`)
  assert.equal(jev('--version').stdout, `${pkg.name} ${pkg.version}\n`)
  const help = jev('-h')
  assert.equal(help.status, 0)
  assert.match(help.stdout, new RegExp(`COMMAND: ${COMMANDS.join(', ')}`))
})

test('--quiet drops the hub: progress lines of a build, and keeps its summary', async () => {
  const server = await startHubServer({ root: FIXTURE_HUB })
  const tmp = await mkdtemp(join(tmpdir(), 'jev-quiet-'))
  try {
    const build = async (name: string, ...flags: string[]) => {
      const c = collectIo()
      const args = ['--recipe', FIXTURE_RECIPE, '--out', join(tmp, name, 'out'), '--cache-dir', join(tmp, name, 'cache'), ...flags]
      const status = await runCli(() => buildDatasetCli(args, { HF_ENDPOINT: server.url }, c.io), c.io, false)
      assert.equal(status, 0, c.text())
      return c
    }
    const loud = await build('loud')
    assert.ok(
      loud.err.some((l) => l.startsWith('hub: ')),
      'without --quiet a cold build reports its downloads',
    )
    const quiet = await build('quiet', '--quiet')
    assert.deepEqual(
      quiet.err.filter((l) => l.startsWith('hub: ')),
      [],
    )
    assert.deepEqual(
      quiet.out,
      loud.out.map((l) => l.replace(join(tmp, 'loud'), join(tmp, 'quiet'))),
    )
  } finally {
    await server.close()
    await rm(tmp, { recursive: true, force: true })
  }
})
