/** The top level of jev (src/cli/dispatch.ts): in-process with a list of commands, and through dist/cli/main.js as users run it. */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { COMMANDS as ALL_COMMANDS } from '../../src/cli/commands.ts'
import { dispatch, topUsage } from '../../src/cli/dispatch.ts'
import { collectIo, ROOT } from '../helpers/cli.ts'

const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }
const COMMANDS = Object.keys(ALL_COMMANDS).sort()
const jev = (...args: string[]) => spawnSync(process.execPath, ['dist/cli/main.js', ...args], { cwd: ROOT, encoding: 'utf8' })

async function top(argv: string[], commands: readonly string[] = ['alpha', 'beta']) {
  const c = collectIo()
  const runs: [string, string[]][] = []
  const status = await dispatch(argv, c.io, commands, async (command, args) => {
    runs.push([command, args])
    return 5
  })
  return { status, runs, ...c }
}

test('dispatch: a command named first runs with the arguments after its name, and its status is the exit status', async () => {
  const r = await top(['beta', '--x', 'y'])
  assert.equal(r.status, 5)
  assert.deepEqual(r.runs, [['beta', ['--x', 'y']]])
  assert.deepEqual(r.all, [])
})

test('dispatch: no command prints the command list with the error, exit 2; the list is the commands given', async () => {
  const r = await top([])
  assert.equal(r.status, 2)
  assert.deepEqual(r.out, [])
  assert.deepEqual(r.err, [
    'error[USAGE]: no command given',
    ...topUsage(['alpha', 'beta']).split('\n'),
    'hint: name one of the commands above; jev COMMAND -h prints its options',
  ])
  assert.match(r.err.join('\n'), /^ {2}COMMAND: alpha, beta$/m)
  assert.deepEqual(r.runs, [])
})

test('dispatch: a mistyped command: "did you mean", else the list; a flag before the command says where it goes', async () => {
  const near = await top(['alpah'])
  assert.equal(near.status, 2)
  assert.deepEqual(near.err, ['error[USAGE]: unknown command "alpah"', 'hint: did you mean alpha?'])
  const far = await top(['gamma-ray'])
  assert.deepEqual(far.err, ['error[USAGE]: unknown command "gamma-ray"', 'hint: one of alpha, beta'])
  const order = await top(['--json', 'beta'])
  assert.equal(order.status, 2)
  assert.equal(order.err[0], 'error[USAGE]: beta comes after --json')
  assert.equal(order.err[1], 'hint: the command comes first: jev beta --json')
  const flag = await top(['--verison'])
  assert.deepEqual(flag.err, ['error[USAGE]: unknown option --verison', 'hint: did you mean --version?'])
  assert.deepEqual(
    [near, far, order, flag].flatMap((r) => r.runs),
    [],
  )
})

test('dispatch: --help and --version as text, and with --json as one JSON document, exit 0', async () => {
  assert.deepEqual((await top(['--version'])).out, [`${pkg.name} ${pkg.version}`])
  assert.deepEqual((await top(['-h'])).out, topUsage(['alpha', 'beta']).split('\n'))
  const v = await top(['--version', '--json'])
  assert.equal(v.status, 0)
  assert.deepEqual(JSON.parse(v.out.join('\n')), { name: pkg.name, version: pkg.version })
  const h = await top(['--help', '--json'])
  assert.equal(h.status, 0)
  assert.deepEqual(JSON.parse(h.out.join('\n')), {
    name: pkg.name,
    version: pkg.version,
    usage: 'jev COMMAND [options]',
    commands: ['alpha', 'beta'],
  })
  assert.deepEqual(h.err, [])
})

test('dist/cli/main.js: `jev` lists the commands (exit 2); `jev --json` is a JSON error with them, not "unknown command"', () => {
  const none = jev()
  assert.equal(none.status, 2)
  assert.equal(none.stdout, '')
  assert.equal(none.stderr.split('\n')[0], 'error[USAGE]: no command given')
  assert.ok(none.stderr.includes(`  COMMAND: ${COMMANDS.join(', ')}\n`), none.stderr)
  assert.doesNotMatch(none.stderr, /unknown command/)
  const json = jev('--json')
  assert.equal(json.status, 2)
  assert.deepEqual(JSON.parse(json.stdout), {
    error: { code: 'USAGE', message: 'no command given', hint: 'name one of the commands above; jev COMMAND -h prints its options' },
    commands: COMMANDS,
  })
  assert.doesNotMatch(json.stderr, /unknown command/)
})

test('dist/cli/main.js: --help --json and --version --json print JSON, at the top and for a command', () => {
  for (const args of [
    ['--version', '--json'],
    ['build-dataset', '--version', '--json'],
  ]) {
    const r = jev(...args)
    assert.equal(r.status, 0, r.stderr)
    assert.deepEqual(JSON.parse(r.stdout), { name: pkg.name, version: pkg.version }, args.join(' '))
  }
  const h = jev('--help', '--json')
  assert.equal(h.status, 0, h.stderr)
  assert.deepEqual(JSON.parse(h.stdout).commands, COMMANDS)
  const c = jev('build-dataset', '--help', '--json')
  assert.equal(c.status, 0, c.stderr)
  const doc = JSON.parse(c.stdout)
  assert.equal(doc.command, 'build-dataset')
  assert.match(doc.usage, /^usage: npm run build-dataset -- /)
  assert.deepEqual(
    doc.options.find((o: { name: string }) => o.name === 'out'),
    {
      name: 'out',
      type: 'string',
      arg: 'DIR',
      default: 'out',
      help: 'output folder; replaced whole, so only a new or empty one, or one a build wrote',
    },
  )
  assert.ok(doc.options.some((o: { name: string }) => o.name === 'help'))
  // a mistyped command name through the bin
  const typo = jev('biuld-dataset')
  assert.equal(typo.status, 2)
  assert.equal(typo.stderr, 'error[USAGE]: unknown command "biuld-dataset"\nhint: did you mean build-dataset?\n')
})
