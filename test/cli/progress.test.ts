/**
 * Progress as a user sees it: `node dist/cli/main.js build-dataset` under a real pseudo-terminal
 * (util-linux `script`, in Debian's essential bsdutils) draws the stages and rows on stderr and
 * clears them before the summary; without a TTY, under CI, with --quiet or with
 * HF_HUB_DISABLE_PROGRESS_BARS nothing of it is written, and stdout never has any. In-process,
 * a terminal stand-in shows the wiring: download bars, lines printed above them, --json intact.
 */
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildDatasetCli } from '../../src/cli/build-dataset.ts'
import { checkDatasetCli } from '../../src/cli/check-dataset.ts'
import { publishDatasetCli } from '../../src/cli/publish-dataset.ts'
import { type Io, runCli } from '../../src/cli/run.ts'
import { verifyDatasetCli } from '../../src/cli/verify-dataset.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, ROOT } from '../helpers/cli.ts'
import { ALL_FILES } from '../helpers/hub-rig.ts'
import { startHubServer } from '../helpers/hub-server.ts'
import { buildFixtureOut, FIXTURE_LOCK, TOKEN } from '../helpers/publish.ts'

const ESC = '\x1b'
const ERASE = '\r\x1b[K'
const STAGE = 'loading and preparing sources (1 of 5: jcommonsenseqa)'
const PROGRESS_TEXT = /loading and preparing|selecting, borrowing|of \d+ rows|writing .*\/$/m
const scriptWorks = spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux') === true

