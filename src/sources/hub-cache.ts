/**
 * The Hugging Face cache layout (`blobs/<etag>`, `snapshots/<commit>/<path>` links, `refs/<revision>`)
 * and the per-blob lock that lets two builds share one cache. Correctness never rests on the lock:
 * every blob is verified before a rename puts it in place, so readers see a whole file or none. The
 * lock saves a second download of the same blob and keeps the waiting build from racing the first.
 */
import { createHash, randomBytes } from 'node:crypto'
import { readFileSync, rmSync } from 'node:fs'
import { open, readdir, readFile, readlink, rename, rm, stat, symlink } from 'node:fs/promises'
import { hostname } from 'node:os'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { isJevError, JevError } from '../errors.ts'
import type { FileFetcher } from './types.ts'
import { makeDirs, pidAlive, readRegular, removeStaleTemps, settled, tempPath, writeAtomic } from '../files.ts'

export const SHA1_RE = /^[0-9a-f]{40}$/
export const SHA256_RE = /^[0-9a-f]{64}$/

export const sha256Hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
export const gitBlobSha1 = (b: Uint8Array) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex')
export const isOid = (s: string) => SHA1_RE.test(s) || SHA256_RE.test(s)
/** A blob's name says how to check it: 64 hex = LFS sha256, 40 hex = git blob sha1. */
export const hashLike = (etag: string, b: Uint8Array) => (SHA256_RE.test(etag) ? sha256Hex(b) : gitBlobSha1(b))


/** Into the cache: a partial file is never seen, and its temp name is the `.incomplete` huggingface_hub uses. */
export const atomicWrite = (dest: string, data: Uint8Array | string) => writeAtomic(dest, data, 'incomplete')

/** A file as the cache holds it: the snapshot link, the blob it points at, and the ref that named the commit. */
export interface CacheEntry {
  commit: string
  pointer: string
  blobPath: string
  etag: string
  bytes: Uint8Array
  /** `refs/<revision>`, when the revision was a branch or tag */
  ref: string | null
}

/**
 * The cached file for repo@revision path: a complete entry, `corrupt` (the blob fails its own
 * hash, and has been deleted), or null. `repoDir` must be absolute: the link is resolved against it.
 */
export async function readCacheEntry(repoDir: string, revision: string, path: string): Promise<CacheEntry | { corrupt: string; etag: string; got: string } | null> {
  let commit: string | null = SHA1_RE.test(revision) ? revision : null
  const ref = commit ? null : join(repoDir, 'refs', ...revision.split('/'))
  if (ref) {
    const named = (await readFile(ref, 'utf8').catch(() => '')).trim()
    commit = SHA1_RE.test(named) ? named : null
  }
  if (!commit) return null
  const pointer = join(repoDir, 'snapshots', commit, ...path.split('/'))
  const target = await readlink(pointer).catch(() => null)
  if (target === null) return null
  const blobPath = resolve(dirname(pointer), target)
  const etag = basename(blobPath)
  if (dirname(blobPath) !== join(repoDir, 'blobs') || !isOid(etag)) return null
  const buf = await readRegular(blobPath).catch(() => null)
  if (!buf) return null
  const got = hashLike(etag, buf)
  if (got !== etag) {
    await rm(blobPath, { force: true })
    return { corrupt: blobPath, etag, got }
  }
  return { commit, pointer, blobPath, etag, bytes: buf, ref }
}

/**
 * Removes an entry the source does not vouch for: its link, the ref that led to it, and its blob
 * unless another snapshot's link still points at it (those bytes are right for that file).
 */
export async function discardEntry(e: CacheEntry): Promise<void> {
  for (const p of [e.pointer, ...(e.ref ? [e.ref] : [])]) await rm(p, { force: true })
  const snapshots = join(dirname(dirname(e.blobPath)), 'snapshots')
  const links = await readdir(snapshots, { recursive: true }).catch(() => [] as string[])
  for (const rel of links) {
    const link = join(snapshots, rel)
    const target = await readlink(link).catch(() => null)
    if (target !== null && resolve(dirname(link), target) === e.blobPath) return
  }
  await rm(e.blobPath, { force: true })
}

/**
 * A LOCK, SCHEMA or DATA error about a file that came, offline, from a cache entry the lock does
 * not vouch for: it says which entry, and how to be rid of it.
 */
export function nameBadEntry(e: unknown, fetcher: FileFetcher): unknown {
  if (!isJevError(e) || !['LOCK', 'SCHEMA', 'DATA'].includes(e.code) || typeof e.context.file !== 'string') return e
  const bad = fetcher.unvouched?.(typeof e.context.repo === 'string' ? e.context.repo : undefined, e.context.file)
  if (!bad) return e
  return new JevError(e.code, `${e.message}; it came from a Hub cache entry the lock does not vouch for: delete ${bad.pointer} and ${bad.blob} (rm -f), then build without --offline to fetch it again`, { ...e.context, cacheEntry: bad.pointer })
}

