/**
 * The Hub's read API over any RepoView: repo info, tree, paths-info, refs,
 * commits, resolve (with the LFS redirect to a CDN URL) and byte ranges — what
 * @huggingface/hub and Python's huggingface_hub use to list and download.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sha1Hex } from '../util/hash.ts'
import { cardDataOf } from './card.ts'
import { type Fault, isTrue, json, readBody } from './http.ts'
import { HubHttpError } from './http-error.ts'
import { type RepoFile, type RepoView, treeOf } from './repo.ts'

export function commitOf(view: RepoView, revision: string): string {
  const commit = view.resolve(revision)
  if (!commit) throw new HubHttpError(404, `Invalid rev id: ${revision}`, 'RevisionNotFound')
  return commit
}

const fileEntry = (f: RepoFile) => ({
  type: 'file',
  path: f.path,
  size: f.size,
  oid: f.oid,
  ...(f.lfs ? { lfs: { oid: f.sha256, size: f.size, pointerSize: f.pointerSize } } : {}),
})
/** The date reported when a repo has no commit date to give. */
const NO_DATE = '2024-01-01T00:00:00.000Z'
const dirEntry = (path: string) => ({ type: 'directory', path, size: 0, oid: sha1Hex(`tree:${path}`) })

/** A repo-info sibling; with `blobs` (Python's `files_metadata=True`) its size, git oid and LFS facts too. */
async function sibling(view: RepoView, commit: string, rfilename: string, blobs: boolean): Promise<object> {
  const f = blobs ? await view.file(commit, rfilename) : null
  if (!f) return { rfilename }
  return {
    rfilename,
    size: f.size,
    blobId: f.oid,
    ...(f.lfs ? { lfs: { sha256: f.sha256, size: f.size, pointerSize: f.pointerSize } } : {}),
  }
}

/** What `expand` adds to tree and paths-info entries (the head commit stands in for each file's last one); files get a scan result too. */
function expandFields(view: RepoView, commit: string): { dir: object; file: object } {
  const last = view.log(commit)[0]
  const dir = { lastCommit: { id: commit, title: last?.title ?? '', date: last?.date ?? NO_DATE } }
  const securityFileStatus = {
    status: 'safe',
    avScan: { virusFound: false, virusNames: null },
    pickleImportScan: { highestSafetyLevel: 'innocuous', imports: [] },
  }
  return { dir, file: { ...dir, securityFileStatus } }
}

/** `GET /api/datasets/<repo>[/revision/<rev>]`; `blobs` asks for file sizes and hashes, as the Hub's parameter does. */
export async function repoInfo(res: ServerResponse, view: RepoView, revision: string, blobs = false): Promise<void> {
  const commit = commitOf(view, revision)
  const [owner = ''] = view.id.split('/')
  const cardData = await cardDataOf(view, commit)
  const siblings = []
  for (const p of await view.paths(commit)) siblings.push(await sibling(view, commit, p, blobs))
  json(res, {
    _id: sha1Hex(view.id).slice(0, 24),
    id: view.id,
    author: owner,
    sha: commit,
    private: view.private,
    gated: false,
    disabled: false,
    downloads: 0,
    likes: 0,
    tags: [],
    lastModified: view.log(commit)[0]?.date ?? NO_DATE,
    siblings,
    ...(cardData ? { cardData } : {}),
  })
}

export async function tree(
  res: ServerResponse,
  view: RepoView,
  revision: string,
  dir: string,
  o: { recursive: boolean; expand: boolean },
): Promise<void> {
  const commit = commitOf(view, revision)
  const entries = treeOf(await view.paths(commit), dir, o.recursive)
  if (!entries) throw new HubHttpError(404, `Entry not found: ${dir}`, 'EntryNotFound')
  const extra = o.expand ? expandFields(view, commit) : { dir: {}, file: {} }
  const out: object[] = []
  for (const e of entries) {
    if (e.type === 'directory') out.push({ ...dirEntry(e.path), ...extra.dir })
    else {
      const f = await view.file(commit, e.path)
      if (f) out.push({ ...fileEntry(f), ...extra.file })
    }
  }
  json(res, out)
}

async function pathsBody(req: IncomingMessage): Promise<{ paths: string[]; expand: boolean }> {
  const text = (await readBody(req)).toString('utf8')
  if ((req.headers['content-type'] ?? '').includes('json')) {
    let b: { paths?: string[] | string; expand?: boolean }
    try {
      b = JSON.parse(text) as typeof b
    } catch {
      throw new HubHttpError(400, 'request body is not valid JSON')
    }
    return { paths: ([] as string[]).concat(b.paths ?? []), expand: !!b.expand }
  }
  const f = new URLSearchParams(text) // Python huggingface_hub posts form data
  return { paths: f.getAll('paths'), expand: isTrue(f.get('expand')) }
}

export async function pathsInfo(req: IncomingMessage, res: ServerResponse, view: RepoView, revision: string): Promise<void> {
  const commit = commitOf(view, revision)
  const body = await pathsBody(req)
  const all = await view.paths(commit)
  const extra = body.expand ? expandFields(view, commit) : { dir: {}, file: {} }
  const out: object[] = []
  for (const p of body.paths) {
    const f = all.includes(p) ? await view.file(commit, p) : null
    if (f) out.push({ ...fileEntry(f), ...extra.file })
    else if (all.some((q) => q.startsWith(`${p}/`))) out.push({ ...dirEntry(p), ...extra.dir })
  }
  json(res, out)
}

