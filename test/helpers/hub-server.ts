/**
 * A loopback stand-in for the Hugging Face Hub, serving a folder laid out as
 * `<root>/datasets/<owner>/<name>/<path in repo>` (like /work/shared/hub-mirror).
 * It speaks what @huggingface/hub's pathsInfo, datasetInfo, listFiles and
 * downloadFile use; `.parquet` files are treated as LFS, as on the real Hub.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile, stat } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'

/** 'status:<code>' answers with that status; 'reset' drops the connection; 'truncate' and
 * 'corrupt' apply to full (non-Range) file bodies only: half the body then a dropped
 * connection, or the same length with one byte flipped. */
export type FaultKind = `status:${number}` | 'reset' | 'truncate' | 'corrupt'

export interface HubRequest {
  method: string
  url: string
  /** whether an Authorization header came with it (the value is never recorded) */
  auth: boolean
}

export interface HubServerOptions {
  root: string
  /** when set, every API/resolve request must carry `Bearer <token>`, else 401 */
  token?: string
  /** redirect LFS resolves to a /cdn-lfs/ URL, as the Hub does (default true) */
  redirectLfs?: boolean
}

export interface HubServer {
  url: string
  requests: HubRequest[]
  /** a fault for requests whose decoded URL contains `match`; `times` defaults to unlimited */
  setFault(match: string, kind: FaultKind, times?: number): void
  clearFaults(): void
  close(): Promise<void>
}

interface Fault { match: string; kind: FaultKind; left: number }
interface FileInfo { abs: string; size: number; sha1: string; sha256: string; lfs: boolean; pointerOid: string; pointerSize: number }

const gitSha1 = (b: Uint8Array) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex')
const hex = (algo: string, s: string) => createHash(algo).update(s).digest('hex')
const isCommit = (s: string) => /^[0-9a-f]{40}$/.test(s)

