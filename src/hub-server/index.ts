/**
 * A local stand-in for the Hugging Face Hub on the loopback interface. It serves
 * read-only dataset repos from a mirror folder and writable repos created
 * through the API (in memory, or in a store folder), to @huggingface/hub and to
 * Python's huggingface_hub alike, pointed at it with HF_ENDPOINT.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { JevError } from '../errors.ts'
import { isHubNamePart } from '../util/repo-name.ts'
import { BodyBudget, bindBody, endpointLimit } from './body-limit.ts'
import { validateYaml } from './card.ts'
import { isOwnOrigin, loopbackHost } from './host.ts'
import { type Fault, type FaultKind, fail, isTrue, json } from './http.ts'
import { HubHttpError } from './http-error.ts'
import { findMirrorRepo, MirrorHashes } from './mirror.ts'
import * as read from './read.ts'
import type { RepoView } from './repo.ts'
import { Store, StoreRepo } from './store.ts'
import * as write from './write.ts'

export type { FaultKind } from './http.ts'

export interface HubRequest {
  method: string
  url: string
  /** whether an Authorization header came with it (the value is never recorded) */
  auth: boolean
}

export interface HubServerOptions {
  /** mirror folder: `<root>/datasets/<owner>/<name>/<path>`, served read-only */
  root?: string
  /** folder that keeps writable repos across restarts; in memory when absent */
  store?: string
  /** when set, every API/resolve request must carry `Bearer <token>`, else 401 */
  token?: string
  /** redirect LFS resolves to a /cdn-lfs/ URL, as the Hub does (default true) */
  redirectLfs?: boolean
  /** loopback only: 127.0.0.1 (default), ::1 or localhost */
  host?: string
  /** default 0: any free port */
  port?: number
  /** from this size on, uploads go through LFS (default 10 MiB, as on the Hub) */
  lfsThreshold?: number
  /** request bodies held in memory at once, across requests (default 1 GiB); past it, 503 */
  maxBodyBytesInFlight?: number
  /** called with each request as it arrives (serve-hub --log) */
  onRequest?: (r: HubRequest) => void
}

