import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildDatasetCli } from '../../src/cli/build-dataset.ts'
import { runCli } from '../../src/cli/run.ts'
import { Manifest } from '../../src/emit/manifest.ts'
import { OUTPUT_FILES } from '../../src/emit/outputs.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE, ROOT, runInProcess, runNode, runNodeSync, STACK_FRAME } from '../helpers/cli.ts'
import { startFaultProxy } from '../helpers/fault-proxy.ts'
import { startHubServer } from '../helpers/hub-server.ts'

let tmp: string
let badRecipe: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-cli-build-'))
  const r = JSON.parse(await readFile(FIXTURE_RECIPE, 'utf8')) as Record<string, unknown> & {
    sources: Record<string, unknown>[]
    quotas: { test: Record<string, unknown> }
  }
  r.seed = -1
  r.sources[1]!.revision = 'main'
  r.quotas.test['2'] = 'x'
  r.extra = true
  badRecipe = join(tmp, 'bad-recipe.json')
  await writeFile(badRecipe, JSON.stringify(r, null, 2))
})

after(async () => {
  await rm(tmp, { recursive: true, force: true })
})

/** In-process: what `npm run build-dataset -- ...argv` does, with output collected. */
async function build(argv: string[], env: NodeJS.ProcessEnv = {}, debug = false) {
  const c = collectIo()
  const status = await runCli(() => buildDatasetCli(argv, env, c.io), c.io, debug)
  return { status, ...c }
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  )

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const d of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (d.isFile()) out.push(join(d.parentPath, d.name))
  }
  return out
}

