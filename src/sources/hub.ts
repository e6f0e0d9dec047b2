import { randomInt } from 'node:crypto'
import { join, resolve } from 'node:path'
import { type ErrorContext, JevError, isJevError } from '../errors.ts'
import { removeStaleTemps } from '../atomic.ts'
import { LOCK_TEMP_SUFFIX } from '../file-lock.ts'
import {
  atomicWrite, type CacheEntry, discardEntry, hashLike, isOid, linkSnapshot, readCacheEntry, readVerifiedBlob, SHA1_RE, withBlobLock,
} from './hub-cache.ts'
import { DEFAULT_BOUNDS, type NetBounds, settingOf } from './bounds.ts'
import { AttemptsFailed, Deadline, type Fetch, type ResponseNote, type RetryPolicy, TransientError, withRetries } from './retry.ts'
import { hubClient, isHubApiError, isInvalidApiResponse } from './hub-client.ts'
import type { FileFetcher, SourceFile } from './types.ts'
import { sha256Hex } from '../hash.ts'
import { isRepoId } from '../repo-name.ts'

/** Network bounds (src/sources/bounds.ts) may be given one by one; the rest are the defaults. */
export interface HubFetcherOptions extends Partial<NetBounds> {
  endpoint?: string
  token?: string
  cacheDir: string
  offline?: boolean
  fetch?: typeof fetch
  log?: (line: string) => void
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

/** Same lookup order as Python huggingface_hub, so both share one cache. */
export function resolveCacheDir(env: NodeJS.ProcessEnv, homedir: string): string {
  const expand = (p: string) => (p === '~' || p.startsWith('~/') ? join(homedir, p.slice(1)) : p)
  if (env.HF_HUB_CACHE) return expand(env.HF_HUB_CACHE)
  if (env.HF_HOME) return join(expand(env.HF_HOME), 'hub')
  const base = env.XDG_CACHE_HOME ? expand(env.XDG_CACHE_HOME) : join(homedir, '.cache')
  return join(base, 'huggingface', 'hub')
}

function isHttpUrl(s: string): boolean {
  // the URL parser forgives white space around it; a request built from the raw value would not
  if (/\s/.test(s)) return false
  try {
    return /^https?:$/.test(new URL(s).protocol)
  } catch {
    return false
  }
}

/** The JS client reads no environment variables itself. */
export function hubOptionsFromEnv(env: NodeJS.ProcessEnv): { endpoint?: string; token?: string } {
  // checked before any request: a bad value fails every request the same way
  if (env.HF_ENDPOINT && !isHttpUrl(env.HF_ENDPOINT))
    throw new JevError('USAGE', `HF_ENDPOINT ${JSON.stringify(env.HF_ENDPOINT)} is not an http:// or https:// URL`)
  if (env.HF_TOKEN && /[\s\x00-\x1f\x7f]/.test(env.HF_TOKEN))
    throw new JevError('AUTH', 'HF_TOKEN is malformed: it holds white space or a control character')
  return {
    ...(env.HF_ENDPOINT ? { endpoint: env.HF_ENDPOINT.replace(/\/+$/, '') } : {}),
    ...(env.HF_TOKEN ? { token: env.HF_TOKEN } : {}),
  }
}

function checkNames(repo: string, revision: string, path: string): void {
  const bad = (s: string) => s === '' || s.includes('\\') || s.startsWith('/') || s.split('/').some((p) => p === '' || p === '.' || p === '..')
  if (!isRepoId(repo) || bad(revision) || bad(path)) {
    throw new JevError('RECIPE', `unsafe or malformed Hub reference: ${repo}@${revision} ${path}`, { repo, revision, file: path })
  }
}

const realSleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms))
const oneLine = (s: string) => s.replace(/\s*[\r\n]+\s*/g, ' ')
const looksLikeHtml = (b: Uint8Array) => /^\s*<(!doctype html|html)/i.test(Buffer.from(b.subarray(0, 64)).toString('latin1'))

