/** defineCommand: help, USAGE errors with the synopsis, the npm `--` slip; and the errors of the README walk-through. */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildCommand, buildDatasetCli } from '../../../src/cli/build-dataset.ts'
import { defineCommand } from '../../../src/cli/common/command.ts'
import { diffCommand } from '../../../src/cli/diff-dataset.ts'
import { runCli } from '../../../src/cli/run.ts'
import { serveHubCli } from '../../../src/cli/serve-hub.ts'
import { isJevError } from '../../../src/errors.ts'
import { collectIo } from '../../helpers/cli.ts'

const demo = defineCommand({
  name: 'demo',
  args: { synopsis: '[DIR]', max: 1 },
  about: ['Does nothing.'],
  options: {
    mirror: { type: 'string', arg: 'DIR', help: 'a folder' },
    out: { type: 'string', arg: 'DIR', default: 'out', help: 'where' },
    offline: { type: 'boolean', default: false, help: 'no network' },
  },
})

test('values are typed from the declaration, defaults applied; --help is generated from it', () => {
  const c = collectIo()
  const p = demo.parse(['--mirror', 'm', 'x'], c.io, {})!
  const out: string = p.values.out // a string: it has a default
  const mirror: string | undefined = p.values.mirror
  assert.deepEqual([out, mirror, p.values.offline, p.positionals], ['out', 'm', false, ['x']])
  assert.equal(demo.parse(['-h'], c.io, {}), null)
  assert.equal(
    c.out.join('\n'),
    [
      'usage: npm run demo -- [DIR] [--mirror DIR] [--out DIR] [--offline] [--debug]',
      '  Does nothing.',
      '  --mirror DIR     a folder',
      '  --out DIR        where (default out)',
      '  --offline        no network',
      '  -h, --help       print this text',
      "  --version        print the builder's name and version",
      '  --debug          print the stack trace of an error',
    ].join('\n'),
  )
})

test('--help lines up every option text in one column, long labels too; the usage names a flag once', () => {
  const help = buildCommand.help().split('\n')
  const columns = Object.entries(buildCommand.spec.options).map(([n, o]) => {
    const l = help.find((x) => x.startsWith(`  --${n} `))
    assert.ok(l, `--${n} in\n${help.join('\n')}`)
    return l.indexOf(o.help)
  })
  assert.ok(help.some((l) => l.startsWith('  --max-retry-after S ')))
  assert.equal(new Set(columns).size, 1, help.join('\n'))
  assert.equal(diffCommand.usage().split('--rev REV').length - 1, 1, diffCommand.usage())
})

test('a positional too many under npm, where npm took the flag before it: says so and shows the command with --', () => {
  const c = collectIo()
  const e = (() => {
    try {
      demo.parse(['a', '../shared/hub-mirror'], c.io, { npm_lifecycle_event: 'demo', npm_config_mirror: 'true' })
    } catch (x) {
      return x
    }
  })()
  assert.ok(isJevError(e) && e.code === 'USAGE')
  assert.equal(e.message, 'unexpected argument "../shared/hub-mirror": npm took --mirror for itself')
  assert.equal(e.context.hint, 'npm passes on only what follows --: npm run demo -- --mirror ../shared/hub-mirror')
  assert.match(String(e.context.usage), /^usage: npm run demo -- /)
})

test('several flags npm took (npm run demo --mirror m --out o): the hint shows each with its placeholder, not a guessed pairing', () => {
  const c = collectIo()
  const e = (() => {
    try {
      demo.parse(['m', 'o'], c.io, { npm_lifecycle_event: 'demo', npm_config_mirror: 'true', npm_config_out: 'true' })
    } catch (x) {
      return x
    }
  })()
  assert.ok(isJevError(e) && e.code === 'USAGE')
  assert.equal(e.message, 'unexpected argument "o": npm took --mirror --out for itself')
  assert.equal(e.context.hint, 'npm passes on only what follows --: npm run demo -- --mirror DIR --out DIR')
})

test('a flag npm took without a positional after it (npm run demo --offline): a warning, and the run goes on', () => {
  const c = collectIo()
  const p = demo.parse([], c.io, { npm_lifecycle_event: 'demo', npm_config_offline: 'true' })
  assert.equal(p?.values.offline, false)
  assert.deepEqual(c.err, [
    'warning: npm took --offline for itself, so demo ran without; npm passes on only what follows --: npm run demo -- --offline',
  ])
  const given = collectIo()
  demo.parse(['--offline'], given.io, { npm_lifecycle_event: 'demo', npm_config_offline: 'true' })
  assert.deepEqual(given.err, [], 'no warning when the command got the flag too')
})

/** The stderr lines of a failing in-process run. */
async function fails(run: (io: ReturnType<typeof collectIo>['io']) => Promise<number>) {
  const c = collectIo()
  const status = await runCli(() => run(c.io), c.io, false)
  return { status, err: c.err }
}

test('USAGE errors show the usage before the hint: serve-hub --port 99999, HF_ENDPOINT=ftp://x; --host 0.0.0.0 says what to give instead', async () => {
  const cases = [
    ['serve-hub', () => fails((io) => serveHubCli(['--port', '99999'], {}, io, Promise.resolve()))],
    ['build-dataset', () => fails((io) => buildDatasetCli(['--out', join(tmpdir(), 'jev-never', 'out')], { HF_ENDPOINT: 'ftp://x' }, io))],
  ] as const
  for (const [name, run] of cases) {
    const r = await run()
    assert.equal(r.status, 2, r.err.join('\n'))
    assert.match(r.err[0]!, /^error\[USAGE\]: /)
    assert.match(r.err[1]!, new RegExp(`^usage: npm run ${name} -- `), r.err.join('\n'))
    assert.equal(r.err.at(-1), 'hint: see --help')
  }
  assert.equal(existsSync(join(tmpdir(), 'jev-never')), false, 'no folder made for a build that never started')
  // a refusal with a reason of its own says what to do instead of pointing at --help
  const host = await fails((io) => serveHubCli(['--host', '0.0.0.0'], {}, io, Promise.resolve()))
  assert.equal(host.status, 2)
  assert.match(host.err[0]!, /^error\[USAGE\]: refusing to listen on 0\.0\.0\.0/)
  assert.equal(host.err.at(-1), 'hint: leave --host out (127.0.0.1), or give ::1 or localhost')
})

test('a --mirror that is not there: IO naming it, for build-dataset and serve-hub (which used to start silently)', async () => {
  const b = await fails((io) => buildDatasetCli(['--mirror', '/nonexistent', '--out', join(tmpdir(), 'jev-never', 'out')], {}, io))
  const s = await fails((io) => serveHubCli(['--mirror', '/nonexistent'], {}, io, Promise.resolve()))
  for (const r of [b, s]) {
    assert.equal(r.status, 7)
    assert.deepEqual(r.err, ['error[IO]: --mirror /nonexistent: no such folder', 'hint: check the path given to --mirror'])
  }
})

test('serve-hub on a port in use: IO with a hint about the port, not about paths', async () => {
  const busy = createServer()
  const port = await new Promise<number>((ok) => busy.listen(0, '127.0.0.1', () => ok((busy.address() as { port: number }).port)))
  try {
    const r = await fails((io) => serveHubCli(['--port', String(port)], {}, io, Promise.resolve()))
    assert.equal(r.status, 7)
    assert.deepEqual(r.err, [
      `error[IO]: cannot listen on port ${port}: it is in use`,
      'hint: stop what listens there, or choose another --port (--port 0 takes any free one)',
    ])
  } finally {
    busy.close()
  }
})
