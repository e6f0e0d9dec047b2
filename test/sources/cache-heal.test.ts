/**
 * The cache heals itself against the lock: a server that serves other bytes under a hash that
 * matches its own listing (a broken mirror, a rewriting proxy) poisons the cache; a later build
 * against a good server replaces the bad entry, --update-lock never writes the bad bytes into a
 * lock, and --offline names the entry and how to remove it.
 */
import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildDatasetCli } from '../../src/cli/build-dataset.ts'
import { runCli } from '../../src/cli/run.ts'
import { createHubFetcher } from '../../src/fetch/hub.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE } from '../helpers/cli.ts'
import { assertClean, listAll } from '../helpers/hub-rig.ts'
import { type HubServer, startHubServer } from '../helpers/hub-server.ts'
import { FIXTURE_LOCK } from '../helpers/publish.ts'

const ARC_DIR = ['datasets', 'allenai', 'ai2_arc', 'ARC-Challenge']
let tmp: string
let good: HubServer
let reference: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-cache-heal-'))
  good = await startHubServer({ root: FIXTURE_HUB })
  reference = join(tmp, 'reference')
  const r = await build(['--mirror', FIXTURE_HUB, '--out', reference])
  assert.equal(r.status, 0, r.text())
})
after(async () => {
  await good.close()
  await rm(tmp, { recursive: true, force: true })
})

async function build(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const c = collectIo()
  const status = await runCli(() => buildDatasetCli(['--recipe', FIXTURE_RECIPE, '--lock', FIXTURE_LOCK, ...argv], env, c.io), c.io, false)
  return { status, ...c }
}

/** A Hub whose ARC-Challenge test file is other bytes, listed under their own (matching) hash. */
async function badHub(name: string, bytes: Uint8Array | null): Promise<HubServer> {
  const root = join(tmp, name)
  await cp(FIXTURE_HUB, root, { recursive: true })
  const file = join(root, ...ARC_DIR, 'test-00000-of-00001.parquet')
  await writeFile(file, bytes ?? (await readFile(join(root, ...ARC_DIR, 'validation-00000-of-00001.parquet'))))
  return startHubServer({ root })
}

async function sameFiles(a: string, b: string): Promise<void> {
  for (const f of ['test.jsonl', 'val.jsonl', 'README.md', 'manifest.json'])
    assert.ok((await readFile(join(a, f))).equals(await readFile(join(b, f))), f)
}

for (const [kind, bytes, code, exit] of [
  ['other rows', null, 'LOCK', 5],
  ['bytes that do not decode', new TextEncoder().encode('not parquet at all\n'), 'DATA', 3],
] as const) {
  test(`a server serving ${kind} under a self-consistent hash, then a good one on the same cache: the second build heals it, byte-identical`, async () => {
    const cacheDir = join(tmp, `cache-${code}`)
    const bad = await badHub(`bad-${code}`, bytes)
    try {
      const r1 = await build(['--cache-dir', cacheDir, '--out', join(tmp, `out-bad-${code}`)], { HF_ENDPOINT: bad.url })
      assert.equal(r1.status, exit, r1.text())
      assert.match(r1.err.find((l) => l.startsWith('error['))!, new RegExp(`^error\\[${code}\\]`))
    } finally {
      await bad.close()
    }
    const out = join(tmp, `out-healed-${code}`)
    const r2 = await build(['--cache-dir', cacheDir, '--out', out], { HF_ENDPOINT: good.url })
    assert.equal(r2.status, 0, r2.text())
    assert.ok(
      r2.err.some((l) => /^warning: bad cache entry replaced: .*ARC-Challenge\/test-00000-of-00001\.parquet/.test(l)),
      r2.text(),
    )
    await sameFiles(out, reference)
    await assertClean(cacheDir)
    // healed for good: the next build is warm, no request at all
    good.requests.length = 0
    const r3 = await build(['--cache-dir', cacheDir, '--out', join(tmp, `out-warm-${code}`)], { HF_ENDPOINT: good.url })
    assert.equal(r3.status, 0, r3.text())
    assert.deepEqual(good.requests, [])
    assert.ok(!r3.err.some((l) => l.startsWith('warning')), r3.text())
  })
}