export function createHubFetcher(options: HubFetcherOptions): FileFetcher {
  const endpoint = (options.endpoint ?? 'https://huggingface.co').replace(/\/+$/, '')
  const token = options.token || undefined
  const scrub = (s: string) => oneLine(token ? s.split(token).join('hf_***') : s)
  const say = (line: string) => options.log?.(scrub(line))
  const policy: RetryPolicy = {
    ...DEFAULT_BOUNDS,
    ...Object.fromEntries(Object.entries(options).filter(([k, v]) => k in DEFAULT_BOUNDS && v !== undefined)),
    retries: options.retries ?? 4,
    sleep: options.sleep ?? realSleep,
    random: options.random ?? (() => randomInt(2 ** 32) / 2 ** 32),
    now: options.now ?? Date.now,
  }
  const baseFetch: Fetch = (input, init) => (options.fetch ?? globalThis.fetch)(input, init)
  const client = (f: Fetch) => ({ hubUrl: endpoint, fetch: f, ...(token ? { accessToken: token } : {}) })
  // resolved once, here: the cache's links are compared with absolute paths
  const cacheDir = resolve(options.cacheDir)
  // offline only: cached files the lock does not vouch for, so a failing rows check can name them
  const unvouched = new Map<string, CacheEntry>()
  // repos whose blobs/ was cleared of temp files killed builds left, once per fetcher
  const swept = new Set<string>()
  // One commit per repo@revision for the fetcher's lifetime: every file of a build comes from the same snapshot.
  const commits = new Map<string, Promise<string>>()

  /** Every Hub call goes through here: a fresh guarded fetch per attempt, bounded retries, one log line per retry. */
  function retried<T>(ctx: ErrorContext, deadline: Deadline, run: (f: Fetch) => Promise<T>, htmlExpected = false): Promise<T> {
    return withRetries(policy, baseFetch, run, {
      htmlExpected,
      deadline,
      onRetry: (ev) => {
        const asked = ev.retryAfterMs !== undefined ? ` (the Hub asked to wait ${Math.ceil(ev.retryAfterMs / 1000)} s)` : ''
        say(`hub: ${ctx.repo}@${ctx.revision} ${ctx.file}: ${ev.why}; retrying (attempt ${ev.attempt} of ${ev.of})${asked}`)
      },
    })
  }

  const result = (repo: string, revision: string, commit: string, path: string, bytes: Uint8Array): SourceFile => ({
    repo, revision, commit, path, bytes, size: bytes.length, sha256: sha256Hex(bytes),
  })

  /** The cached file, verified against its own hash; a corrupt blob is deleted (and, online, fetched again). */
  async function readCached(repoDir: string, revision: string, path: string, ctx: ErrorContext): Promise<CacheEntry | null> {
    const entry = await readCacheEntry(repoDir, revision, path)
    if (!entry || !('corrupt' in entry)) return entry
    const msg = `cached blob for ${ctx.repo}@${revision} ${path} is corrupt (expected ${entry.etag}, got ${entry.got}); deleted it`
    if (options.offline) throw new JevError('INTEGRITY', `${msg}; cannot re-fetch while offline`, { ...ctx, expected: entry.etag, received: entry.got })
    say(`hub: ${msg}, re-fetching`)
    return null
  }

  function resolveCommit(repo: string, revision: string, ctx: ErrorContext, deadline: Deadline): Promise<string> {
    const key = `${repo}@${revision}`
    let p = commits.get(key)
    if (!p) {
      p = retried(ctx, deadline, async (f) => {
        const info = await (await hubClient()).datasetInfo({ ...client(f), name: repo, revision, additionalFields: ['sha'] })
        if (!SHA1_RE.test(info.sha ?? '')) throw new TransientError('NETWORK', `the Hub reported no commit sha for ${key}`)
        return info.sha
      })
      p.catch(() => commits.delete(key))
      commits.set(key, p)
    }
    return p
  }

  /** One attempt at the bytes: checked for length and hash before anything touches the disk. */
  async function downloadVerified(f: Fetch, ctx: ErrorContext, commit: string, etag: string, size: number): Promise<Uint8Array> {
    const path = String(ctx.file)
    let bytes = new Uint8Array()
    if (size !== 0) {
      // xet: false keeps to plain HTTP resolve (+ CDN redirect); the hash check below covers integrity either way.
      const encoded = path.split('/').map(encodeURIComponent).join('/')
      const blob = await (await hubClient()).downloadFile({ ...client(f), repo: { type: 'dataset', name: String(ctx.repo) }, revision: commit, path: encoded, xet: false })
      if (!blob) throw new JevError('NOT_FOUND', `Hub answered HTTP 404 (not found) for ${ctx.repo}@${ctx.revision} ${path}: check the recipe's path`, { status: 404 })
      bytes = new Uint8Array(await blob.arrayBuffer())
    }
    const html = looksLikeHtml(bytes) && !/\.html?$/i.test(path) ? ' (an HTML page, not the file)' : ''
    if (bytes.length !== size) {
      throw new TransientError('NETWORK', `received ${bytes.length} bytes where the Hub lists ${size}${html}`, { expectedSize: size, receivedSize: bytes.length })
    }
    const got = hashLike(etag, bytes)
    if (got !== etag) throw new TransientError('INTEGRITY', `expected ${etag} (${size} bytes), received ${got}${html}`, { expected: etag, received: got })
    return bytes
  }

  /**
   * The source's file. With `held`, a cached entry not vouched for, the source is asked first: bytes
   * it still serves are kept (the rows check decides); others are discarded, and fetched again.
   */
  async function download(repoDir: string, repo: string, revision: string, path: string, ctx: ErrorContext, held?: CacheEntry): Promise<SourceFile> {
    // one deadline for everything this file needs: the commit, its listing, the bytes, every retry and wait
    const deadline = new Deadline(policy.fileDeadlineMs)
    // Resolve the branch first and pin every later request to the commit, so a push mid-build cannot mix snapshots.
    const commit = SHA1_RE.test(revision) ? revision : await resolveCommit(repo, revision, ctx, deadline)
    const { etag, size } = await retried(ctx, deadline, async (f) => {
      const infos = await (await hubClient()).pathsInfo({ ...client(f), repo: { type: 'dataset', name: repo }, revision: commit, paths: [path] })
      const info = infos.find((i) => i.path === path && i.type === 'file')
      if (!info) throw new JevError('NOT_FOUND', `no file ${path} in dataset ${repo}@${revision}; check the recipe's path`, { ...ctx, status: 404 })
      const oid = info.lfs?.oid ?? info.oid ?? ''
      if (!isOid(oid)) throw new TransientError('NETWORK', `the Hub sent an unexpected oid ${JSON.stringify(oid.slice(0, 80))}`)
      return { etag: oid, size: info.lfs?.size ?? info.size }
    })
    if (held && held.etag === etag && held.commit === commit) return result(repo, revision, commit, path, held.bytes)
    if (held) {
      await discardEntry(held)
      say(`warning: bad cache entry replaced: ${held.pointer} held blob ${held.etag}, which ${endpoint} no longer serves for ${repo}@${revision} ${path}; discarded it and fetching the file again`)
    }
    if (!swept.has(repoDir)) {
      swept.add(repoDir)
      for (const suffix of ['incomplete', LOCK_TEMP_SUFFIX])
        for (const p of await removeStaleTemps(join(repoDir, 'blobs'), suffix)) say(`hub: removed ${p}, left by a build that was killed`)
    }
    const blobPath = join(repoDir, 'blobs', etag)
    // Another revision, or another build on this cache, may already have the blob; the lock makes the second one wait for it.
    const waitFrom = performance.now()
    const bytes = await withBlobLock(
      blobPath,
      () => readVerifiedBlob(blobPath, etag, size),
      async () => {
        deadline.exclude(performance.now() - waitFrom)
        say(`hub: downloading ${repo}@${revision} ${path} (${size} bytes)`)
        const got = await retried(ctx, deadline, (f) => downloadVerified(f, ctx, commit, etag, size), /\.html?$/i.test(path))
        await atomicWrite(blobPath, got)
        return got
      },
      { sleep: policy.sleep, now: policy.now, maxWaitMs: options.lockWaitMs ?? 600_000, log: say },
    )
    await linkSnapshot(join(repoDir, 'snapshots', commit, ...path.split('/')), blobPath)
    if (commit !== revision) await atomicWrite(join(repoDir, 'refs', ...revision.split('/')), commit)
    return result(repo, revision, commit, path, bytes)
  }

  function httpError(status: number, note: ResponseNote | undefined, detail: string, ctx: ErrorContext, after: string, retryAfterMs?: number): JevError {
    const where = `${ctx.repo}@${ctx.revision} ${ctx.file}`
    const head = `Hub answered HTTP ${status}`
    const c = { ...ctx, status }
    if (status === 401) {
      const what = token ? 'HF_TOKEN was rejected; check that it is valid and not expired' : 'without a token the Hub answers this for a repo that is private, gated or missing: check the recipe\'s repo, or set HF_TOKEN'
      return new JevError('AUTH', `${head} (unauthorized) for ${where}: ${what}`, c)
    }
    if (status === 403) {
      const what = token
        ? 'HF_TOKEN has no access; accept the dataset\'s terms on its Hub page with that account, or use a token that can read it'
        : 'the repo is gated or private; set HF_TOKEN to a token with access'
      return new JevError('AUTH', `${head} (forbidden) for ${where}: ${what}`, c)
    }
    if (status === 404) {
      const kind = note?.status === 404 ? note.errorCode : null
      const what = kind === 'RepoNotFound' ? `no dataset repo ${ctx.repo}; check the recipe's repo${token ? '' : ' (a private repo also answers 404 without HF_TOKEN)'}`
        : kind === 'RevisionNotFound' ? `no revision ${ctx.revision} in ${ctx.repo}; check the recipe's revision`
        : kind === 'EntryNotFound' ? `no file ${ctx.file} at that revision; check the recipe's path`
        : 'check the recipe\'s repo, revision and path'
      return new JevError('NOT_FOUND', `${head} (not found) for ${where}: ${what}`, c)
    }
    if (retryAfterMs !== undefined) {
      const s = Math.ceil(retryAfterMs / 1000)
      const at = new Date(policy.now() + retryAfterMs).toISOString().replace(/\.\d+Z$/, 'Z')
      return new JevError('NETWORK', `${head} for ${where}${after} and asked to wait ${s} s, longer than the ${policy.maxRetryAfterMs / 1000} s this builder waits (${settingOf('maxRetryAfterMs')} to wait longer); try again after ${at}`, { ...c, retryAfter: at })
    }
    // Signed CDN URLs carry credentials in their query; the path is enough to say where.
    const why = status === 429 ? 'rate limited; wait a few minutes, or set HF_TOKEN for a higher limit'
      : status >= 500 ? 'the Hub or HF_ENDPOINT is failing; try again later'
      : detail.replace(/(https?:\/\/[^\s?]+)\?\S*/g, '$1')
    return new JevError('NETWORK', `${head} for ${where}${after}: ${why}`, c)
  }

  function toJevError(caught: unknown, ctx: ErrorContext): JevError {
    const failed = caught instanceof AttemptsFailed ? caught : null
    const e = failed ? failed.cause : caught
    const attempts = failed?.attempts ?? 1
    const after = attempts > 1 ? ` after ${attempts} attempts` : ''
    const where = `${ctx.repo}@${ctx.revision} ${ctx.file}`
    const withCtx = (j: JevError) => new JevError(j.code, scrub(j.message), { ...j.context, ...(attempts > 1 ? { attempts } : {}) })
    if (isJevError(e)) return withCtx(new JevError(e.code, e.message, { ...ctx, ...e.context }))
    if (e instanceof TransientError) {
      const c = { ...ctx, ...e.detail, attempts }
      if (e.code === 'INTEGRITY') return withCtx(new JevError('INTEGRITY', `downloaded ${where} does not match the Hub${after}: ${e.message}; nothing was written to the cache`, c))
      return withCtx(new JevError('NETWORK', `could not fetch ${where} from ${endpoint}${after}: ${e.message}`, c))
    }
    if (isHubApiError(e)) return withCtx(httpError(e.statusCode, failed?.note, e.message, ctx, after, failed?.retryAfterMs))
    const err = e instanceof Error ? e : new Error(String(e))
    if (err instanceof TypeError && err.message.includes("must start with 'hf_'")) {
      return new JevError('AUTH', 'the Hugging Face token is malformed: it must start with hf_', ctx)
    }
    if (isInvalidApiResponse(err) || err instanceof SyntaxError) {
      return withCtx(new JevError('NETWORK', `could not fetch ${where} from ${endpoint}${after}: malformed response: ${err.message}`, ctx))
    }
    const errno = err as NodeJS.ErrnoException
    if (typeof errno.syscall === 'string') {
      return new JevError('IO', scrub(`cache write failed for ${where}: ${errno.message}`), { ...ctx, path: errno.path })
    }
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : ''
    return withCtx(new JevError('NETWORK', `could not fetch ${where} from ${endpoint}${after}: ${err.message}${cause}`, ctx))
  }

  return {
    kind: 'hub',
    unvouched(repo, path) {
      const e = [...unvouched.entries()].find(([k]) => k === `${repo}\u0000${path}` || (repo === undefined && k.endsWith(`\u0000${path}`)))?.[1]
      return e && { pointer: e.pointer, blob: e.blobPath }
    },
    async fetchFile(repo, revision, path) {
      checkNames(repo, revision, path)
      const ctx: ErrorContext = { repo, revision, file: path }
      const repoDir = join(cacheDir, `datasets--${repo.replace('/', '--')}`)
      try {
        const cached = await readCached(repoDir, revision, path, ctx)
        if (cached) {
          const file = result(repo, revision, cached.commit, path, cached.bytes)
          // trusted as it is only when the lock vouches for these very bytes (or no lock is in play)
          if (!options.vouched || options.vouched(repo, cached.commit, path) === file.sha256) return file
          if (!options.offline) return await download(repoDir, repo, revision, path, ctx, cached)
          // offline the source cannot be asked: the rows check decides, and names this entry if it fails
          unvouched.set(`${repo}\u0000${path}`, cached)
          return file
        }
        if (options.offline) {
          throw new JevError('OFFLINE', `${repo}@${revision} ${path} is not in the Hub cache at ${cacheDir} and offline mode forbids downloading it`, ctx)
        }
        return await download(repoDir, repo, revision, path, ctx)
      } catch (e) {
        throw toJevError(e, ctx)
      }
    },
  }
}
