/**
 * A build SIGKILLed at the point that leaves each leftover — a blob's `.incomplete` temp and its lock,
 * a dead process's lock beside a finished blob, a snapshot's `.incomplete` link, a prepared-cache `.tmp`.
 * A dead process's lock goes with the next build, and the blob temp it was writing with it; another
 * leftover outlives the next build (young temps are spared, as a live writer's would be) and, once old,
 * any later build that opens the cache removes it, a warm or offline one too.
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

/** What the kill leaves, and whether the next build, moments later, removes it at once (a dead process's lock, with the blob temp it covered) or spares it while young. */
const HUB_POINTS: Array<[string, string, RegExp, 'at once' | 'once old']> = [
  // the blob's bytes written to their temp, the lock held, not yet renamed: the temp is the dead lock's
  [
    'a blob temp and its lock',
    String.raw`rename|/blobs/[0-9a-f]+\.\d+\.[0-9a-f]{12}\.incomplete$|before`,
    /blobs\/[0-9a-f]{64}(\.\d+\.[0-9a-f]{12}\.incomplete|\.lock)$/,
    'at once',
  ],
  // the blob in place, its lock not yet removed: no later build needs that lock, so none took it over
  [
    'a dead lock beside a finished blob',
    String.raw`rename|/blobs/[0-9a-f]+\.\d+\.[0-9a-f]{12}\.incomplete$|after`,
    /blobs\/[0-9a-f]{64}\.lock$/,
    'at once',
  ],
  // the snapshot's temp link made, not yet renamed over the pointer
  ['a snapshot temp link', String.raw`rename|/snapshots/.*\.incomplete$|before`, /snapshots\/.*\.incomplete$/, 'once old'],
]

for (const [what, pause, left, goes] of HUB_POINTS)
  test(
    `Hub cache, killed leaving ${what}: ${goes === 'at once' ? 'the next build removes it at once' : 'a later warm or offline build removes it once it is old'}`,
    { timeout: 120_000 },
    () =>
      withRig(async ({ proxy, cacheDir, fetcher }) => {
        await killAt([CHILD, proxy.url, cacheDir, JSON.stringify([[ARC, ARC_REV, FILE]])], pause)
        const killed = (await leftovers(cacheDir)).filter((p) => left.test(p))
        assert.ok(killed.length > 0, (await leftovers(cacheDir)).join('\n'))
        if (what === 'a blob temp and its lock') assert.equal(killed.length, 2, `the temp and its lock: ${killed.join(', ')}`)
        // the next build, moments later, completes the cache: it removes a dead process's lock and its temp at once, and spares a young temp
        await fetcher().fetchFile(ARC, ARC_REV, FILE)
        const after = (await leftovers(cacheDir)).filter((p) => left.test(p))
        if (goes === 'at once') assert.deepEqual(after, [], 'gone with the next build, young as it is')
        else assert.deepEqual(after, killed, 'still there after the next build')
        await age(cacheDir)
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
