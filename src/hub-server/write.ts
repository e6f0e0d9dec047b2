/**
 * The Hub's write API for store repos, as @huggingface/hub and Python's
 * huggingface_hub drive it: repo create, preupload, LFS batch + PUT (+ verify),
 * NDJSON commit with the parent-commit check, tags and branches.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { gitBlobSha1, sha1Hex } from '../util/hash.ts'
import { isHubNamePart, isRefName } from '../util/repo-name.ts'
import { endpointLimit, lineBounds } from './body-limit.ts'
import { lfsPatterns, tracksAsLfs } from './gitattributes.ts'
import { forEachLine, isTrue, json, readBody, readJson, safeRepoPath } from './http.ts'
import { HubHttpError } from './http-error.ts'
import { commitOf } from './read.ts'
import { describe, lfsPointer } from './repo.ts'
import type { CommitChange, Store, StoredFile, StoreRepo } from './store.ts'

export interface WriteDeps {
  store: Store
  /** whether a read-only mirror already holds this repo id */
  inMirror(owner: string, name: string): Promise<boolean>
  /** from this size on, preupload answers `lfs` (the Hub uses 10 MB) */
  lfsThreshold: number
  /** signs LFS upload URLs, which carry no Authorization header */
  secret: Buffer
  base: string
}

const LFS_JSON = 'application/vnd.git-lfs+json'
const sign = (d: WriteDeps, oid: string, size: number) => createHmac('sha256', d.secret).update(`${oid}:${size}`).digest('hex')

export async function createRepo(req: IncomingMessage, res: ServerResponse, d: WriteDeps): Promise<void> {
  const b = await readJson<{ name?: string; organization?: string; type?: string; private?: boolean; visibility?: string }>(req)
  const [owner, name] = b.name?.includes('/') ? b.name.split('/', 2) : [b.organization, b.name]
  if ((b.type ?? 'model') !== 'dataset') throw new HubHttpError(400, 'this local Hub holds dataset repos only (type: "dataset")')
  if (!owner || !name || !isHubNamePart(owner) || !isHubNamePart(name) || name.endsWith('.git'))
    throw new HubHttpError(400, 'repo name must be <owner>/<name> with letters, digits, "-", "_" and "."')
  const id = `${owner}/${name}`
  const url = `${d.base}/datasets/${id}`
  if (d.store.repo(id) || (await d.inMirror(owner, name))) {
    res.writeHead(409, { 'Content-Type': 'application/json; charset=utf-8' })
    return void res.end(JSON.stringify({ error: 'You already created this dataset repo', url }))
  }
  await d.store.createRepo(id, b.private === true || b.visibility === 'private')
  json(res, { url, name: id, id: sha1Hex(id).slice(0, 24) })
}

async function headAttributes(repo: StoreRepo, commit: string): Promise<string> {
  const f = await repo.file(commit, '.gitattributes')
  return f ? (await f.read()).toString('utf8') : ''
}

export async function preupload(req: IncomingMessage, res: ServerResponse, repo: StoreRepo, branch: string, d: WriteDeps): Promise<void> {
  const head = commitOf(repo, branch)
  const b = await readJson<{ gitAttributes?: string; files?: { path: string; size: number; sample?: string }[] }>(req)
  const patterns = lfsPatterns(b.gitAttributes ?? (await headAttributes(repo, head)))
  const files = []
  for (const f of b.files ?? []) {
    if (!safeRepoPath(f.path)) throw new HubHttpError(400, `invalid path: ${JSON.stringify(f.path)}`)
    const binary = Buffer.from(f.sample ?? '', 'base64').includes(0)
    const lfs = tracksAsLfs(f.path, patterns) || f.size >= d.lfsThreshold || binary
    const remote = await repo.file(head, f.path)
    // Python's huggingface_hub skips files whose remote oid equals its local one (sha256 for LFS, git sha1 otherwise).
    files.push({
      path: f.path,
      uploadMode: lfs ? 'lfs' : 'regular',
      shouldIgnore: false,
      oid: remote ? (remote.lfs ? remote.sha256 : remote.oid) : null,
    })
  }
  json(res, { files, commitOid: head })
}

