/**
 * A file from the Hub into the cache: the commit, the listing, the bytes under the blob's lock,
 * then the snapshot link and the ref, all within one deadline per file.
 */
import { join } from 'node:path'
import type { ErrorContext } from '../errors.ts'
import { sha256Hex } from '../util/hash.ts'
import { type BodyWatcher, Deadline } from './guarded-fetch.ts'
import {
  atomicWrite,
  type CacheEntry,
  discardEntry,
  linkSnapshot,
  readVerifiedBlob,
  SHA1_RE,
  SHA256_RE,
  sweepRepoDir,
  withBlobLock,
} from './hub-cache.ts'
import { downloadVerified, lookupFile, resolveCommit } from './hub-requests.ts'
import { type HubSession, retried, say } from './hub-session.ts'
import type { SourceFile } from './types.ts'

/**
 * The file as the build reads it. `etag`: the blob id these very bytes were hashed and checked against in this
 * run (downloadVerified, readVerifiedBlob, readCacheEntry) — never one only listed — when it is an LFS sha256 it
 * is their sha256, so the bytes (megabytes) are not hashed a second time.
 */
export const sourceFile = (repo: string, revision: string, commit: string, path: string, bytes: Uint8Array, etag?: string): SourceFile => ({
  repo,
  revision,
  commit,
  path,
  bytes,
  size: bytes.length,
  sha256: etag !== undefined && SHA256_RE.test(etag) ? etag : sha256Hex(bytes),
})

/**
 * A bar per body of the file's bytes (a retry starts a new one), sized by its content-length, else
 * the listing's size; the 1-byte Range probe the client sends first gets none.
 */
const barFor = (s: HubSession, label: string, size: number): BodyWatcher | undefined => {
  const progress = s.progress
  if (!progress) return undefined
  return (res, init) => {
    if (!res.ok || new Headers(init?.headers).has('range')) return undefined
    const declared = Number(res.headers.get('content-length') ?? NaN)
    const bar = progress.file(label, Number.isFinite(declared) && declared > 0 ? declared : size)
    return { chunk: (n) => bar.advance(n), end: () => bar.done() }
  }
}

/** Once per repo per session, before its cache is read: temp files and locks of builds that were killed go. */
export async function sweep(s: HubSession, repoDir: string): Promise<void> {
  if (s.swept.has(repoDir)) return
  s.swept.add(repoDir)
  for (const p of await sweepRepoDir(repoDir))
    say(s, `hub: removed ${p.endsWith('.lock') ? 'stale lock ' : ''}${p}, left by a build that was killed`)
}

/**
 * The source's file. With `held`, a cached entry not vouched for, the source is asked first: bytes
 * it still serves are kept (the rows check decides); others are discarded, and fetched again.
 */
export async function download(
  s: HubSession,
  repoDir: string,
  repo: string,
  revision: string,
  path: string,
  ctx: ErrorContext,
  held?: CacheEntry,
): Promise<SourceFile> {
  // one deadline for everything this file needs: the commit, its listing, the bytes, every retry and wait
  const deadline = new Deadline(s.policy.fileDeadlineMs)
  // Resolve the branch first and pin every later request to the commit, so a push mid-build cannot mix snapshots.
  const commit = SHA1_RE.test(revision) ? revision : await resolveCommit(s, repo, revision, ctx, deadline)
  const { etag, size } = await lookupFile(s, repo, revision, commit, path, ctx, deadline)
  if (held && held.etag === etag && held.commit === commit) return sourceFile(repo, revision, commit, path, held.bytes, held.etag)
  if (held) {
    await discardEntry(held)
    say(
      s,
      `warning: bad cache entry replaced: ${held.pointer} held blob ${held.etag}, which ${s.endpoint} no longer serves for ${repo}@${revision} ${path}; discarded it and fetching the file again`,
    )
  }
  await sweep(s, repoDir)
  const blobPath = join(repoDir, 'blobs', etag)
  // Another revision, or another build on this cache, may already have the blob; the lock makes the second one wait for it.
  const waitFrom = performance.now()
  const bytes = await withBlobLock(
    blobPath,
    () => readVerifiedBlob(blobPath, etag, size),
    async () => {
      deadline.exclude(performance.now() - waitFrom)
      say(s, `hub: downloading ${repo}@${revision} ${path} (${size} bytes)`)
      const got = await retried(
        s,
        ctx,
        deadline,
        (f) => downloadVerified(s, f, ctx, commit, etag, size),
        /\.html?$/i.test(path),
        barFor(s, `${repo} ${path}`, size),
      )
      await atomicWrite(blobPath, got)
      return got
    },
    { sleep: s.policy.sleep, now: s.policy.now, maxWaitMs: s.lockWaitMs, log: (line) => say(s, line) },
  )
  await linkSnapshot(join(repoDir, 'snapshots', commit, ...path.split('/')), blobPath)
  if (commit !== revision) await atomicWrite(join(repoDir, 'refs', ...revision.split('/')), commit)
  // the bytes were checked against the etag, downloaded (downloadVerified) or read back (readVerifiedBlob)
  return sourceFile(repo, revision, commit, path, bytes, etag)
}