export interface HubServer {
  url: string
  requests: HubRequest[]
  /** a fault for requests whose decoded URL contains `match`; `times` defaults to unlimited */
  setFault(match: string, kind: FaultKind, times?: number): void
  clearFaults(): void
  close(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost'])
const READ_POSTS = new Set(['paths-info'])

/** Requests that change, or ask to change, state — what a dry run or a refused publish must never send. */
export function isWriteRequest(r: HubRequest): boolean {
  if (r.method === 'GET' || r.method === 'HEAD') return false
  const seg = r.url.split('?')[0]!.split('/')
  if (seg[1] === 'api' && seg[2] === 'validate-yaml' && seg.length === 3) return false
  return !(seg[1] === 'api' && seg[2] === 'datasets' && READ_POSTS.has(seg[5] ?? ''))
}

export async function startHubServer(options: HubServerOptions): Promise<HubServer> {
  const host = options.host ?? '127.0.0.1'
  if (!LOOPBACK.has(host))
    throw new JevError(
      'USAGE',
      `refusing to listen on ${host}: the local Hub binds to the loopback interface only (127.0.0.1, ::1, localhost)`,
      { usage: null, hint: 'leave --host out (127.0.0.1), or give ::1 or localhost' },
    )
  const requests: HubRequest[] = []
  const faults: Fault[] = []
  const hashes = new MirrorHashes()
  const store = await Store.open(options.store)
  const secret = randomBytes(32)
  let port = 0
  const bodies = new BodyBudget(options.maxBodyBytesInFlight ?? 1024 ** 3)

  async function findRepo(owner: string, name: string): Promise<RepoView | null> {
    return store.repo(`${owner}/${name}`) ?? (await findMirrorRepo(options.root, owner, name, hashes))
  }

  function writable(view: RepoView): StoreRepo {
    if (view instanceof StoreRepo) return view
    throw new HubHttpError(403, `${view.id} is a read-only mirror repo on this local Hub`)
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const method = req.method ?? 'GET'
    const auth = req.headers.authorization
    const entry = { method, url: req.url ?? '', auth: auth !== undefined }
    requests.push(entry)
    options.onRequest?.(entry)
    // Only this server's own loopback name is answered, so a rebound foreign name reaches nothing.
    const ownHost = loopbackHost(req.headers.host, port)
    if (!ownHost) return fail(res, 421, 'this local Hub answers only a loopback Host (localhost, 127.0.0.1, [::1]) with its own port')
    let seg: string[]
    try {
      seg = url.pathname.split('/').slice(1).map(decodeURIComponent)
    } catch {
      return fail(res, 400, 'Bad URL encoding')
    }
    // a decoded %2F can hide a .. inside one segment
    if (seg.some((s) => s.split(/[/\\]/).some((p) => p === '..' || p === '.'))) return fail(res, 400, 'Invalid path')

    const decoded = seg.join('/')
    const fault = faults.find((f) => f.left > 0 && decoded.includes(f.match))
    if (fault?.kind === 'reset' || fault?.kind.startsWith('status:')) {
      fault.left--
      if (fault.kind === 'reset') return void req.socket.destroy()
      return fail(res, Number(fault.kind.slice(7)), `injected fault ${fault.kind}`)
    }
    const bodyFault = fault

    const isApi = seg[0] === 'api' && seg[1] === 'datasets'
    const isResolve = seg[0] === 'datasets' && seg[3] === 'resolve'
    const isLfsBatch = seg[0] === 'datasets' && seg[2]?.endsWith('.git') && seg.slice(3).join('/') === 'info/lfs/objects/batch'
    const isCdn = seg[0] === 'cdn-lfs'
    const isLfsObject = (seg[0] === 'lfs-upload' || seg[0] === 'lfs-verify') && seg.length === 2
    const isCreate = decoded === 'api/repos/create'
    const isWhoami = decoded === 'api/whoami-v2'
    const isValidate = decoded === 'api/validate-yaml'
    if (!isApi && !isResolve && !isLfsBatch && !isCdn && !isLfsObject && !isCreate && !isWhoami && !isValidate)
      return fail(res, 404, "Sorry, we can't find the page you are looking for.")
    // before any wait, so a body's room is taken in the order requests arrive
    const route = isValidate ? 'validate' : seg[0] === 'lfs-upload' ? 'lfs-upload' : isApi && seg[4] === 'commit' ? 'commit' : 'other'
    const refused = bindBody(req, res, endpointLimit(route), bodies, route === 'commit')
    if (refused) return failWith(res, refused)
    // CDN and LFS object URLs are presigned, as on the Hub: no Authorization header there, a signature instead.
    if (options.token && !isCdn && !isLfsObject && auth !== `Bearer ${options.token}`)
      return fail(res, 401, 'Invalid credentials in Authorization header')

    const base = `http://${ownHost}`
    const deps: write.WriteDeps = {
      store,
      secret,
      base,
      lfsThreshold: options.lfsThreshold ?? 10 * 1024 * 1024,
      inMirror: async (o, n) => (await findMirrorRepo(options.root, o, n, hashes)) !== null,
    }
    const isWrite = isCreate || isLfsBatch || (isApi && method !== 'GET' && seg[4] !== 'paths-info')
    const origin = req.headers.origin
    if ((isWrite || isLfsObject) && origin !== undefined && !isOwnOrigin(origin, port))
      return fail(res, 403, 'writes from another origin are refused by this local Hub')
    if ((isWrite || isWhoami) && !auth?.startsWith('Bearer hf_'))
      return fail(res, 401, 'Authorization header with a token (Bearer hf_…) is required')

    if (isWhoami)
      return json(res, {
        type: 'user',
        id: '0'.repeat(24),
        name: 'local',
        fullname: 'local Hub user',
        orgs: [],
        auth: { type: 'access_token', accessToken: { displayName: 'local', role: 'write' } },
      })
    if (isValidate) return method === 'POST' ? validateYaml(req, res) : fail(res, 405, 'Method not allowed')
    if (isCreate && method === 'POST') return write.createRepo(req, res, deps)
    if (isLfsObject && seg[0] === 'lfs-upload' && method === 'PUT') return write.lfsUpload(req, res, seg[1]!, url, deps)
    if (isLfsObject && seg[0] === 'lfs-verify' && method === 'POST') return write.lfsVerify(res, seg[1]!, url, deps)

    const [owner = '', rawName = ''] = isApi ? seg.slice(2, 4) : seg.slice(1, 3)
    const name = isLfsBatch ? rawName.slice(0, -4) : rawName
    // a decoded %2F must not turn one segment into a path out of the mirror
    const view = isHubNamePart(owner) && isHubNamePart(name) ? await findRepo(owner, name) : null
    if (isCdn) {
      if (!view || !read.validCdnSignature(secret, view.id, seg[3] ?? '', seg.slice(4).join('/'), url))
        return fail(res, 403, 'Request has expired or the signature does not match')
      if (method === 'GET' || method === 'HEAD') return read.cdnFile(req, res, view, seg[3] ?? '', seg.slice(4).join('/'), bodyFault)
      return fail(res, 404, 'Not found')
    }
    // A private repo is not there for a request without credentials, as on the Hub.
    if (!view || (view.private && !auth)) return fail(res, view ? 401 : 404, 'Repository not found', 'RepoNotFound')

    if (isLfsBatch && method === 'POST') return write.lfsBatch(req, res, deps)
    if (isResolve && (method === 'GET' || method === 'HEAD'))
      return read.resolveFile(req, res, view, seg[4] ?? '', seg.slice(5).join('/'), {
        redirectLfs: options.redirectLfs !== false,
        fault: bodyFault,
        secret,
        base,
      })
    if (!isApi) return fail(res, 404, 'Not found')

    const op = seg[4]
    const rev = seg[5] ?? ''
    const rest = seg.slice(6).join('/')
    const flag = (name: string) => isTrue(url.searchParams.get(name))
    if (op === undefined && method === 'GET') return read.repoInfo(res, view, 'HEAD', flag('blobs'))
    if (op === 'revision' && method === 'GET') return read.repoInfo(res, view, rev, flag('blobs'))
    if (op === 'tree' && method === 'GET') return read.tree(res, view, rev, rest, { recursive: flag('recursive'), expand: flag('expand') })
    if (op === 'paths-info' && method === 'POST') return read.pathsInfo(req, res, view, rev)
    if (op === 'refs' && method === 'GET') return read.refs(res, view)
    if (op === 'commits' && method === 'GET') return read.commits(res, view, rev)
    if (op === 'preupload' && method === 'POST') return write.preupload(req, res, writable(view), rev, deps)
    if (op === 'commit' && method === 'POST') return write.commit(req, res, writable(view), rev, url, deps)
    if (op === 'tag' && method === 'POST') return write.handleCreateTag(req, res, writable(view), rev)
    if (op === 'tag' && method === 'DELETE') return write.deleteRef(res, writable(view), 'tags', rev)
    if (op === 'branch' && method === 'POST') return write.createBranch(req, res, writable(view), rev)
    if (op === 'branch' && method === 'DELETE') return write.deleteRef(res, writable(view), 'branches', rev)
    return fail(res, 404, 'Not found')
  }

  function failWith(res: ServerResponse, e: HubHttpError): void {
    if (e.status === 503) res.setHeader('Retry-After', '1')
    fail(res, e.status, e.message, e.errorCode)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent) return void res.destroy()
      if (e instanceof HubHttpError) return failWith(res, e)
      fail(res, 500, `internal error: ${e instanceof Error ? e.message : String(e)}`)
    })
  })
  await new Promise<void>((ok, ko) => {
    server.once('error', ko)
    server.listen(options.port ?? 0, host, () => ok())
  })
  const address = server.address() as AddressInfo
  port = address.port
  const family = address.family

  return {
    url: `http://${family === 'IPv6' ? '[::1]' : '127.0.0.1'}:${port}`,
    requests,
    setFault(match, kind, times = Infinity) {
      faults.push({ match, kind, left: times })
    },
    clearFaults() {
      faults.length = 0
    },
    close() {
      server.closeAllConnections()
      return new Promise((ok) => server.close(() => ok()))
    },
  }
}
