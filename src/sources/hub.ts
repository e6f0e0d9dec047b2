import { createHash, randomBytes } from 'node:crypto'
import { mkdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { datasetInfo, downloadFile, HubApiError, pathsInfo } from '@huggingface/hub'
import { type ErrorContext, JevError, isJevError } from '../errors.ts'
import type { FileFetcher, SourceFile } from './types.ts'

export interface HubFetcherOptions {
  endpoint?: string
  token?: string
  cacheDir: string
  offline?: boolean
  fetch?: typeof fetch
  log?: (line: string) => void
}

const SHA1_RE = /^[0-9a-f]{40}$/
const SHA256_RE = /^[0-9a-f]{64}$/

/** Same lookup order as Python huggingface_hub, so both share one cache. */
export function resolveCacheDir(env: NodeJS.ProcessEnv, homedir: string): string {
  const expand = (p: string) => (p === '~' || p.startsWith('~/') ? join(homedir, p.slice(1)) : p)
  if (env.HF_HUB_CACHE) return expand(env.HF_HUB_CACHE)
  if (env.HF_HOME) return join(expand(env.HF_HOME), 'hub')
  const base = env.XDG_CACHE_HOME ? expand(env.XDG_CACHE_HOME) : join(homedir, '.cache')
  return join(base, 'huggingface', 'hub')
}

/** The JS client reads no environment variables itself. */
export function hubOptionsFromEnv(env: NodeJS.ProcessEnv): { endpoint?: string; token?: string } {
  return {
    ...(env.HF_ENDPOINT ? { endpoint: env.HF_ENDPOINT.replace(/\/+$/, '') } : {}),
    ...(env.HF_TOKEN ? { token: env.HF_TOKEN } : {}),
  }
}

const sha256Hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const gitBlobSha1 = (b: Uint8Array) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex')
const isOid = (s: string) => SHA1_RE.test(s) || SHA256_RE.test(s)
/** A blob's name says how to check it: 64 hex = LFS sha256, 40 hex = git blob sha1. */
const hashLike = (etag: string, b: Uint8Array) => (SHA256_RE.test(etag) ? sha256Hex(b) : gitBlobSha1(b))

/** Write via a unique temp name + rename, so readers and concurrent writers never see a partial file. */
async function atomicWrite(dest: string, data: Uint8Array | string): Promise<void> {
  await mkdir(dirname(dest), { recursive: true })
  const tmp = `${dest}.${process.pid}.${randomBytes(6).toString('hex')}.incomplete`
  try {
    await writeFile(tmp, data)
    await rename(tmp, dest)
  } catch (e) {
    await rm(tmp, { force: true })
    throw e
  }
}

function checkNames(repo: string, revision: string, path: string): void {
  const bad = (s: string) => s === '' || s.includes('\\') || s.startsWith('/') || s.split('/').some((p) => p === '' || p === '.' || p === '..')
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo) || bad(repo) || bad(revision) || bad(path)) {
    throw new JevError('RECIPE', `unsafe or malformed Hub reference: ${repo}@${revision} ${path}`, { repo, revision, file: path })
  }
}