/** `POST /datasets/<repo>.git/info/lfs/objects/batch`: basic transfer, upload URLs only for objects not yet stored. */
export async function lfsBatch(req: IncomingMessage, res: ServerResponse, d: WriteDeps): Promise<void> {
  const b = await readJson<{ operation?: string; objects?: { oid: string; size: number }[] }>(req)
  if (b.operation !== 'upload') throw new HubHttpError(422, 'this local Hub answers LFS uploads only; download through /resolve/')
  const objects = []
  for (const o of b.objects ?? []) {
    if (!/^[0-9a-f]{64}$/.test(o.oid) || !Number.isSafeInteger(o.size) || o.size < 0) {
      objects.push({ oid: o.oid, size: o.size, error: { code: 422, message: 'invalid oid or size' } })
      continue
    }
    const stored = await d.store.blobSize(o.oid)
    if (stored === o.size) {
      objects.push({ oid: o.oid, size: o.size, authenticated: true })
      continue
    }
    const q = `size=${o.size}&sig=${sign(d, o.oid, o.size)}`
    objects.push({
      oid: o.oid,
      size: o.size,
      authenticated: true,
      actions: {
        upload: { href: `${d.base}/lfs-upload/${o.oid}?${q}`, expires_in: 3600 },
        verify: { href: `${d.base}/lfs-verify/${o.oid}?${q}`, expires_in: 3600 },
      },
    })
  }
  json(res, { transfer: 'basic', objects, hash_algo: 'sha256' }, 200, LFS_JSON)
}

function checkSignature(d: WriteDeps, oid: string, url: URL): number {
  const size = Number(url.searchParams.get('size'))
  const want = Buffer.from(sign(d, oid, size))
  const got = Buffer.from(url.searchParams.get('sig') ?? '')
  if (got.length !== want.length || !timingSafeEqual(got, want)) throw new HubHttpError(403, 'invalid or missing upload signature')
  return size
}

/** `PUT /lfs-upload/<sha256>?size&sig`: stores the bytes when they hash to the oid. */
export async function lfsUpload(req: IncomingMessage, res: ServerResponse, oid: string, url: URL, d: WriteDeps): Promise<void> {
  const size = checkSignature(d, oid, url)
  const bytes = await readBody(req, 4 * 1024 ** 3 - 1)
  if (bytes.length !== size) throw new HubHttpError(400, `expected ${size} bytes, received ${bytes.length}`)
  if ((await d.store.putBlob(bytes)) !== oid) throw new HubHttpError(400, 'uploaded bytes do not hash to the object id')
  res.writeHead(200, { ETag: `"${oid}"` })
  res.end()
}

export async function lfsVerify(res: ServerResponse, oid: string, url: URL, d: WriteDeps): Promise<void> {
  const size = checkSignature(d, oid, url)
  if ((await d.store.blobSize(oid)) !== size) throw new HubHttpError(404, `object ${oid} was not uploaded`)
  json(res, { oid, size }, 200, LFS_JSON)
}

type Op = {
  key: string
  value: {
    path?: string
    content?: string
    encoding?: string
    oid?: string
    algo?: string
    size?: number
    oldPath?: string
    summary?: string
    description?: string
    parentCommit?: string
  }
}

/** One line of a commit's NDJSON body; a blank line is null. */
function parseOp(line: Buffer): Op | null {
  const text = line.toString('utf8')
  if (text.trim() === '') return null
  try {
    return JSON.parse(text) as Op
  } catch {
    throw new HubHttpError(400, 'commit body is not NDJSON')
  }
}

/** As on the Hub: a file that is not stored through LFS holds at most 10 MiB. */
const REGULAR_FILE_LIMIT = 10 * 1024 * 1024

/**
 * `POST /api/datasets/<repo>/commit/<branch>`: header, file, lfsFile, deletedFile, deletedFolder. The body is
 * read a line at a time (forEachLine, within body-limit.ts's lineBounds): each inline file is stored as its line
 * arrives, and the change keeps only paths and hashes, so a commit holds one line at once, whatever its size.
 */
export async function commit(
  req: IncomingMessage,
  res: ServerResponse,
  repo: StoreRepo,
  branch: string,
  url: URL,
  d: WriteDeps,
): Promise<void> {
  if (isTrue(url.searchParams.get('create_pr'))) throw new HubHttpError(400, 'this local Hub does not open pull requests')
  const head = commitOf(repo, branch)
  // the header line makes the change; every later line adds to it
  const read: { change?: CommitChange } = {}
  await forEachLine(req, lineBounds(req, endpointLimit('commit')), async (line) => {
    const op = parseOp(line)
    if (!op) return
    if (read.change) return addOperation(op, read.change, d)
    const header = op.key === 'header' ? op.value : null
    if (!header?.summary) throw new HubHttpError(400, 'the commit needs a header with a summary')
    read.change = { title: header.summary, message: header.description ?? '', put: [], remove: [] }
    if (header.parentCommit) read.change.parent = header.parentCommit
  })
  const change = read.change
  if (!change) throw new HubHttpError(400, 'the commit needs a header with a summary')
  await trackLfs(repo, head, change, d)
  const oid = await repo.commit(branch, change)
  json(res, {
    success: true,
    commitOid: oid,
    commitUrl: `${d.base}/datasets/${repo.id}/commit/${oid}`,
    commitMessage: change.title,
    hookOutput: '',
    pullRequestUrl: null,
  })
}

