/** The three things asked of the Hub for a file: the commit a revision names, the file's listing, its bytes (verified). */
import { type ErrorContext, JevError } from '../errors.ts'
import { type Deadline, type Fetch, TransientError } from './guarded-fetch.ts'
import { hashLike, isOid, SHA1_RE } from './hub-cache.ts'
import { hubClient } from './hub-client.ts'
import { clientOf, type HubSession, retried } from './hub-session.ts'

const looksLikeHtml = (b: Uint8Array) => /^\s*<(!doctype html|html)/i.test(Buffer.from(b.subarray(0, 64)).toString('latin1'))

/** The commit `revision` names, once per repo@revision for the session; a failure is forgotten, so the next file asks again. */
export function resolveCommit(s: HubSession, repo: string, revision: string, ctx: ErrorContext, deadline: Deadline): Promise<string> {
  const key = `${repo}@${revision}`
  let p = s.commits.get(key)
  if (!p) {
    p = retried(s, ctx, deadline, async (f) => {
      const info = await (await hubClient()).datasetInfo({ ...clientOf(s, f), name: repo, revision, additionalFields: ['sha'] })
      if (!SHA1_RE.test(info.sha ?? '')) throw new TransientError('NETWORK', `the Hub reported no commit sha for ${key}`)
      return info.sha
    })
    p.catch(() => s.commits.delete(key))
    s.commits.set(key, p)
  }
  return p
}

/** The file's blob id (LFS sha256, else git blob sha1) and size at the commit, as the Hub lists it. */
export function lookupFile(
  s: HubSession,
  repo: string,
  revision: string,
  commit: string,
  path: string,
  ctx: ErrorContext,
  deadline: Deadline,
): Promise<{ etag: string; size: number }> {
  return retried(s, ctx, deadline, async (f) => {
    const infos = await (await hubClient()).pathsInfo({
      ...clientOf(s, f),
      repo: { type: 'dataset', name: repo },
      revision: commit,
      paths: [path],
    })
    const info = infos.find((i) => i.path === path && i.type === 'file')
    if (!info)
      throw new JevError('NOT_FOUND', `no file ${path} in dataset ${repo}@${revision}; check the recipe's path`, { ...ctx, status: 404 })
    const oid = info.lfs?.oid ?? info.oid ?? ''
    if (!isOid(oid)) throw new TransientError('NETWORK', `the Hub sent an unexpected oid ${JSON.stringify(oid.slice(0, 80))}`)
    return { etag: oid, size: info.lfs?.size ?? info.size }
  })
}

/** One attempt at the bytes: checked for length and hash before anything touches the disk. */
export async function downloadVerified(
  s: HubSession,
  f: Fetch,
  ctx: ErrorContext,
  commit: string,
  etag: string,
  size: number,
): Promise<Uint8Array> {
  const path = String(ctx.file)
  let bytes = new Uint8Array()
  if (size !== 0) {
    // xet: false keeps to plain HTTP resolve (+ CDN redirect); the hash check below covers integrity either way.
    const encoded = path.split('/').map(encodeURIComponent).join('/')
    const blob = await (await hubClient()).downloadFile({
      ...clientOf(s, f),
      repo: { type: 'dataset', name: String(ctx.repo) },
      revision: commit,
      path: encoded,
      xet: false,
    })
    if (!blob)
      throw new JevError(
        'NOT_FOUND',
        `Hub answered HTTP 404 (not found) for ${ctx.repo}@${ctx.revision} ${path}: check the recipe's path`,
        { status: 404 },
      )
    bytes = new Uint8Array(await blob.arrayBuffer())
  }
  const html = looksLikeHtml(bytes) && !/\.html?$/i.test(path) ? ' (an HTML page, not the file)' : ''
  if (bytes.length !== size) {
    throw new TransientError('NETWORK', `received ${bytes.length} bytes where the Hub lists ${size}${html}`, {
      expectedSize: size,
      receivedSize: bytes.length,
    })
  }
  const got = hashLike(etag, bytes)
  if (got !== etag)
    throw new TransientError('INTEGRITY', `expected ${etag} (${size} bytes), received ${got}${html}`, { expected: etag, received: got })
  return bytes
}