export function createHubFetcher(options: HubFetcherOptions): FileFetcher {
  const endpoint = (options.endpoint ?? 'https://huggingface.co').replace(/\/+$/, '')
  const token = options.token || undefined
  const scrub = (s: string) => (token ? s.split(token).join('hf_***') : s)
  const say = (line: string) => options.log?.(scrub(line))
  const client = {
    hubUrl: endpoint,
    ...(token ? { accessToken: token } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  }
  // One commit per repo@revision for the fetcher's lifetime: every file of a build comes from the same snapshot.
  const commits = new Map<string, Promise<string>>()

  const result = (repo: string, revision: string, commit: string, path: string, bytes: Uint8Array): SourceFile => ({
    repo, revision, commit, path, bytes, size: bytes.length, sha256: sha256Hex(bytes),
  })

  async function readCached(repoDir: string, repo: string, revision: string, path: string, ctx: ErrorContext): Promise<SourceFile | null> {
    let commit: string | null = SHA1_RE.test(revision) ? revision : null
    if (!commit) {
      const ref = await readFile(join(repoDir, 'refs', revision), 'utf8').catch(() => '')
      commit = SHA1_RE.test(ref.trim()) ? ref.trim() : null
    }
    if (!commit) return null
    const pointer = join(repoDir, 'snapshots', commit, ...path.split('/'))
    const target = await readlink(pointer).catch(() => null)
    if (target === null) return null
    const blobPath = resolve(dirname(pointer), target)
    const etag = basename(blobPath)
    if (dirname(blobPath) !== join(repoDir, 'blobs') || !isOid(etag)) return null
    const buf = await readFile(blobPath).catch(() => null)
    if (!buf) return null
    const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
    const got = hashLike(etag, bytes)
    if (got === etag) {
      say(`hub: cache hit ${repo}@${revision} ${path}`)
      return result(repo, revision, commit, path, bytes)
    }
    await rm(blobPath, { force: true })
    const msg = `cached blob for ${repo}@${revision} ${path} is corrupt (expected ${etag}, got ${got}); deleted it`
    if (options.offline) throw new JevError('INTEGRITY', `${msg}; cannot re-fetch while offline`, { ...ctx, expected: etag, received: got })
    say(`hub: ${msg}, re-fetching`)
    return null
  }

  function resolveCommit(repo: string, revision: string): Promise<string> {
    const key = `${repo}@${revision}`
    let p = commits.get(key)
    if (!p) {
      p = datasetInfo({ ...client, name: repo, revision, additionalFields: ['sha'] }).then((info) => {
        if (!SHA1_RE.test(info.sha ?? '')) throw new Error(`Hub reported no commit sha for ${key}`)
        return info.sha
      })
      p.catch(() => commits.delete(key))
      commits.set(key, p)
    }
    return p
  }

  async function download(repoDir: string, repo: string, revision: string, path: string, ctx: ErrorContext): Promise<SourceFile> {
    // Resolve the branch first and pin every later request to the commit, so a push mid-build cannot mix snapshots.
    const commit = SHA1_RE.test(revision) ? revision : await resolveCommit(repo, revision)
    const repoId = { type: 'dataset' as const, name: repo }
    const infos = await pathsInfo({ ...client, repo: repoId, revision: commit, paths: [path] })
    const info = infos.find((i) => i.path === path && i.type === 'file')
    if (!info) throw new JevError('NOT_FOUND', `no file ${path} in dataset ${repo}@${revision}`, { ...ctx, status: 404 })
    const etag = info.lfs?.oid ?? info.oid ?? ''
    const size = info.lfs?.size ?? info.size
    if (!isOid(etag)) throw new JevError('NETWORK', `Hub sent an unexpected oid for ${repo}@${revision} ${path}`, ctx)
    const blobPath = join(repoDir, 'blobs', etag)

    // Another revision may already have fetched the same blob.
    const existing = await readFile(blobPath).catch(() => null)
    let bytes: Uint8Array
    if (existing && existing.length === size && hashLike(etag, existing) === etag) {
      bytes = new Uint8Array(existing.buffer, existing.byteOffset, existing.byteLength)
    } else {
      say(`hub: downloading ${repo}@${revision} ${path} (${size} bytes)`)
      // xet: false keeps to plain HTTP resolve (+ CDN redirect); the sha256 check below covers integrity either way.
      const encoded = path.split('/').map(encodeURIComponent).join('/')
      const blob = size === 0 ? null : await downloadFile({ ...client, repo: repoId, revision: commit, path: encoded, xet: false })
      if (size !== 0 && !blob) throw new JevError('NOT_FOUND', `no file ${path} in dataset ${repo}@${revision}`, { ...ctx, status: 404 })
      bytes = blob ? new Uint8Array(await blob.arrayBuffer()) : new Uint8Array()
      const got = hashLike(etag, bytes)
      if (got !== etag || bytes.length !== size) {
        // Checked before anything touches the disk, so a bad download leaves neither blob nor temp file.
        throw new JevError(
          'INTEGRITY',
          `downloaded ${repo}@${revision} ${path} does not match the Hub: expected ${etag} (${size} bytes), received ${got} (${bytes.length} bytes)`,
          { ...ctx, expected: etag, received: got },
        )
      }
      await atomicWrite(blobPath, bytes)
    }

    const pointer = join(repoDir, 'snapshots', commit, ...path.split('/'))
    const target = relative(dirname(pointer), blobPath)
    if ((await readlink(pointer).catch(() => null)) !== target) {
      await mkdir(dirname(pointer), { recursive: true })
      const tmp = `${pointer}.${process.pid}.${randomBytes(6).toString('hex')}.incomplete`
      await symlink(target, tmp)
      await rename(tmp, pointer).catch(async (e) => { await rm(tmp, { force: true }); throw e })
    }
    if (commit !== revision) await atomicWrite(join(repoDir, 'refs', ...revision.split('/')), commit)
    return result(repo, revision, commit, path, bytes)
  }

  function toJevError(e: unknown, ctx: ErrorContext): JevError {
    if (isJevError(e)) return new JevError(e.code, scrub(e.message), e.context)
    const where = `${ctx.repo}@${ctx.revision} ${ctx.file}`
    if (e instanceof HubApiError) {
      const status = e.statusCode
      const code = status === 401 || status === 403 ? 'AUTH' : status === 404 ? 'NOT_FOUND' : 'NETWORK'
      const why = code === 'AUTH' ? ' (the repo may be gated, private or missing, or the token lacks access)' : ''
      return new JevError(code, scrub(`Hub answered HTTP ${status} for ${where}${why}: ${e.message}`), { ...ctx, status })
    }
    const err = e instanceof Error ? e : new Error(String(e))
    if (err instanceof TypeError && err.message.includes("must start with 'hf_'")) {
      return new JevError('AUTH', 'the Hugging Face token is malformed: it must start with hf_', ctx)
    }
    const errno = err as NodeJS.ErrnoException
    if (!(err instanceof TypeError) && typeof errno.syscall === 'string') {
      return new JevError('IO', scrub(`cache write failed for ${where}: ${errno.message}`), { ...ctx, path: errno.path })
    }
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : ''
    return new JevError('NETWORK', scrub(`could not fetch ${where} from ${endpoint}: ${err.message}${cause}`), ctx)
  }

  return {
    kind: 'hub',
    async fetchFile(repo, revision, path) {
      checkNames(repo, revision, path)
      const ctx: ErrorContext = { repo, revision, file: path }
      const repoDir = join(options.cacheDir, `datasets--${repo.replace('/', '--')}`)
      try {
        const cached = await readCached(repoDir, repo, revision, path, ctx)
        if (cached) return cached
        if (options.offline) {
          throw new JevError('OFFLINE', `${repo}@${revision} ${path} is not in the Hub cache at ${options.cacheDir} and offline mode forbids downloading it`, ctx)
        }
        return await download(repoDir, repo, revision, path, ctx)
      } catch (e) {
        throw toJevError(e, ctx)
      }
    },
  }
}