/** One operation of a commit into `change`; an inline file's bytes go to the store at once. */
async function addOperation({ key, value }: Op, change: CommitChange, d: WriteDeps): Promise<void> {
  const path = value.path
  if (!safeRepoPath(path)) throw new HubHttpError(400, `invalid path: ${JSON.stringify(path)}`)
  if (value.oldPath !== undefined) throw new HubHttpError(422, 'copies and renames (oldPath) are not supported by this local Hub')
  if (key === 'file') {
    const bytes = Buffer.from(value.content ?? '', value.encoding === 'base64' ? 'base64' : 'utf8')
    if (bytes.length > REGULAR_FILE_LIMIT)
      throw new HubHttpError(
        400,
        `Your push was rejected because it contains files larger than 10 MiB. Please use https://git-lfs.github.com/ to store large files. Offending files: - ${path}`,
      )
    await d.store.putBlob(bytes)
    change.put.push({ path, file: describe(bytes, false) })
  } else if (key === 'lfsFile') {
    const oid = value.oid ?? ''
    const size = await d.store.blobSize(oid)
    if (size === null || (value.size !== undefined && value.size !== size))
      throw new HubHttpError(422, `LFS object ${oid} for ${path} was not uploaded`)
    const pointer = Buffer.from(lfsPointer(oid, size))
    change.put.push({
      path,
      file: { oid: gitBlobSha1(pointer), sha256: oid, size, lfs: true, pointerSize: pointer.length } satisfies StoredFile,
    })
  } else if (key === 'deletedFile') change.remove.push(path)
  else if (key === 'deletedFolder') change.remove.push(`${path.replace(/\/+$/, '')}/`)
  else throw new HubHttpError(400, `unknown commit operation ${JSON.stringify(key)}`)
}

/** Like the Hub, an LFS file that `.gitattributes` does not cover yet gets a line of its own. */
async function trackLfs(repo: StoreRepo, head: string, change: CommitChange, d: WriteDeps): Promise<void> {
  const uploaded = change.put.find((p) => p.path === '.gitattributes')
  let text = uploaded ? (await d.store.readBlob(uploaded.file.sha256)).toString('utf8') : await headAttributes(repo, head)
  const patterns = lfsPatterns(text)
  const missing = change.put.filter((p) => p.file.lfs && !tracksAsLfs(p.path, patterns))
  if (missing.length === 0) return
  if (text && !text.endsWith('\n')) text += '\n'
  text += missing.map((p) => `${p.path.replace(/([ *?[\]#!\\])/g, '\\$1')} filter=lfs diff=lfs merge=lfs -text\n`).join('')
  const bytes = Buffer.from(text)
  await d.store.putBlob(bytes)
  change.put = [...change.put.filter((p) => p.path !== '.gitattributes'), { path: '.gitattributes', file: describe(bytes, false) }]
}

export async function handleCreateTag(req: IncomingMessage, res: ServerResponse, repo: StoreRepo, revision: string): Promise<void> {
  const target = commitOf(repo, revision)
  const b = await readJson<{ tag?: string }>(req)
  if (typeof b.tag !== 'string' || !isRefName(b.tag)) throw new HubHttpError(400, `invalid tag name: ${JSON.stringify(b.tag)}`)
  if (Object.hasOwn(repo.refs().tags, b.tag)) throw new HubHttpError(409, `Tag reference refs/tags/${b.tag} already exists`)
  await repo.setRef('tags', b.tag, target)
  json(res, {})
}

export async function createBranch(req: IncomingMessage, res: ServerResponse, repo: StoreRepo, branch: string): Promise<void> {
  if (!isRefName(branch)) throw new HubHttpError(400, `invalid branch name: ${JSON.stringify(branch)}`)
  const b = await readJson<{ startingPoint?: string; emptyBranch?: boolean; overwrite?: boolean }>(req)
  if (b.emptyBranch) throw new HubHttpError(400, 'empty branches are not supported by this local Hub')
  if (Object.hasOwn(repo.refs().branches, branch) && !b.overwrite)
    throw new HubHttpError(409, `Reference refs/heads/${branch} already exists`)
  await repo.setRef('branches', branch, commitOf(repo, b.startingPoint ?? 'HEAD'))
  json(res, {})
}

export async function deleteRef(res: ServerResponse, repo: StoreRepo, kind: 'branches' | 'tags', name: string): Promise<void> {
  if (!Object.hasOwn(repo.refs()[kind], name)) throw new HubHttpError(404, `Invalid rev id: ${name}`, 'RevisionNotFound')
  if (kind === 'branches' && name === 'main') throw new HubHttpError(403, 'the main branch cannot be deleted')
  await repo.setRef(kind, name, null)
  json(res, {})
}