let tmp: string
let runs = 0
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-progress-'))
})
after(async () => {
  await rm(tmp, { recursive: true, force: true })
})

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`

/** The environment of a user's shell: no Hub settings, no CI, nothing of the test runner's; no prepared cache, so every source is decoded and draws its rows. */
function userEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SHELL: '/bin/sh', TERM: 'xterm', JEV_PREPARED_CACHE: '0' }
  for (const k of Object.keys(env)) if (k.startsWith('HF_') || k === 'CI' || k.startsWith('NODE_TEST')) delete env[k]
  return { ...env, ...extra }
}

interface TtyRun {
  status: number | null
  /** all the terminal showed: stderr, and stdout unless it went to a file */
  screen: string
  /** stdout, when it was sent to a file */
  stdout: string
}

/** `jev build-dataset` on the fixture with stderr on a pseudo-terminal; stdout there too, or into a file. */
function buildOnTty(flags: string[], env: NodeJS.ProcessEnv = {}, stdoutToFile = false): Promise<TtyRun> {
  const out = join(tmp, `out-${++runs}`)
  const stdoutFile = join(tmp, `stdout-${runs}`)
  const argv = [
    process.execPath,
    join(ROOT, 'dist/cli/main.js'),
    'build-dataset',
    '--recipe',
    FIXTURE_RECIPE,
    '--mirror',
    FIXTURE_HUB,
    '--out',
    out,
    ...flags,
  ]
  const command = argv.map(quote).join(' ') + (stdoutToFile ? ` > ${quote(stdoutFile)}` : '')
  return new Promise((ok, ko) => {
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      cwd: ROOT,
      env: userEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let screen = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (screen += d))
    const timer = setTimeout(() => child.kill(), 60_000)
    child.on('error', ko)
    child.on('close', async (status) => {
      clearTimeout(timer)
      const stdout = stdoutToFile ? await readFile(stdoutFile, 'utf8') : ''
      // the terminal turns \n into \r\n; the erase sequences keep their \r
      ok({ status, screen: screen.replaceAll('\r\n', '\n'), stdout })
    })
  })
}

test('on a terminal: the stages and rows are drawn on stderr, erased, and the summary follows on a clean line', {
  skip: !scriptWorks && 'needs util-linux script',
}, async () => {
  const r = await buildOnTty([])
  assert.equal(r.status, 0, r.screen)
  assert.ok(r.screen.startsWith(STAGE), JSON.stringify(r.screen.slice(0, 200)))
  assert.match(r.screen, /jcommonsenseqa: 60 of 60 rows/)
  assert.match(r.screen, /selecting, borrowing distractors and reshaping/)
  assert.ok(r.screen.includes(ERASE))
  // everything after the last erase is the summary, from its first column: no bar is left on its line
  const rest = r.screen.slice(r.screen.lastIndexOf(ERASE) + ERASE.length)
  assert.match(rest, /^built .*\/\n\nsource +test +val\n/)
  assert.ok(!rest.includes(ESC), JSON.stringify(rest))
  assert.doesNotMatch(rest, PROGRESS_TEXT)
  assert.match(rest, /\ndataset hash [0-9a-f]{64}\n$/)
})

test('on a terminal with stdout redirected: stdout has the summary alone, no escape and no progress', {
  skip: !scriptWorks && 'needs util-linux script',
}, async () => {
  const r = await buildOnTty([], {}, true)
  assert.equal(r.status, 0, r.screen)
  assert.ok(r.screen.includes(STAGE), 'stderr, still a terminal, shows progress')
  assert.match(r.stdout, /^built .*\/\n/)
  assert.ok(!r.stdout.includes(ESC))
  assert.doesNotMatch(r.stdout, PROGRESS_TEXT)
  // nothing drawn is left on stderr's screen: it ends erased
  assert.ok(r.screen.endsWith(ERASE), JSON.stringify(r.screen.slice(-80)))
})

test('on a terminal with --json: stdout is the one JSON document, untouched by progress', {
  skip: !scriptWorks && 'needs util-linux script',
}, async () => {
  const r = await buildOnTty(['--json'], {}, true)
  assert.equal(r.status, 0, r.screen)
  assert.ok(r.screen.includes(STAGE))
  assert.ok(r.stdout.endsWith('}\n') && r.stdout.split('\n').length === 2, r.stdout)
  assert.ok(!r.stdout.includes(ESC))
  assert.match((JSON.parse(r.stdout) as { built: string }).built, /\/$/)
  // the text summary went to stderr, after the bars were erased
  const rest = r.screen.slice(r.screen.lastIndexOf(ERASE) + ERASE.length)
  assert.match(rest, /^built .*\/\n/)
})

for (const [name, flags, env] of [
  ['CI=true', [], { CI: 'true' }],
  ['--quiet', ['--quiet'], {}],
  ['HF_HUB_DISABLE_PROGRESS_BARS=1', [], { HF_HUB_DISABLE_PROGRESS_BARS: '1' }],
] as const) {
  test(`on a terminal under ${name}: no escape sequence and no progress text at all`, {
    skip: !scriptWorks && 'needs util-linux script',
  }, async () => {
    const r = await buildOnTty([...flags], env)
    assert.equal(r.status, 0, r.screen)
    assert.ok(!r.screen.includes(ESC), JSON.stringify(r.screen.slice(0, 200)))
    assert.doesNotMatch(r.screen, PROGRESS_TEXT)
    assert.match(r.screen, /^built .*\/\n/, 'the summary, first and alone')
  })
}

test('without a terminal: no escape sequence and no progress text on stderr or stdout', async () => {
  const out = join(tmp, 'no-tty')
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'dist/cli/main.js'), 'build-dataset', '--recipe', FIXTURE_RECIPE, '--mirror', FIXTURE_HUB, '--out', out],
    {
      cwd: ROOT,
      env: userEnv({}),
      encoding: 'utf8',
      timeout: 60_000,
    },
  )
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stderr, '')
  assert.ok(!r.stdout.includes(ESC))
  assert.doesNotMatch(r.stdout, PROGRESS_TEXT)
  assert.match(r.stdout, /^built .*\/\n/)
})

/** An Io whose stderr is a terminal stand-in: every write kept, in order, with stdout's lines. */
function terminalIo() {
  const writes: { to: 'out' | 'err' | 'tty'; text: string }[] = []
  const io: Io = {
    out: (l) => void writes.push({ to: 'out', text: l }),
    err: (l) => void writes.push({ to: 'err', text: l }),
    terminal: { isTTY: true, columns: 200, write: (t: string) => void writes.push({ to: 'tty', text: t }) },
  }
  return { io, writes }
}

test('in-process against the loopback Hub: download bars with the file size, hub lines above them, the summary after the last erase', async () => {
  const hub = await startHubServer({ root: FIXTURE_HUB })
  try {
    const env = { HF_ENDPOINT: hub.url, HF_HUB_CACHE: join(tmp, 'cache') }
    const { io, writes } = terminalIo()
    const status = await runCli(() => buildDatasetCli(['--recipe', FIXTURE_RECIPE, '--out', join(tmp, 'hub-out')], env, io), io)
    assert.equal(status, 0, JSON.stringify(writes.slice(-5)))
    const drawn = writes
      .filter((w) => w.to === 'tty')
      .map((w) => w.text)
      .join('')
    const size = (await readFile(join(FIXTURE_HUB, 'datasets/allenai/ai2_arc/ARC-Challenge/test-00000-of-00001.parquet'))).length
    assert.match(
      drawn,
      new RegExp(`allenai/ai2_arc ARC-Challenge/test-00000-of-00001\\.parquet: [\\d.]+ k?B / ${(size / 1024).toFixed(1)} kB`),
    )
    // each hub: line is printed with the bars off: an erase (or nothing yet drawn) just before it, a redraw after
    const hubLines = writes.flatMap((w, i) => (w.to === 'err' && w.text.startsWith('hub: downloading') ? [i] : []))
    assert.equal(hubLines.length, ALL_FILES.length, 'one per fixture file')
    for (const i of hubLines) {
      const before = writes.slice(0, i).filter((w) => w.to === 'tty')
      assert.ok(before.length === 0 || before.at(-1)!.text.startsWith(ERASE), `bars erased before ${writes[i]!.text}`)
      // downloads started together print their lines one after another; the bars come back after the last of them
      const next = writes.slice(i + 1).find((w) => !(w.to === 'err' && w.text.startsWith('hub: downloading')))
      assert.equal(next?.to, 'tty', `and drawn again after it: ${writes[i]!.text}`)
    }
    const firstOut = writes.findIndex((w) => w.to === 'out')
    assert.match(writes[firstOut]!.text, /^built /)
    assert.ok(writes.slice(0, firstOut).at(-1)!.text.startsWith(ERASE), 'the bars are erased before the summary')
    assert.ok(!writes.slice(firstOut).some((w) => w.to === 'tty'), 'and never drawn again')
  } finally {
    await hub.close()
  }
})

test('in-process verify on a terminal: the rebuild shows its stages, and the verdict is printed after the bars are gone', async () => {
  const out = join(tmp, 'verify-out')
  const { io: buildIo } = terminalIo()
  assert.equal(
    await runCli(() => buildDatasetCli(['--recipe', FIXTURE_RECIPE, '--mirror', FIXTURE_HUB, '--out', out], {}, buildIo), buildIo),
    0,
  )
  const { io, writes } = terminalIo()
  assert.equal(await runCli(() => verifyDatasetCli(['--recipe', FIXTURE_RECIPE, '--mirror', FIXTURE_HUB, '--out', out], {}, io), io), 0)
  const drawn = writes
    .filter((w) => w.to === 'tty')
    .map((w) => w.text)
    .join('')
  assert.ok(drawn.includes(STAGE))
  assert.ok(drawn.includes(`comparing with ${out}/`))
  assert.equal(writes.at(-1)!.to, 'out')
  assert.ok(writes.at(-2)!.text.startsWith(ERASE))
})

test('in-process check-dataset --upstream on a terminal: a stage per source read, the verdict after the bars', async () => {
  const out = join(tmp, 'check-out')
  await buildFixtureOut(out)
  const { io, writes } = terminalIo()
  const status = await runCli(
    () => checkDatasetCli([out, '--upstream', '--recipe', FIXTURE_RECIPE, '--lock', FIXTURE_LOCK, '--mirror', FIXTURE_HUB], {}, io),
    io,
  )
  assert.equal(status, 0, JSON.stringify(writes.slice(-3)))
  const drawn = writes
    .filter((w) => w.to === 'tty')
    .map((w) => w.text)
    .join('')
  assert.ok(drawn.includes('reading the upstream rows (source 1 of 5: jcommonsenseqa)'), drawn.slice(0, 300))
  assert.match(drawn, /boolq: 50 of 50 rows/)
  assert.match(writes.at(-1)!.text, /^ok: /)
  assert.ok(writes.at(-2)!.text.startsWith(ERASE))
})

test('in-process publish on a terminal: the rebuild and the upload are stages, step lines print above them, the URL after', async () => {
  const hub = await startHubServer({ root: FIXTURE_HUB })
  try {
    const out = join(tmp, 'publish-out')
    await buildFixtureOut(out)
    const { io, writes } = terminalIo()
    const argv = ['--recipe', FIXTURE_RECIPE, '--lock', FIXTURE_LOCK, '--mirror', FIXTURE_HUB, '--out', out, '--repo', 'someone/progress']
    const status = await runCli(() => publishDatasetCli(argv, { HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN }, io), io)
    assert.equal(status, 0, JSON.stringify(writes.slice(-3)))
    const drawn = writes
      .filter((w) => w.to === 'tty')
      .map((w) => w.text)
      .join('')
    assert.ok(drawn.includes(STAGE), 'the verifying rebuild')
    assert.match(drawn, /publishing to someone\/progress@main: uploading \d+ files \([\d.]+ kB\)/)
    const created = writes.findIndex((w) => w.text.startsWith('created dataset repo'))
    assert.ok(created > 0 && writes[created - 1]!.text.startsWith(ERASE), 'a step line is printed with the bars off')
    assert.match(writes.at(-1)!.text, /^http:\/\/.*someone\/progress/)
    const last = writes.filter((w) => w.to === 'tty').at(-1)!
    assert.ok(last.text.startsWith(ERASE) && writes.indexOf(last) < writes.length - 1, 'the bars are erased, before the URL')
  } finally {
    await hub.close()
  }
})
