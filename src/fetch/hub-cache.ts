/**
 * The Hugging Face cache layout (`blobs/<etag>`, `snapshots/<commit>/<path>` links, `refs/<revision>`)
 * and the per-blob lock that lets two builds share one cache. Correctness never rests on the lock:
 * every blob is verified before a rename puts it in place, so readers see a whole file or none. The
 * lock saves a second download of the same blob and keeps the waiting build from racing the first.
 */
import { readdir, readFile, readlink, rm } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { isJevError, JevError } from '../errors.ts'
import { removeStaleTemps, symlinkAtomic, writeAtomic } from '../util/atomic.ts'
import { LOCK_TEMP_SUFFIX, removeIfStale, withFileLock } from '../util/file-lock.ts'
import { makeDirs, readRegular } from '../util/files.ts'
import { gitBlobSha1, sha256Hex } from '../util/hash.ts'
import type { FileFetcher } from './types.ts'

export const SHA1_RE = /^[0-9a-f]{40}$/
export const SHA256_RE = /^[0-9a-f]{64}$/

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
export async function readCacheEntry(
  repoDir: string,
  revision: string,
  path: string,
): Promise<CacheEntry | { corrupt: string; etag: string; got: string } | null> {
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
  return new JevError(
    e.code,
    `${e.message}; it came from a Hub cache entry the lock does not vouch for: delete ${bad.pointer} and ${bad.blob} (rm -f), then build without --offline to fetch it again`,
    { ...e.context, cacheEntry: bad.pointer },
  )
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
  await symlinkAtomic(target, pointer, 'incomplete')
}

/**
 * What killed builds left in a repo's cache folder: locks of dead processes (a later build that finds
 * the blob done never takes its lock, so none would remove it) and the temp blob each was writing, at
 * once; other temp blobs and lock temps once old; and temp links and refs. Returns what it removed.
 */
export async function sweepRepoDir(repoDir: string): Promise<string[]> {
  const blobs = join(repoDir, 'blobs')
  const removed: string[] = []
  const names = await readdir(blobs).catch(() => [] as string[])
  for (const name of names.filter((n) => n.endsWith('.lock'))) {
    const gone = await removeIfStale(join(blobs, name))
    if (!gone) continue
    removed.push(join(blobs, name))
    // the blob's temp under that lock: `<etag>.<pid>.<12 hex>.incomplete`, written only while the pid held it
    const etag = name.slice(0, -'.lock'.length)
    const mine = (n: string) => {
      const m = /^(.+)\.(\d+)\.[0-9a-f]{12}\.incomplete$/.exec(n)
      return m !== null && m[1] === etag && Number(m[2]) === gone.pid
    }
    for (const temp of names.filter(mine)) {
      await rm(join(blobs, temp), { force: true })
      removed.push(join(blobs, temp))
    }
  }
  removed.push(...(await removeStaleTemps(blobs, 'incomplete')), ...(await removeStaleTemps(blobs, LOCK_TEMP_SUFFIX)))
  for (const top of ['snapshots', 'refs']) {
    const dirs = await readdir(join(repoDir, top), { recursive: true, withFileTypes: true }).catch(() => [])
    const folders = [
      join(repoDir, top),
      ...dirs.filter((d) => d.isDirectory()).map((d) => join(d.parentPath ?? (d as { path?: string }).path ?? '', d.name)),
    ]
    for (const dir of folders) removed.push(...(await removeStaleTemps(dir, 'incomplete')))
  }
  return removed
}

export interface LockOptions {
  sleep: (ms: number) => Promise<void>
  /** how long to wait for a live holder, counted in requested sleeps so tests with an instant sleep stay instant */
  maxWaitMs: number
  pollMs?: number
  now: () => number
  log?: (line: string) => void
}

/**
 * Runs `produce` holding `<blobPath>.lock` (src/util/file-lock.ts), unless `ready` finds the blob done first
 * (by us earlier or by the holder we waited for). A lock whose pid is dead is removed; a live one is waited for, bounded.
 */
export async function withBlobLock<T>(
  blobPath: string,
  ready: () => Promise<T | null>,
  produce: () => Promise<T>,
  opts: LockOptions,
): Promise<T> {
  const lockPath = `${blobPath}.lock`
  await makeDirs(dirname(blobPath))
  return withFileLock(lockPath, produce, {
    sleep: opts.sleep,
    maxWaitMs: opts.maxWaitMs,
    pollMs: opts.pollMs ?? 200,
    now: opts.now,
    ready,
    onStale: (h) => opts.log?.(`hub: removing stale lock ${lockPath} (holder ${h.pid ?? 'unknown'} is gone)`),
    onWait: (h) => opts.log?.(`hub: waiting for another build (process ${h.pid ?? 'unknown'}) to finish downloading ${blobPath}`),
    gaveUp: (h, waited) =>
      new JevError(
        'IO',
        `gave up after ${Math.round(waited / 1000)} s waiting for ${lockPath}, held by process ${h.pid ?? 'unknown'}${h.host ? ` on ${h.host}` : ''}; if no other build is running, delete that file`,
        { path: lockPath },
      ),
  })
}
