/**
 * A build SIGKILLed at the point that leaves each leftover — a blob's `.incomplete` temp and its lock,
 * a dead process's lock beside a finished blob, a snapshot's `.incomplete` link, a prepared-cache `.tmp`
 * — and the leftover outlives the next build (young temps are spared, as a live writer's would be).
 * Once old, any later build that opens the cache removes it, a warm or offline one too.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { lutimes, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildFromSources } from '../src/build-io.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { dirPreparedCache } from '../src/prepared-cache/cache.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, ownFile, TS_LOADER } from './helpers/cli.ts'
import { ARC, ARC_REV, assertClean, assertConsistent, CHILD, FILE, listAll, ROOT, withRig } from './helpers/hub-rig.ts'

const PAUSE = ownFile('test/helpers/pause-at.ts')
const LONG_AGO = new Date(Date.now() - 3600_000)

/** Runs `args` (compiled, or under tsx) with the pause hook; resolves with the path once paused, then SIGKILLs the child and waits for it to die. */
async function killAt(args: string[], pause: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, [...TS_LOADER, '--import', PAUSE, ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_TEST_CONTEXT: '', JEV_TEST_PAUSE: pause, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let err = ''
  const paused = await new Promise<string>((ok, ko) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /^paused (.+)$/m.exec(err)
      if (m) ok(m[1]!)
    })
    child.once('exit', (code) => ko(new Error(`the child ended (${code}) before the pause point:\n${err}`)))
  })
  const dead = new Promise((ok) => child.once('exit', ok))
  child.kill('SIGKILL')
  await dead
  return paused
}

/** Sets every temp and lock under `dir` an hour back, as if the kill was long ago (lutimes: a temp link's own time). */
async function age(dir: string): Promise<void> {
  for (const rel of await listAll(dir)) if (/\.(incomplete|lock|tmp|locking)$/.test(rel)) await lutimes(join(dir, rel), LONG_AGO, LONG_AGO)
}

const leftovers = async (dir: string) => (await listAll(dir)).filter((p) => /\.(incomplete|lock|tmp|locking)$/.test(p))

const HUB_POINTS: Array<[string, string, RegExp]> = [
  // the blob's bytes written to their temp, the lock held, not yet renamed
  [
    'a blob temp and its lock',
    String.raw`rename|/blobs/[0-9a-f]+\.\d+\.[0-9a-f]{12}\.incomplete$|before`,
    /blobs\/[0-9a-f]{64}\.\d+\.[0-9a-f]{12}\.incomplete$/,
  ],
  // the blob in place, its lock not yet removed: no later build needs that lock, so none took it over
  [
    'a dead lock beside a finished blob',
    String.raw`rename|/blobs/[0-9a-f]+\.\d+\.[0-9a-f]{12}\.incomplete$|after`,
    /blobs\/[0-9a-f]{64}\.lock$/,
  ],
  // the snapshot's temp link made, not yet renamed over the pointer
  ['a snapshot temp link', String.raw`rename|/snapshots/.*\.incomplete$|before`, /snapshots\/.*\.incomplete$/],
]

for (const [what, pause, left] of HUB_POINTS)
  test(`Hub cache, killed leaving ${what}: a later warm or offline build removes it once it is old`, { timeout: 120_000 }, () =>
    withRig(async ({ proxy, cacheDir, fetcher }) => {
      await killAt([CHILD, proxy.url, cacheDir, JSON.stringify([[ARC, ARC_REV, FILE]])], pause)
      assert.ok(
        (await leftovers(cacheDir)).some((p) => left.test(p)),
        (await leftovers(cacheDir)).join('\n'),
      )
      // the next build, moments later, completes the cache and spares the young leftover
      await fetcher().fetchFile(ARC, ARC_REV, FILE)
      await age(cacheDir)
      // a temp is removed only once old (a live writer's is young); a dead process's lock needs no age, so it may be gone already
      if (!left.source.endsWith('lock$'))
        assert.ok(
          (await leftovers(cacheDir)).some((p) => left.test(p)),
          'still there after the next build',
        )
      // a warm build sends nothing new and downloads nothing, and still cleans up
      const before = proxy.requests.length
      await fetcher({ offline: true }).fetchFile(ARC, ARC_REV, FILE)
      assert.equal(proxy.requests.length, before, 'the warm build made no request')
      await assertClean(cacheDir)
      assert.equal(await assertConsistent(cacheDir), 1)
    }),
  )

test('prepared cache, killed while writing an entry: a later warm build removes the .tmp once it is old', {
  timeout: 300_000,
}, async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-prepared-kill-'))
  try {
    const dir = join(tmp, 'prepared')
    const lock = join(ROOT, 'test/fixtures/recipe.lock.json')
    const args = [
      ownFile('src/cli/main.ts'),
      'build-dataset',
      '--recipe',
      FIXTURE_RECIPE,
      '--lock',
      lock,
      '--mirror',
      FIXTURE_HUB,
      '--out',
      join(tmp, 'out'),
    ]
    const paused = await killAt(args, String.raw`rename|/prepared/.*\.tmp$|before`, { JEV_PREPARED_CACHE: dir })
    assert.match(paused, /\.tmp$/)
    assert.deepEqual((await readdir(dir)).filter((n) => n.endsWith('.tmp')).length, 1)
    const recipe = await loadRecipe(FIXTURE_RECIPE)
    const build = async () =>
      buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { lock: (await readLock(lock))!, preparedCache: dirPreparedCache(dir) })
    await build()
    await age(dir)
    assert.equal((await readdir(dir)).filter((n) => n.endsWith('.tmp')).length, 1, 'still there after the next build')
    // warm: every entry is there, nothing is written, and the old temp still goes
    await build()
    assert.deepEqual(
      (await readdir(dir)).filter((n) => n.endsWith('.tmp')),
      [],
    )
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
})