test('in-process build of the fixture recipe through --mirror: exit 0, the output files, a summary', async () => {
  const out = join(tmp, 'inproc', 'out')
  const r = await build(['--recipe', FIXTURE_RECIPE, '--mirror', FIXTURE_HUB, '--out', out])
  assert.equal(r.status, 0, r.text())
  assert.deepEqual(r.err, [])
  assert.deepEqual((await readdir(out)).sort(), [...OUTPUT_FILES].sort())
  assert.equal(r.out[0], `built ${out}/`)
  const m = Manifest.parse(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')))
  assert.equal(r.out.at(-1), `dataset hash ${m.datasetHash}`)
})

test('subprocess build: exit 0 and stdout ends with counts per source × split, drops and output hashes', async () => {
  const out = join(tmp, 'subproc', 'out')
  const r = runNodeSync('build-dataset.ts', ['--recipe', 'test/fixtures/recipe.json', '--mirror', 'test/fixtures/hub', '--out', out])
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`)
  assert.equal(r.stderr, '')
  assert.ok(r.stdout.endsWith('\n'))
  const lines = r.stdout.slice(0, -1).split('\n')
  const m = Manifest.parse(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')))

  const start = lines.indexOf(`built ${out}/`)
  assert.ok(start >= 0, r.stdout)
  const summary = lines.slice(start)
  const has = (re: RegExp, what: string) =>
    assert.ok(
      summary.some((l) => re.test(l)),
      `${what}: no line matching ${re} in\n${r.stdout}`,
    )
  has(/^source\s+test\s+val$/, 'header')
  let testTotal = 0
  let valTotal = 0
  for (const [source, c] of Object.entries(m.counts.bySource)) {
    has(new RegExp(`^${source}\\s+${c.test}\\s+${c.val}$`), source)
    testTotal += c.test
    valTotal += c.val
  }
  has(new RegExp(`^total\\s+${testTotal}\\s+${valTotal}$`), 'total')
  assert.equal(testTotal, 74)
  assert.equal(valTotal, 32)
  has(/^dropped:$/, 'drops header')
  const drops = Object.entries(m.drops).flatMap(([s, d]) => Object.entries(d).map(([reason, n]) => `  ${s}: ${reason} ${n}`))
  assert.ok(drops.length > 0, 'the fixtures have drops (MMLU duplicates, "all of the above", …)')
  for (const d of drops) assert.ok(summary.includes(d), `drop line "${d}" in\n${r.stdout}`)
  for (const o of m.outputs) {
    const buf = await readFile(join(out, o.path))
    assert.equal(buf.byteLength, o.bytes)
    has(new RegExp(`^${o.path.replace('.', '\\.')}\\s+sha256 ${o.sha256}\\s+${o.bytes} bytes$`), o.path)
  }
  // and manifest.json, which the manifest cannot list: every file written
  const manifestBytes = await readFile(join(out, 'manifest.json'))
  has(
    new RegExp(
      `^manifest\\.json\\s+sha256 ${createHash('sha256').update(manifestBytes).digest('hex')}\\s+${manifestBytes.byteLength} bytes$`,
    ),
    'manifest.json',
  )
  const columns = summary.filter((l) => / sha256 [0-9a-f]{64} /.test(l)).map((l) => l.indexOf(' sha256 '))
  assert.equal(columns.length, m.outputs.length + 1)
  assert.deepEqual(
    (await readdir(out)).sort(),
    [...m.outputs.map((o) => o.path), 'manifest.json'].sort(),
    'the summary lists what is in the folder',
  )
  assert.equal(new Set(columns).size, 1, `the sha256 column is aligned for every output:\n${r.stdout}`)
  assert.equal(lines.at(-1), `dataset hash ${m.datasetHash}`, 'stdout ends with the dataset hash')
  // the in-process CLI prints the same summary
  const again = join(tmp, 'subproc2', 'out')
  const inproc = await build(['--recipe', FIXTURE_RECIPE, '--mirror', FIXTURE_HUB, '--out', again])
  assert.deepEqual(inproc.out.slice(1), summary.slice(1))
})

test('a bad recipe: error[RECIPE] with the JSON paths, a hint, no stack, exit 2; --debug adds a stack', async () => {
  const out = join(tmp, 'bad', 'out')
  const r = await build(['--recipe', badRecipe, '--mirror', FIXTURE_HUB, '--out', out])
  assert.equal(r.status, 2)
  assert.deepEqual(r.out, [])
  assert.match(r.err[0]!, /^error\[RECIPE\]: invalid recipe .*bad-recipe\.json:$/)
  for (const path of ['$.seed', '$.sources.1.revision', '$.quotas.test.2', '$'])
    assert.ok(
      r.err.some((l) => l.startsWith(`  at ${path}: `)),
      `issue at ${path} listed:\n${r.text()}`,
    )
  assert.ok(
    r.err.some((l) => l.includes('Unrecognized key') && l.includes('extra')),
    r.text(),
  )
  assert.equal(r.err.filter((l) => l.startsWith('hint: ')).length, 1)
  assert.equal(r.err.at(-1), 'hint: fix the recipe at the JSON paths listed')
  assert.ok(!r.err.some((l) => STACK_FRAME.test(l)), `no stack trace:\n${r.text()}`)
  assert.equal(await exists(out), false, 'nothing written')

  // --debug: runCli takes the flag from process.argv by default, so an in-process caller passes it
  const d = await build(['--recipe', badRecipe, '--mirror', FIXTURE_HUB, '--out', out, '--debug'], {}, true)
  assert.equal(d.status, 2)
  assert.ok(
    d.err.some((l) => STACK_FRAME.test(l)),
    `a stack trace:\n${d.text()}`,
  )
  assert.ok(
    // in-process the builder runs from src/ (a child CLI maps its --debug stack back to src/ too)
    d.err.some((l) => /src\/recipe\/load\.ts:\d+:\d+/.test(l)),
    'the stack points into the builder',
  )

  // and for real, as a subprocess
  const plain = runNodeSync('build-dataset.ts', ['--recipe', badRecipe, '--mirror', FIXTURE_HUB, '--out', out])
  assert.equal(plain.status, 2)
  assert.equal(plain.stdout, '')
  assert.match(plain.stderr, /^error\[RECIPE\]: /)
  assert.match(plain.stderr, /\n {2}at \$\.sources\.1\.revision: /)
  assert.match(plain.stderr, /\nhint: fix the recipe at the JSON paths listed\n$/)
  assert.ok(!plain.stderr.split('\n').some((l) => STACK_FRAME.test(l)), plain.stderr)
  const debug = runNodeSync('build-dataset.ts', ['--recipe', badRecipe, '--mirror', FIXTURE_HUB, '--out', out, '--debug'])
  assert.equal(debug.status, 2)
  assert.match(debug.stderr, /^error\[RECIPE\]: /)
  assert.ok(
    debug.stderr.split('\n').some((l) => STACK_FRAME.test(l)),
    `a stack trace with --debug:\n${debug.stderr}`,
  )
  // from dist/ as from src/, the frames name src/*.ts lines (dist/cli/main.js turns on source maps under --debug)
  assert.match(debug.stderr, /src\/recipe\/load\.ts:\d+:\d+/)
})

test('a recipe that is not JSON is a RECIPE error; a missing recipe file is IO (exit 7)', async () => {
  const notJson = join(tmp, 'not-json.json')
  await writeFile(notJson, '{ "name": "x", ')
  const r = await build(['--recipe', notJson, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'nj')])
  assert.equal(r.status, 2)
  assert.match(r.err[0]!, /^error\[RECIPE\]: recipe .*not-json\.json is not valid JSON/)
  const missing = await build(['--recipe', join(tmp, 'nope.json'), '--mirror', FIXTURE_HUB, '--out', join(tmp, 'nj')])
  assert.equal(missing.status, 7)
  assert.match(missing.err[0]!, /^error\[IO\]: cannot read recipe /)
})

test('a file missing from the mirror: error[NOT_FOUND], exit 6, no output folder, nor the folders made for it', async () => {
  const mirror = join(tmp, 'empty-mirror')
  // the repo's folder is there, its file is not
  await mkdir(join(mirror, 'datasets', 'sbintuitions', 'JCommonsenseQA'), { recursive: true })
  const out = join(tmp, 'nf', 'deeper', 'out')
  const r = await build(['--recipe', FIXTURE_RECIPE, '--mirror', mirror, '--out', out])
  assert.equal(r.status, 6, r.text())
  assert.match(
    r.err[0]!,
    /^error\[NOT_FOUND\]: sbintuitions\/JCommonsenseQA@[0-9a-f]{40} data\/validation-00000-of-00001\.parquet is not in the mirror /,
  )
  assert.equal(r.err[1], 'hint: check the repo name, revision and file path named')
  assert.ok(!r.err.some((l) => STACK_FRAME.test(l)))
  assert.equal(await exists(out), false)
  assert.equal(await exists(join(tmp, 'nf')), false, 'the parents made before the work are removed again')
})

test('an unknown flag: error[USAGE], exit 2, with the usage text', async () => {
  const r = await build(['--recipe', FIXTURE_RECIPE, '--mirror', FIXTURE_HUB, '--frobnicate'])
  assert.equal(r.status, 2)
  assert.match(r.err[0]!, /^error\[USAGE\]: .*--frobnicate/)
  assert.ok(r.err.some((l) => l.startsWith('usage: npm run build-dataset')))
  assert.equal(r.err.at(-1), 'hint: build-dataset has no option --frobnicate; the usage above lists them, -h says what each does')
  const help = await build(['--help'])
  assert.equal(help.status, 0)
  assert.match(help.out[0]!, /^usage: npm run build-dataset/)
})

test('HF_TOKEN the Hub rejects: error[AUTH], exit 6, and the token is nowhere in the output or the cache', async () => {
  const TOKEN = 'hf_jevClientSecretDoNotPrint7f3a9c2e'
  const server = await startHubServer({ root: FIXTURE_HUB, token: 'hf_theServerWantsThisOneInstead0000' })
  const cacheDir = join(tmp, 'auth-cache')
  const out = join(tmp, 'auth', 'out')
  const env = { HF_TOKEN: TOKEN, HF_ENDPOINT: `${server.url}/` }
  try {
    for (const debug of [false, true]) {
      const r = await build(['--recipe', FIXTURE_RECIPE, '--out', out, '--cache-dir', cacheDir, ...(debug ? ['--debug'] : [])], env, debug)
      assert.equal(r.status, 6, r.text())
      assert.match(r.err[0]!, /^error\[AUTH\]: Hub answered HTTP 401 /)
      assert.equal(r.err.filter((l) => l === 'hint: set HF_TOKEN to a token with access to the repo').length, 1)
      assert.ok(!r.text().includes(TOKEN), `the token leaked:\n${r.text()}`)
      assert.ok(!r.text().includes(TOKEN.slice(3)), 'not even without its prefix')
      if (debug)
        assert.ok(
          r.err.some((l) => STACK_FRAME.test(l)),
          'the --debug run printed a stack, still without the token',
        )
    }
    assert.ok(server.requests.length > 0 && server.requests.every((q) => q.auth), 'the token was sent with every request')
    // and as a real subprocess (stdio output)
    const sub = await runNode('build-dataset.ts', ['--recipe', FIXTURE_RECIPE, '--out', out, '--cache-dir', cacheDir, '--debug'], env)
    assert.equal(sub.status, 6, sub.stderr)
    assert.match(sub.stderr, /^error\[AUTH\]: /)
    assert.ok(!`${sub.stdout}${sub.stderr}`.includes(TOKEN), sub.stderr)
    for (const f of await filesUnder(cacheDir)) assert.ok(!(await readFile(f, 'latin1')).includes(TOKEN), `${f} holds the token`)
    assert.equal(await exists(out), false)
  } finally {
    await server.close()
  }
})

test('an --out that cannot be made (below a file, under /proc or /sys) is an IO error line, before any request', async () => {
  const file = join(tmp, 'a-file')
  await writeFile(file, 'x')
  // under /sys a folder exists but nothing can be made in it, whatever its permission bits say
  const sysOut = '/sys/jev-no-such-out'
  const sysRefuses = await mkdir(sysOut).then(
    () => rm(sysOut, { recursive: true }).then(() => false),
    () => true,
  )
  const outs = [
    join(file, 'sub', 'out'),
    ...((await exists('/proc/self')) ? ['/proc/jev-no-such/out'] : []),
    ...(sysRefuses ? [sysOut] : []),
  ]
  for (const out of outs) {
    const cache = join(tmp, 'unmade-cache')
    // a port nothing listens on: a fetch would end in NETWORK, not IO
    const r = await build(['--recipe', FIXTURE_RECIPE, '--out', out, '--cache-dir', cache], { HF_ENDPOINT: 'http://127.0.0.1:9' })
    assert.equal(r.status, 7, r.text())
    assert.match(r.err[0] ?? '', new RegExp(`^error\\[IO\\]: cannot (read|write) ${out.replaceAll('/', '\\/')}: `), r.text())
    assert.equal(await exists(cache), false, 'nothing was fetched')
  }
})

test('HF_ENDPOINT without http(s) is a USAGE error and HF_TOKEN with a newline an AUTH error, before any request', async () => {
  const out = join(tmp, 'env-out')
  let r = await build(['--recipe', FIXTURE_RECIPE, '--out', out, '--cache-dir', join(tmp, 'env-cache')], { HF_ENDPOINT: 'localhost:8080' })
  assert.equal(r.status, 2, r.text())
  assert.equal(r.err[0], 'error[USAGE]: HF_ENDPOINT "localhost:8080" is not an http:// or https:// URL')
  r = await build(['--recipe', FIXTURE_RECIPE, '--out', out, '--cache-dir', join(tmp, 'env-cache')], {
    HF_ENDPOINT: 'https://huggingface.co ',
  })
  assert.equal(r.status, 2, r.text())
  r = await build(['--recipe', FIXTURE_RECIPE, '--out', out, '--cache-dir', join(tmp, 'env-cache')], { HF_TOKEN: 'hf_abc\ndef' })
  assert.equal(r.status, 6, r.text())
  assert.equal(r.err[0], 'error[AUTH]: HF_TOKEN is malformed: it holds white space or a control character')
  assert.equal(await exists(join(tmp, 'env-cache')), false, 'nothing was fetched')
})

test('a retry is said on stderr, so a slow build says why', async () => {
  const server = await startHubServer({ root: FIXTURE_HUB })
  const proxy = await startFaultProxy(server.url)
  proxy.addFault({ match: 'sbintuitions/JCommonsenseQA', fault: 'status:503', times: 1, retryAfter: '0' })
  try {
    const r = await build(['--recipe', FIXTURE_RECIPE, '--out', join(tmp, 'retry', 'out'), '--cache-dir', join(tmp, 'retry', 'cache')], {
      HF_ENDPOINT: proxy.url,
    })
    assert.equal(r.status, 0, r.text())
    assert.ok(
      r.err.some((l) => /^hub: sbintuitions\/JCommonsenseQA@\w+ .*HTTP 503; retrying \(attempt 2 of 5\)/.test(l)),
      r.err.join('\n'),
    )
  } finally {
    await proxy.close()
    await server.close()
  }
})

test('a reader that stops after the first line (| head -1): exit 0, no stack, and the first lock is still written', async () => {
  const dir = join(tmp, 'epipe')
  await mkdir(dir, { recursive: true })
  const recipe = join(dir, 'recipe.json')
  await writeFile(recipe, await readFile(FIXTURE_RECIPE))
  const child = spawn(
    process.execPath,
    [join(ROOT, 'dist/cli/main.js'), 'build-dataset', '--recipe', recipe, '--mirror', FIXTURE_HUB, '--out', join(dir, 'out')],
    { cwd: ROOT },
  )
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  // like head -1: read one chunk, then close the pipe
  child.stdout.once('data', () => child.stdout.destroy())
  const status = await new Promise<number | null>((ok) => child.on('close', ok))
  assert.equal(status, 0, stderr)
  assert.doesNotMatch(stderr, /EPIPE|\n\s+at /)
  assert.ok(await exists(join(dir, 'recipe.lock.json')), 'the lock was written')
})

test('after an error the process ends at once, although the next source is still downloading', async () => {
  const server = await startHubServer({ root: FIXTURE_HUB })
  const proxy = await startFaultProxy(server.url)
  // the first source is refused; the next one, fetched meanwhile, never answers
  proxy.addFault({ match: 'sbintuitions/JCommonsenseQA', fault: 'status:403' })
  proxy.addFault({ match: 'cais/mmlu', fault: 'hang' })
  try {
    const r = await runNode(
      'build-dataset.ts',
      ['--recipe', FIXTURE_RECIPE, '--out', join(tmp, 'linger', 'out'), '--cache-dir', join(tmp, 'linger', 'cache')],
      {
        HF_ENDPOINT: proxy.url,
      },
    )
    // without the prompt exit, the hung download keeps it alive until runNode kills it (status null)
    assert.equal(r.status, 6, r.stderr)
    assert.match(r.stderr, /^error\[AUTH\]: .*sbintuitions\/JCommonsenseQA/)
    assert.ok(
      proxy.requests.some((q) => q.url.includes('cais/mmlu')),
      'the next source had started',
    )
  } finally {
    await proxy.close()
    await server.close()
  }
})

test('through the loopback Hub with HF_ENDPOINT and --cache-dir; then --offline from the warm cache', async () => {
  const server = await startHubServer({ root: FIXTURE_HUB })
  const cacheDir = join(tmp, 'hub-cache')
  const env = { HF_ENDPOINT: server.url }
  try {
    const hubOut = join(tmp, 'hub', 'out')
    const r = await build(['--recipe', FIXTURE_RECIPE, '--out', hubOut, '--cache-dir', cacheDir], env)
    assert.equal(r.status, 0, r.text())
    assert.ok(server.requests.length > 0)
    server.requests.length = 0
    const offOut = join(tmp, 'hub-off', 'out')
    const off = await build(['--recipe', FIXTURE_RECIPE, '--out', offOut, '--cache-dir', cacheDir, '--offline'], env)
    assert.equal(off.status, 0, off.text())
    assert.deepEqual(server.requests, [])
    assert.deepEqual(off.out.slice(1), r.out.slice(1), 'the same summary, hashes included')
    const cold = await build(
      ['--recipe', FIXTURE_RECIPE, '--out', join(tmp, 'cold', 'out'), '--cache-dir', join(tmp, 'empty-cache'), '--offline'],
      env,
    )
    assert.equal(cold.status, 6)
    assert.match(cold.err[0]!, /^error\[OFFLINE\]: /)
    assert.equal(cold.err[1], 'hint: run once without --offline (and without HF_HUB_OFFLINE) to fill the cache, or use --mirror')
    assert.deepEqual(server.requests, [])
  } finally {
    await server.close()
  }
})

test('HF_HUB_OFFLINE=1 (as Python reads it) is --offline: a warm cache builds with no request, a cold one is OFFLINE with none', async () => {
  const server = await startHubServer({ root: FIXTURE_HUB })
  const cacheDir = join(tmp, 'env-offline-cache')
  try {
    const online = await build(['--recipe', FIXTURE_RECIPE, '--out', join(tmp, 'env-on', 'out'), '--cache-dir', cacheDir], {
      HF_ENDPOINT: server.url,
      HF_HUB_OFFLINE: '0',
    })
    assert.equal(online.status, 0, online.text())
    assert.ok(server.requests.length > 0, 'HF_HUB_OFFLINE=0 leaves the network on')
    server.requests.length = 0
    const warm = await runInProcess(
      'build-dataset.ts',
      ['--recipe', FIXTURE_RECIPE, '--out', join(tmp, 'env-off', 'out'), '--cache-dir', cacheDir],
      { HF_ENDPOINT: server.url, HF_HUB_OFFLINE: '1' },
    )
    assert.equal(warm.status, 0, warm.stderr)
    assert.deepEqual(warm.stdout.split('\n').slice(1, -1), online.out.slice(1), 'the same summary, hashes included')
    for (const value of ['1', 'true', 'YES', 'on']) {
      const cold = await runInProcess(
        'build-dataset.ts',
        ['--recipe', FIXTURE_RECIPE, '--out', join(tmp, `env-cold-${value}`, 'out'), '--cache-dir', join(tmp, 'env-empty-cache')],
        { HF_ENDPOINT: server.url, HF_HUB_OFFLINE: value },
      )
      assert.equal(cold.status, 6, `HF_HUB_OFFLINE=${value}: ${cold.stderr}`)
      assert.match(cold.stderr, /^error\[OFFLINE\]: /)
    }
    assert.deepEqual(server.requests, [], 'not one request while HF_HUB_OFFLINE is set')
  } finally {
    await server.close()
  }
})

test('--help of every building command says HF_HUB_OFFLINE is --offline', async () => {
  for (const script of ['build-dataset.ts', 'verify-dataset.ts', 'publish-dataset.ts']) {
    const r = await runInProcess(script, ['--help'])
    assert.equal(r.status, 0, r.stderr)
    assert.match(r.stdout, /HF_HUB_OFFLINE/, script)
  }
})