export async function startHubServer(options: HubServerOptions): Promise<HubServer> {
  const requests: HubRequest[] = []
  const faults: Fault[] = []
  const hashes = new Map<string, { key: string; info: FileInfo }>()

  async function fileInfo(abs: string): Promise<FileInfo | null> {
    const st = await stat(abs).catch(() => null)
    if (!st?.isFile()) return null
    const key = `${st.mtimeMs}:${st.size}`
    const hit = hashes.get(abs)
    if (hit?.key === key) return hit.info
    const bytes = await readFile(abs)
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256}\nsize ${bytes.length}\n`
    const info: FileInfo = {
      abs, size: bytes.length, sha1: gitSha1(bytes), sha256, lfs: abs.endsWith('.parquet'),
      pointerOid: gitSha1(Buffer.from(pointer)), pointerSize: pointer.length,
    }
    hashes.set(abs, { key, info })
    return info
  }

  const entry = (path: string, f: FileInfo) => ({
    type: 'file', path, size: f.size,
    oid: f.lfs ? f.pointerOid : f.sha1,
    ...(f.lfs ? { lfs: { oid: f.sha256, size: f.size, pointerSize: f.pointerSize } } : {}),
  })

  async function listTree(repoDir: string, dir: string, recursive: boolean): Promise<object[]> {
    const dirents = await readdir(join(repoDir, dir), { withFileTypes: true }).catch(() => null)
    if (!dirents) return []
    const out: object[] = []
    for (const d of dirents.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = dir ? `${dir}/${d.name}` : d.name
      if (d.isDirectory()) {
        out.push({ type: 'directory', path: p, size: 0, oid: hex('sha1', `tree:${p}`) })
        if (recursive) out.push(...(await listTree(repoDir, p, true)))
      } else {
        const f = await fileInfo(join(repoDir, p))
        if (f) out.push(entry(p, f))
      }
    }
    return out
  }

  function fail(res: ServerResponse, status: number, error: string, code?: string): void {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...(code ? { 'X-Error-Code': code } : {}) })
    res.end(JSON.stringify({ error }))
  }

  function json(res: ServerResponse, body: unknown): void {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' })
    res.end(JSON.stringify(body))
  }

  async function readBody(req: IncomingMessage): Promise<{ paths: string[]; expand: boolean }> {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    if ((req.headers['content-type'] ?? '').includes('json')) {
      const b = JSON.parse(text) as { paths?: string[] | string; expand?: boolean }
      return { paths: ([] as string[]).concat(b.paths ?? []), expand: !!b.expand }
    }
    const f = new URLSearchParams(text) // Python huggingface_hub posts form data
    return { paths: f.getAll('paths'), expand: f.get('expand') === 'true' || f.get('expand') === 'True' }
  }

  function sendFile(req: IncomingMessage, res: ServerResponse, f: FileInfo, headers: Record<string, string>, pending?: Fault): void {
    void readFile(f.abs).then((all) => {
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
    })
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const method = req.method ?? 'GET'
    requests.push({ method, url: req.url ?? '', auth: req.headers.authorization !== undefined })
    let seg: string[]
    try {
      seg = url.pathname.split('/').slice(1).map(decodeURIComponent)
    } catch {
      return fail(res, 400, 'Bad URL encoding')
    }
    if (seg.some((s) => s === '..' || s === '.')) return fail(res, 400, 'Invalid path')

    const decoded = seg.join('/')
    const fault = faults.find((f) => f.left > 0 && decoded.includes(f.match))
    let bodyFault: Fault | undefined
    if (fault?.kind === 'reset' || fault?.kind.startsWith('status:')) {
      fault.left--
      if (fault.kind === 'reset') return void req.socket.destroy()
      return fail(res, Number(fault.kind.slice(7)), `injected fault ${fault.kind}`)
    }
    if (fault) bodyFault = fault

    const isApi = seg[0] === 'api' && seg[1] === 'datasets'
    const isResolve = seg[0] === 'datasets' && seg[3] === 'resolve'
    const isCdn = seg[0] === 'cdn-lfs'
    if (!isApi && !isResolve && !isCdn) return fail(res, 404, 'Sorry, we can\'t find the page you are looking for.')
    if (options.token && !isCdn && req.headers.authorization !== `Bearer ${options.token}`) {
      return fail(res, 401, 'Invalid credentials in Authorization header')
    }

    const [owner = '', name = ''] = isApi ? seg.slice(2, 4) : seg.slice(1, 3)
    const repoDir = join(options.root, 'datasets', owner, name)
    if (!owner || !name || !(await stat(repoDir).catch(() => null))?.isDirectory()) {
      return fail(res, 404, 'Repository not found', 'RepoNotFound')
    }
    const revision = (isApi ? seg[5] : isResolve ? seg[4] : seg[3]) ?? ''
    if (revision !== 'main' && !isCommit(revision)) return fail(res, 404, `Invalid rev id: ${revision}`, 'RevisionNotFound')
    const commit = revision === 'main' ? hex('sha1', `commit:${owner}/${name}`) : revision
    const rest = seg.slice(isApi ? 6 : isResolve ? 5 : 4).join('/')

    if (isApi && seg[4] === 'paths-info' && method === 'POST') {
      const body = await readBody(req)
      const out: object[] = []
      for (const p of body.paths) {
        const f = await fileInfo(join(repoDir, p))
        const extra = body.expand ? { lastCommit: { id: commit, title: 'fake commit', date: '2024-01-01T00:00:00.000Z' }, securityFileStatus: { status: 'safe' } } : {}
        if (f) out.push({ ...entry(p, f), ...extra })
        else if ((await stat(join(repoDir, p)).catch(() => null))?.isDirectory()) out.push({ type: 'directory', path: p, size: 0, oid: hex('sha1', `tree:${p}`), ...extra })
      }
      return json(res, out)
    }
    if (isApi && seg[4] === 'revision' && method === 'GET') {
      const files = (await listTree(repoDir, '', true)) as Array<{ type: string; path: string }>
      return json(res, {
        _id: hex('sha1', `${owner}/${name}`).slice(0, 24), id: `${owner}/${name}`, author: owner, sha: commit,
        private: false, gated: false, disabled: false, downloads: 0, likes: 0, tags: [],
        lastModified: '2024-01-01T00:00:00.000Z',
        siblings: files.filter((f) => f.type === 'file').map((f) => ({ rfilename: f.path })),
      })
    }
    if (isApi && seg[4] === 'tree' && method === 'GET') {
      if (rest && !(await stat(join(repoDir, rest)).catch(() => null))?.isDirectory()) {
        return fail(res, 404, `Entry not found: ${rest}`, 'EntryNotFound')
      }
      return json(res, await listTree(repoDir, rest, url.searchParams.get('recursive') === 'true'))
    }
    if ((isResolve || isCdn) && (method === 'GET' || method === 'HEAD')) {
      const f = await fileInfo(join(repoDir, rest))
      if (!f) return fail(res, 404, 'Entry not found', 'EntryNotFound')
      if (isCdn) return sendFile(req, res, f, { ETag: `"${f.sha256}"` }, bodyFault)
      const common = { 'X-Repo-Commit': commit }
      if (!f.lfs) return sendFile(req, res, f, { ...common, ETag: `"${f.sha1}"` }, bodyFault)
      const linked = { ...common, 'X-Linked-Etag': `"${f.sha256}"`, 'X-Linked-Size': String(f.size) }
      if (options.redirectLfs === false) return sendFile(req, res, f, { ...linked, ETag: `"${f.sha256}"` }, bodyFault)
      const loc = `/cdn-lfs/${[owner, name, commit, ...rest.split('/')].map(encodeURIComponent).join('/')}`
      res.writeHead(302, { ...linked, ETag: `"${f.pointerOid}"`, Location: loc, 'Content-Length': '0' })
      return void res.end()
    }
    return fail(res, 404, 'Not found')
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) fail(res, 500, `internal error: ${e instanceof Error ? e.message : String(e)}`)
      else res.destroy()
    })
  })
  await new Promise<void>((ok, ko) => {
    server.once('error', ko)
    server.listen(0, '127.0.0.1', () => ok())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
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
