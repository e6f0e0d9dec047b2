/**
 * No temp file outlives its build: a process that exits mid-write takes its temp files along,
 * and the next build removes those a killed process (whose pid is gone) left behind.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { removeStaleTemps } from '../src/util/atomic.ts'
import { FIXTURE_RECIPE, ownFile, runNode, TS_LOADER } from './helpers/cli.ts'
import { ARC, ARC_REV, assertClean, CDN, FILE, FILE_SHA, listAll, withRig } from './helpers/hub-rig.ts'

test('a process that exits while a temp file is being written (a CLI after an error) leaves no temp file', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-temp-exit-'))
  try {
    const dest = join(tmp, 'blobs', 'abc')
    const script = `
      import { readdirSync } from 'node:fs'
      import { writeAtomic } from ${JSON.stringify(pathToFileURL(ownFile('src/util/atomic.ts')).href)}
      // a body that never ends: the temp file exists and is never renamed
      const endless = { async *[Symbol.asyncIterator]() { yield new Uint8Array(1); await new Promise(() => {}) } }
      writeAtomic(${JSON.stringify(dest)}, endless, 'incomplete')
      const wait = () => readdirSync(${JSON.stringify(join(tmp, 'blobs'))}).some((n) => n.endsWith('.incomplete'))
        ? (console.log('seen'), process.exit(3))
        : setTimeout(wait, 5)
      setTimeout(wait, 5)
    `
    await mkdir(join(tmp, 'blobs'))
    const r = spawnSync(process.execPath, [...TS_LOADER, '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    })
    assert.equal(r.status, 3, r.stderr)
    assert.equal(r.stdout.trim(), 'seen', 'the temp file existed when the process exited')
    assert.deepEqual(await readdir(join(tmp, 'blobs')), [])
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
})

test("the next build removes temp files of dead processes, once old; a live process's, and fresh ones, stay", () =>
  withRig(async ({ repoDir, logs, fetcher }) => {
    const blobs = join(repoDir, 'blobs')
    await mkdir(blobs, { recursive: true })
    const dead = join(blobs, `${FILE_SHA}.999999999.0123456789ab.incomplete`)
    const live = join(blobs, `${FILE_SHA}.${process.pid}.0123456789ab.incomplete`)
    const fresh = join(blobs, `${FILE_SHA}.999999998.0123456789ab.incomplete`)
    for (const p of [dead, live, fresh]) await writeFile(p, '')
    for (const p of [dead, live]) await utimes(p, new Date(0), new Date(0))
    assert.equal((await fetcher().fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
    const left = (await readdir(blobs)).filter((n) => n.endsWith('.incomplete')).sort()
    assert.deepEqual(left, [live, fresh].map((p) => p.slice(blobs.length + 1)).sort())
    assert.ok(
      logs.some((l) => l.includes(`removed ${dead}`)),
      logs.join('\n'),
    )
    assert.deepEqual(await removeStaleTemps(blobs, 'incomplete', Date.now() + 120_000), [fresh])
  }))

test("a dead process's lock goes at once with the temp blob it covered; temps under a live process's lock stay", () =>
  withRig(async ({ repoDir, logs, fetcher }) => {
    const blobs = join(repoDir, 'blobs')
    await mkdir(blobs, { recursive: true })
    // the file's blob: a lock of a dead process and its young temp, as a kill mid-download leaves them
    const deadLock = join(blobs, `${FILE_SHA}.lock`)
    const deadTemp = join(blobs, `${FILE_SHA}.999999999.0123456789ab.incomplete`)
    await writeFile(deadLock, `999999999@${hostname()} 0123456789abcdef\n`)
    await writeFile(deadTemp, 'half a blob')
    // another blob a live process is downloading: its lock, its temp, and a young one of a dead process before it
    const other = 'a'.repeat(64)
    const liveLock = join(blobs, `${other}.lock`)
    const liveTemp = join(blobs, `${other}.${process.pid}.0123456789ab.incomplete`)
    const earlier = join(blobs, `${other}.999999999.0123456789ab.incomplete`)
    await writeFile(liveLock, `${process.pid}@${hostname()} 0123456789abcdef\n`)
    for (const p of [liveTemp, earlier]) await writeFile(p, 'in progress')
    assert.equal((await fetcher().fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
    const left = (await readdir(blobs)).sort()
    assert.deepEqual(left, [FILE_SHA, ...[liveLock, earlier, liveTemp].map((p) => p.slice(blobs.length + 1))].sort())
    for (const p of [deadLock, deadTemp])
      assert.ok(
        logs.some((l) => l.includes(`removed ${p.endsWith('.lock') ? 'stale lock ' : ''}${p}`)),
        logs.join('\n'),
      )
  }))

test('a build process that stops on a Retry-After of hours for one file, while others download, leaves no temp file in the cache', () =>
  withRig(async ({ proxy, cacheDir }) => {
    proxy.addFault({ match: CDN, fault: 'delay:50' }) // keep the other downloads in flight
    proxy.addFault({ match: 'ARC-Easy/test', fault: 'status:429', retryAfter: '3600' })
    const r = await runNode(
      'build-dataset.ts',
      ['--recipe', FIXTURE_RECIPE, '--cache-dir', cacheDir, '--out', join(cacheDir, '..', 'out')],
      { HF_ENDPOINT: proxy.url },
    )
    assert.equal(r.status, 6, r.stderr)
    assert.match(r.stderr, /error\[NETWORK\]: .*asked to wait 3600 s/)
    await assertClean(cacheDir)
    assert.ok((await listAll(cacheDir)).length > 0)
  }))
