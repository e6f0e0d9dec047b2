import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { type FileLockOptions, readHolder, removeIfStale, withFileLock } from '../src/util/file-lock.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-file-lock-'))
})
after(() => rm(tmp, { recursive: true, force: true }))

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
const opts = <T>(over: Partial<FileLockOptions<T>> = {}): FileLockOptions<T> => ({
  sleep,
  maxWaitMs: 5_000,
  pollMs: 5,
  now: Date.now,
  gaveUp: (h, waited) => new Error(`gave up on ${h.pid} after ${waited}`),
  ...over,
})

test('two holders of one lock run one after the other, and the lock is gone after', async () => {
  const lock = join(tmp, 'a.lock')
  const events: string[] = []
  const job = (name: string) =>
    withFileLock(
      lock,
      async () => {
        events.push(`${name} in`)
        const h = await readHolder(lock)
        assert.equal(h?.pid, process.pid, 'the lock names this process')
        assert.equal(h?.host, hostname())
        await sleep(20)
        events.push(`${name} out`)
        return name
      },
      opts(),
    )
  assert.deepEqual(await Promise.all([job('a'), job('b')]), ['a', 'b'])
  // whichever takes it first, the other runs only after it is out
  const first = events[0]!.slice(0, 1)
  const second = first === 'a' ? 'b' : 'a'
  assert.deepEqual(events, [`${first} in`, `${first} out`, `${second} in`, `${second} out`])
  assert.deepEqual(
    (await readdir(tmp)).filter((n) => n.startsWith('a.lock')),
    [],
    'no lock and no temp file left',
  )
})

test('ready ends the wait without running', async () => {
  const lock = join(tmp, 'b.lock')
  let ran = false
  const got = await withFileLock(
    lock,
    async () => {
      ran = true
      return 'ran'
    },
    opts({ ready: async () => 'done already' }),
  )
  assert.equal(got, 'done already')
  assert.equal(ran, false)
})

test('a lock of a process that is gone is removed; a live one is waited for, then gaveUp', async () => {
  const lock = join(tmp, 'c.lock')
  await writeFile(lock, `999999999@${hostname()} 0123\n`)
  const stale: (number | null)[] = []
  assert.equal(await withFileLock(lock, async () => 'ok', opts({ onStale: (h) => stale.push(h.pid) })), 'ok')
  assert.deepEqual(stale, [999999999])

  await writeFile(lock, `${process.pid}@${hostname()} 4567\n`) // alive: this process
  const slept: number[] = []
  const waits: (number | null)[] = []
  await assert.rejects(
    withFileLock(
      lock,
      async () => 'never',
      opts({ maxWaitMs: 30, pollMs: 10, sleep: async (ms) => void slept.push(ms), onWait: (h) => waits.push(h.pid) }),
    ),
    { message: `gave up on ${process.pid} after 30` },
  )
  assert.deepEqual(slept, [10, 10, 10], 'the wait is counted in sleeps asked for')
  assert.deepEqual(waits, [process.pid], 'announced once')
  assert.equal(await readFile(lock, 'utf8'), `${process.pid}@${hostname()} 4567\n`, "a live holder's lock is left alone")
  await rm(lock)
})

test('a lock on another host is never judged stale; one without a pid is, once old', async () => {
  const lock = join(tmp, 'd.lock')
  await writeFile(lock, '999999999@some-other-host 0123\n')
  assert.equal(await removeIfStale(lock), null)
  await writeFile(lock, '')
  assert.equal(await removeIfStale(lock), null, 'a fresh empty lock may be being written')
  const old = new Date(Date.now() - 60_000)
  await utimes(lock, old, old)
  assert.deepEqual(await removeIfStale(lock), { raw: '', pid: null, host: null }, 'the holder it removed')
  assert.equal(await readHolder(lock), null)
})