/** The blob's bytes if it exists with the right size and hash, else null. */
export async function readVerifiedBlob(blobPath: string, etag: string, size?: number): Promise<Uint8Array | null> {
  const buf = await readRegular(blobPath).catch(() => null)
  if (!buf || (size !== undefined && buf.length !== size)) return null
  return hashLike(etag, buf) === etag ? buf : null
}

/**
 * Points `pointer` at `blobPath` with a relative link, as huggingface_hub does. A temp link renamed
 * over the pointer replaces whatever another build put there, atomically, and never fails because it exists.
 */
export async function linkSnapshot(pointer: string, blobPath: string): Promise<void> {
  const target = relative(dirname(pointer), blobPath)
  if ((await readlink(pointer).catch(() => null)) === target) return
  await makeDirs(dirname(pointer))
  await removeStaleTemps(dirname(pointer), 'incomplete')
  const tmp = tempPath(pointer, 'incomplete')
  await symlink(target, tmp)
  await rename(tmp, pointer)
    .catch(async (e) => {
      await rm(tmp, { force: true })
      throw e
    })
    .finally(() => settled(tmp))
}

export interface LockOptions {
  sleep: (ms: number) => Promise<void>
  /** how long to wait for a live holder, counted in requested sleeps so tests with an instant sleep stay instant */
  maxWaitMs: number
  pollMs?: number
  now: () => number
  log?: (line: string) => void
}

/** A lock file empty or unreadable for this long was left by a process that died between create and write. */
const EMPTY_LOCK_STALE_MS = 30_000

interface Holder { raw: string; pid: number | null; host: string | null }

async function readHolder(lockPath: string): Promise<Holder | null> {
  const raw = await readFile(lockPath, 'utf8').catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : ''))
  if (raw === null) return null
  const m = /^(\d+)@(\S*) /.exec(raw)
  return { raw, pid: m ? Number(m[1]) : null, host: m ? m[2]! : null }
}

async function isStale(lockPath: string, h: Holder, now: () => number): Promise<boolean> {
  if (h.pid === null) {
    const st = await stat(lockPath).catch(() => null)
    return st !== null && now() - st.mtimeMs > EMPTY_LOCK_STALE_MS
  }
  // A pid on another host (a shared network cache) cannot be checked; wait for it, bounded.
  return h.host === hostname() && !pidAlive(h.pid)
}

async function tryCreate(lockPath: string, content: string): Promise<boolean> {
  try {
    const fh = await open(lockPath, 'wx')
    try {
      await fh.writeFile(content)
    } catch (e) {
      await fh.close()
      await rm(lockPath, { force: true })
      throw e
    }
    await fh.close()
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw e
  }
}

/**
 * Runs `produce` holding `<blobPath>.lock`, unless `ready` finds the blob done first (by us earlier or
 * by the holder we waited for). A lock whose pid is dead is removed; a live one is waited for, bounded.
 */
/** Locks this process holds, so a process that exits mid-download (a CLI after an error) does not leave them. */
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

export async function withBlobLock<T>(
  blobPath: string,
  ready: () => Promise<T | null>,
  produce: () => Promise<T>,
  opts: LockOptions,
): Promise<T> {
  const lockPath = `${blobPath}.lock`
  const mine = `${process.pid}@${hostname()} ${randomBytes(8).toString('hex')}\n`
  const pollMs = opts.pollMs ?? 200
  let waited = 0
  let announced = false
  await makeDirs(dirname(blobPath))
  for (;;) {
    const done = await ready()
    if (done !== null) return done
    if (await tryCreate(lockPath, mine)) {
      hold(lockPath, mine)
      try {
        return (await ready()) ?? (await produce())
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
        opts.log?.(`hub: removing stale lock ${lockPath} (holder ${holder.pid ?? 'unknown'} is gone)`)
        await rm(lockPath, { force: true })
      }
      continue
    }
    if (waited >= opts.maxWaitMs) {
      throw new JevError(
        'IO',
        `gave up after ${Math.round(waited / 1000)} s waiting for ${lockPath}, held by process ${holder.pid ?? 'unknown'}${holder.host ? ` on ${holder.host}` : ''}; if no other build is running, delete that file`,
        { path: lockPath },
      )
    }
    if (!announced) opts.log?.(`hub: waiting for another build (process ${holder.pid ?? 'unknown'}) to finish downloading ${blobPath}`)
    announced = true
    await opts.sleep(pollMs)
    waited += pollMs
  }
}