export function refs(res: ServerResponse, view: RepoView): void {
  const r = view.refs()
  const list = (kind: string, m: Record<string, string>) =>
    Object.entries(m)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, targetCommit]) => ({ name, ref: `refs/${kind}/${name}`, targetCommit }))
  json(res, { branches: list('heads', r.branches), tags: list('tags', r.tags), converts: [] })
}

export function commits(res: ServerResponse, view: RepoView, revision: string): void {
  const log = view.log(commitOf(view, revision))
  json(
    res,
    log.map((c) => ({
      id: c.id,
      title: c.title,
      message: c.message,
      authors: [{ user: 'local', avatar: '' }],
      date: c.date,
      parents: c.parents,
    })),
  )
}

export interface ResolveOptions {
  redirectLfs: boolean
  /** a body fault (truncate/corrupt) pending for this request */
  fault: Fault | undefined
  /** signs the CDN URLs LFS files are redirected to */
  secret: Buffer
  /** this server's origin: the redirect is absolute, as the Hub's is (Python's client follows relative ones as repo renames) */
  base: string
}

function cdnSignature(secret: Buffer, repo: string, commit: string, path: string): string {
  return createHmac('sha256', secret).update(`cdn\u0000${repo}\u0000${commit}\u0000${path}`).digest('hex')
}

/** A CDN URL carries no credentials, only the signature the redirect to it was given (as the Hub's presigned URLs). */
export function validCdnSignature(secret: Buffer, repo: string, commit: string, path: string, url: URL): boolean {
  const want = Buffer.from(cdnSignature(secret, repo, commit, path))
  const got = Buffer.from(url.searchParams.get('sig') ?? '')
  return got.length === want.length && timingSafeEqual(got, want)
}

/** `GET|HEAD /datasets/<repo>/resolve/<rev>/<path>`: small files directly, LFS files by redirect unless disabled. */
export async function resolveFile(
  req: IncomingMessage,
  res: ServerResponse,
  view: RepoView,
  revision: string,
  path: string,
  o: ResolveOptions,
): Promise<void> {
  const commit = commitOf(view, revision)
  const f = await view.file(commit, path)
  if (!f) throw new HubHttpError(404, 'Entry not found', 'EntryNotFound')
  const common = { 'X-Repo-Commit': commit }
  if (!f.lfs) return sendFile(req, res, f, { ...common, ETag: `"${f.oid}"` }, o.fault)
  const linked = { ...common, 'X-Linked-Etag': `"${f.sha256}"`, 'X-Linked-Size': String(f.size) }
  if (!o.redirectLfs) return sendFile(req, res, f, { ...linked, ETag: `"${f.sha256}"` }, o.fault)
  const loc = `${o.base}/cdn-lfs/${[...view.id.split('/'), commit, ...path.split('/')].map(encodeURIComponent).join('/')}?sig=${cdnSignature(o.secret, view.id, commit, path)}`
  res.writeHead(302, { ...linked, ETag: `"${f.oid}"`, Location: loc, 'Content-Length': '0' })
  res.end()
}

/** `/cdn-lfs/<owner>/<name>/<commit>/<path>?sig=…`: the bytes, as a CDN serves them (no auth, ETag = sha256). */
export async function cdnFile(
  req: IncomingMessage,
  res: ServerResponse,
  view: RepoView,
  commit: string,
  path: string,
  fault: Fault | undefined,
): Promise<void> {
  const f = await view.file(commitOf(view, commit), path)
  if (!f) throw new HubHttpError(404, 'Entry not found', 'EntryNotFound')
  return sendFile(req, res, f, { ETag: `"${f.sha256}"` }, fault)
}

async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  f: RepoFile,
  headers: Record<string, string>,
  pending?: Fault,
): Promise<void> {
  const all = await f.read()
  let body: Uint8Array = all
  let status = 200
  const h: Record<string, string> = { ...headers, 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream' }
  const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '')
  if (m && f.size > 0) {
    const start = m[1] ? Number(m[1]) : Math.max(0, f.size - Number(m[2]))
    const end = m[1] && m[2] ? Math.min(Number(m[2]), f.size - 1) : f.size - 1
    if (start >= f.size || start > end) {
      res.writeHead(416, { 'Content-Range': `bytes */${f.size}` })
      return void res.end()
    }
    body = all.subarray(start, end + 1)
    status = 206
    h['Content-Range'] = `bytes ${start}-${end}/${f.size}`
  }
  h['Content-Length'] = String(body.length)
  // Body faults are spent only on full bodies, so the client's 1-byte Range probe passes untouched.
  const fault = status === 200 && req.method === 'GET' && pending && pending.left > 0 ? pending.kind : undefined
  if (fault && pending) pending.left--
  if (fault === 'corrupt' && body.length > 0) {
    body = Uint8Array.from(body)
    body[body.length >> 1]! ^= 0xff
  }
  res.writeHead(status, h)
  if (req.method === 'HEAD') return void res.end()
  if (fault === 'truncate') {
    res.write(body.subarray(0, body.length >> 1), () => res.destroy())
    return
  }
  res.end(body)
}