test('--update-lock on a poisoned cache re-checks it with the source: the lock it writes is the good one', async () => {
  const cacheDir = join(tmp, 'cache-update')
  const bad = await badHub('bad-update', null)
  try {
    assert.equal((await build(['--cache-dir', cacheDir, '--out', join(tmp, 'out-update-bad')], { HF_ENDPOINT: bad.url })).status, 5)
  } finally {
    await bad.close()
  }
  const lock = join(tmp, 'updated.lock.json')
  const c = collectIo()
  const out = join(tmp, 'out-updated')
  const status = await runCli(
    () =>
      buildDatasetCli(
        ['--recipe', FIXTURE_RECIPE, '--lock', lock, '--update-lock', '--cache-dir', cacheDir, '--out', out],
        { HF_ENDPOINT: good.url },
        c.io,
      ),
    c.io,
    false,
  )
  assert.equal(status, 0, c.text())
  const sources = (p: string) => readFile(p, 'utf8').then((t) => JSON.stringify((JSON.parse(t) as { sources: unknown }).sources))
  assert.equal(await sources(lock), await sources(FIXTURE_LOCK))
  await sameFiles(out, reference)
  // and --update-lock with --offline cannot check the cache, so it is refused
  const off = collectIo()
  assert.equal(
    await runCli(
      () =>
        buildDatasetCli(
          ['--recipe', FIXTURE_RECIPE, '--lock', lock, '--update-lock', '--offline', '--cache-dir', cacheDir, '--out', out],
          {},
          off.io,
        ),
      off.io,
      false,
    ),
    2,
  )
  assert.match(off.err[0]!, /^error\[USAGE\]: --update-lock checks every cached file with the Hub/)
})

for (const [kind, bytes, code, exit] of [
  ['other rows', null, 'LOCK', 5],
  ['bytes that do not decode', new TextEncoder().encode('not parquet\n'), 'DATA', 3],
] as const) {
  test(`--offline on a cache poisoned with ${kind}: error[${code}] naming the cache entry and how to remove it, and no request`, async () => {
    const cacheDir = join(tmp, `cache-offline-${code}`)
    const bad = await badHub(`bad-offline-${code}`, bytes)
    try {
      assert.equal(
        (await build(['--cache-dir', cacheDir, '--out', join(tmp, `out-off-bad-${code}`)], { HF_ENDPOINT: bad.url })).status,
        exit,
      )
      // The failed build's other downloads may still reach `bad` after it returns, so the offline
      // build is pointed at a server that only it could ask: any request there is its own.
      good.requests.length = 0
      const r = await build(['--cache-dir', cacheDir, '--out', join(tmp, `out-off-${code}`), '--offline'], { HF_ENDPOINT: good.url })
      assert.equal(r.status, exit, r.text())
      const line = r.err.find((l) => l.startsWith('error['))!
      const pointer = join(cacheDir, 'datasets--allenai--ai2_arc', 'snapshots')
      assert.ok(line.startsWith(`error[${code}]: `) && line.includes(pointer), line)
      assert.match(line, /ARC-Challenge\/test-00000-of-00001\.parquet and \S+\/blobs\/[0-9a-f]{64} \(rm -f\), then build without --offline/)
      assert.deepEqual(good.requests, [])
      assert.ok(
        (await listAll(cacheDir)).some((p) => p.endsWith('ARC-Challenge/test-00000-of-00001.parquet')),
        'offline removes nothing',
      )
    } finally {
      await bad.close()
    }
  })
}

test('the fetcher on a branch: an entry the source no longer serves loses its link, blob and ref, and is fetched again', async () => {
  const cacheDir = join(tmp, 'cache-branch')
  const repoDir = join(cacheDir, 'datasets--allenai--ai2_arc')
  const garbage = new TextEncoder().encode('bytes of a broken mirror\n')
  const bad = await badHub('bad-branch', garbage)
  const FILE = 'ARC-Challenge/test-00000-of-00001.parquet'
  let badBlob: string
  try {
    const got = await createHubFetcher({ endpoint: bad.url, cacheDir }).fetchFile('allenai/ai2_arc', 'main', FILE)
    assert.ok(Buffer.from(got.bytes).equals(Buffer.from(garbage)))
    badBlob = join(repoDir, 'blobs', got.sha256)
  } finally {
    await bad.close()
  }
  await readFile(badBlob) // there, under its own (self-consistent) hash
  const logs: string[] = []
  const healed = await createHubFetcher({ endpoint: good.url, cacheDir, vouched: () => undefined, log: (l) => logs.push(l) }).fetchFile(
    'allenai/ai2_arc',
    'main',
    FILE,
  )
  assert.ok(Buffer.from(healed.bytes).equals(await readFile(join(FIXTURE_HUB, ...ARC_DIR, 'test-00000-of-00001.parquet'))))
  assert.ok(
    logs.some((l) => l.startsWith('warning: bad cache entry replaced: ')),
    logs.join('\n'),
  )
  await assert.rejects(readFile(badBlob), { code: 'ENOENT' })
  assert.equal((await readFile(join(repoDir, 'refs', 'main'), 'utf8')).trim(), healed.commit)
  await assertClean(cacheDir)
})
