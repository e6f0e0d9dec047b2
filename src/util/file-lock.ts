/**
 * A lock file shared by processes: `<pid>@<host> <hex>\n`, made with link() of a file already
 * holding it, so the lock never exists empty. A lock whose process is gone is stale and is
 * removed; a live holder is waited for, bounded. The output swap and the Hub cache's blobs use it.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync } from 'node:fs'
import { link, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { settled, tempPath } from './atomic.ts'
import { pidAlive } from './process.ts'

export interface Holder {
  raw: string
  pid: number | null
  host: string | null
}

export interface FileLockOptions<T> {
  sleep: (ms: number) => Promise<void>
  /** how long to wait for a live holder, counted in requested sleeps so tests with an instant sleep stay instant */
  maxWaitMs: number
  pollMs: number
  now: () => number
  /** checked before each try and again once the lock is held: a result ends the wait without running */
  ready?: () => Promise<T | null>
  /** once, when a live holder is first waited for */
  onWait?: (holder: Holder) => void
  /** before a stale lock is removed */
  onStale?: (holder: Holder) => void
  /** the error for a holder still there after maxWaitMs */
  gaveUp: (holder: Holder, waitedMs: number) => Error
}

/** A lock file empty or unreadable for this long was left by an older writer that died between create and write. */
const EMPTY_LOCK_STALE_MS = 30_000
/** The temp file a lock is linked from: `<lock>.<pid>.<12 hex>.locking` (see removeStaleTemps). */
export const LOCK_TEMP_SUFFIX = 'locking'

/** Who holds the lock at `lockPath` (null: nobody). Content that does not parse has no pid. */
export async function readHolder(lockPath: string): Promise<Holder | null> {
  const raw = await readFile(lockPath, 'utf8').catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : ''))
  if (raw === null) return null
  const m = /^(\d+)@(\S*) /.exec(raw)
  return { raw, pid: m ? Number(m[1]) : null, host: m ? m[2]! : null }
}

/** A holder whose process is gone on this host, or a lock with no pid that is old. */
export async function isStale(lockPath: string, h: Holder, now: () => number = Date.now): Promise<boolean> {
  if (h.pid === null) {
    const st = await stat(lockPath).catch(() => null)
    return st !== null && now() - st.mtimeMs > EMPTY_LOCK_STALE_MS
  }
  // A pid on another host (a shared network cache) cannot be checked; wait for it, bounded.
  return h.host === hostname() && !pidAlive(h.pid)
}

/** Removes the lock at `lockPath` when it is stale; the holder it named when it did, else null. */
export async function removeIfStale(lockPath: string, now: () => number = Date.now): Promise<Holder | null> {
  const h = await readHolder(lockPath)
  if (!h || !(await isStale(lockPath, h, now))) return null
  // re-read so only the lock judged goes, not a fresh one taken meanwhile
  if ((await readHolder(lockPath))?.raw !== h.raw) return null
  await rm(lockPath, { force: true })
  return h
}

async function tryCreate(lockPath: string, content: string): Promise<boolean> {
  const tmp = tempPath(lockPath, LOCK_TEMP_SUFFIX)
  try {
    await writeFile(tmp, content, { flag: 'wx' })
    await link(tmp, lockPath)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw e
  } finally {
    await rm(tmp, { force: true })
    settled(tmp)
  }
}

/** Locks this process holds, so a process that exits while holding one (a CLI after an error) does not leave it. */
const held = new Map<string, string>()
let releaseOnExit = false

function hold(lockPath: string, mine: string): void {
  held.set(lockPath, mine)
  if (releaseOnExit) return
  releaseOnExit = true
  // synchronous, as 'exit' handlers must be; only a lock that still holds our own content goes
  process.on('exit', () => {
    for (const [path, content] of held) {
      try {
        if (readFileSync(path, 'utf8') === content) rmSync(path, { force: true })
      } catch {
        // gone already, or unreadable: nothing of ours to remove
      }
    }
  })
}

/** Runs `run` holding `lockPath`, unless `ready` finds the work done first (by us earlier or by the holder waited for). */
export async function withFileLock<T>(lockPath: string, run: () => Promise<T>, opts: FileLockOptions<T>): Promise<T> {
  const mine = `${process.pid}@${hostname()} ${randomBytes(8).toString('hex')}\n`
  const ready = opts.ready ?? (async () => null)
  let waited = 0
  let announced = false
  for (;;) {
    const done = await ready()
    if (done !== null) return done
    if (await tryCreate(lockPath, mine)) {
      hold(lockPath, mine)
      try {
        return (await ready()) ?? (await run())
      } finally {
        // Remove only our own lock: a waiter may have judged it stale and replaced it.
        if ((await readFile(lockPath, 'utf8').catch(() => null)) === mine) await rm(lockPath, { force: true })
        held.delete(lockPath)
      }
    }
    const holder = await readHolder(lockPath)
    if (holder === null) continue // released between our create and read
    if (await isStale(lockPath, holder, opts.now)) {
      // Re-read so we only remove the lock we judged, not a fresh one taken meanwhile.
      if ((await readHolder(lockPath))?.raw === holder.raw) {
        opts.onStale?.(holder)
        await rm(lockPath, { force: true })
      }
      continue
    }
    if (waited >= opts.maxWaitMs) throw opts.gaveUp(holder, waited)
    if (!announced) opts.onWait?.(holder)
    announced = true
    await opts.sleep(opts.pollMs)
    waited += opts.pollMs
  }
}
