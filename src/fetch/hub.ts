/**
 * The Hub as a file source: a file of repo@revision from the Hugging Face cache when the cache
 * (and the lock) can vouch for it, else from the Hub (hub-download.ts), verified either way.
 */
import { randomInt } from 'node:crypto'
import { join, resolve } from 'node:path'
import { type ErrorContext, JevError } from '../errors.ts'
import type { Progress } from '../util/progress.ts'
import { isRepoId } from '../util/repo-name.ts'
import { DEFAULT_BOUNDS, type NetBounds } from './bounds.ts'
import type { Fetch } from './guarded-fetch.ts'
import { type CacheEntry, readCacheEntry } from './hub-cache.ts'
import { download, sourceFile, sweep } from './hub-download.ts'
import { hubFetchError } from './hub-errors.ts'
import { type HubSession, say } from './hub-session.ts'
import type { RetryPolicy } from './retry.ts'
import type { FileFetcher } from './types.ts'

export { hubOptionsFromEnv, resolveCacheDir } from './hub-env.ts'

/** Network bounds (src/fetch/bounds.ts) may be given one by one; the rest are the defaults. */
export interface HubFetcherOptions extends Partial<NetBounds> {
  endpoint?: string
  token?: string
  cacheDir: string
  offline?: boolean
  fetch?: typeof fetch
  log?: (line: string) => void
  /** each download's bytes with rate and time left (default: none) */
  progress?: Progress
  /** extra attempts after the first for 429, 5xx, broken/stalled/short/wrong bodies (default 4) */
  retries?: number
  /** waits between attempts and for another build's blob lock (default setTimeout) */
  sleep?: (ms: number) => Promise<void>
  /** jitter source in [0, 1) (default: crypto; jitter never reaches the output) */
  random?: () => number
  /** clock for Retry-After dates and lock ages (default Date.now) */
  now?: () => number
  /** how long to wait for a live process holding a blob's download lock (default 10 minutes) */
  lockWaitMs?: number
  /**
   * The sha256 the lock vouches for, per file at a commit (undefined: none, as for --update-lock).
   * When given, a cached file is trusted only when its bytes hash to it; any other is checked with
   * the source first. Absent: every cached file that matches its own hash is trusted.
   */
  vouched?: (repo: string, commit: string, path: string) => string | undefined
}

function checkNames(repo: string, revision: string, path: string): void {
  const bad = (s: string) =>
    s === '' || s.includes('\\') || s.startsWith('/') || s.split('/').some((p) => p === '' || p === '.' || p === '..')
  if (!isRepoId(repo) || bad(revision) || bad(path)) {
    throw new JevError('RECIPE', `unsafe or malformed Hub reference: ${repo}@${revision} ${path}`, { repo, revision, file: path })
  }
}

const realSleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms))

export function createHubFetcher(options: HubFetcherOptions): FileFetcher {
  const policy: RetryPolicy = {
    ...DEFAULT_BOUNDS,
    ...Object.fromEntries(Object.entries(options).filter(([k, v]) => k in DEFAULT_BOUNDS && v !== undefined)),
    retries: options.retries ?? 4,
    sleep: options.sleep ?? realSleep,
    random: options.random ?? (() => randomInt(2 ** 32) / 2 ** 32),
    now: options.now ?? Date.now,
  }
  const s: HubSession = {
    endpoint: (options.endpoint ?? 'https://huggingface.co').replace(/\/+$/, ''),
    token: options.token || undefined,
    // resolved once, here: the cache's links are compared with absolute paths
    cacheDir: resolve(options.cacheDir),
    offline: options.offline ?? false,
    policy,
    baseFetch: ((input, init) => (options.fetch ?? globalThis.fetch)(input, init)) as Fetch,
    lockWaitMs: options.lockWaitMs ?? 600_000,
    log: options.log,
    ...(options.progress ? { progress: options.progress } : {}),
    commits: new Map(),
    swept: new Set(),
  }
  // offline only: cached files the lock does not vouch for, so a failing rows check can name them
  const unvouched = new Map<string, CacheEntry>()

  /** The cached file, verified against its own hash; a corrupt blob is deleted (and, online, fetched again). */
  async function readCached(repoDir: string, revision: string, path: string, ctx: ErrorContext): Promise<CacheEntry | null> {
    const entry = await readCacheEntry(repoDir, revision, path)
    if (!entry || !('corrupt' in entry)) return entry
    const msg = `cached blob for ${ctx.repo}@${revision} ${path} is corrupt (expected ${entry.etag}, got ${entry.got}); deleted it`
    if (s.offline)
      throw new JevError('INTEGRITY', `${msg}; cannot re-fetch while offline`, {
        ...ctx,
        expected: entry.etag,
        received: entry.got,
        hint: 'the corrupt cache entry was deleted; build once without --offline to fetch it again',
      })
    say(s, `hub: ${msg}, re-fetching`)
    return null
  }

  return {
    kind: 'hub',
    unvouched(repo, path) {
      const e = [...unvouched.entries()].find(
        ([k]) => k === `${repo}\u0000${path}` || (repo === undefined && k.endsWith(`\u0000${path}`)),
      )?.[1]
      return e && { pointer: e.pointer, blob: e.blobPath }
    },
    async fetchFile(repo, revision, path) {
      checkNames(repo, revision, path)
      const ctx: ErrorContext = { repo, revision, file: path }
      const repoDir = join(s.cacheDir, `datasets--${repo.replace('/', '--')}`)
      try {
        await sweep(s, repoDir)
        const cached = await readCached(repoDir, revision, path, ctx)
        if (cached) {
          // readCached checked the bytes against the blob's name
          const file = sourceFile(repo, revision, cached.commit, path, cached.bytes, cached.etag)
          // trusted as it is only when the lock vouches for these very bytes (or no lock is in play)
          if (!options.vouched || options.vouched(repo, cached.commit, path) === file.sha256) return file
          if (!s.offline) return await download(s, repoDir, repo, revision, path, ctx, cached)
          // offline the source cannot be asked: the rows check decides, and names this entry if it fails
          unvouched.set(`${repo}\u0000${path}`, cached)
          return file
        }
        if (s.offline) {
          throw new JevError(
            'OFFLINE',
            `${repo}@${revision} ${path} is not in the Hub cache at ${s.cacheDir} and offline mode forbids downloading it`,
            ctx,
          )
        }
        return await download(s, repoDir, repo, revision, path, ctx)
      } catch (e) {
        throw hubFetchError(s, e, ctx)
      }
    },
  }
}
