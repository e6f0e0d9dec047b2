/**
 * A loopback HTTP proxy for fault injection, placed in front of the loopback Hub (or any HTTP
 * server): point the client at `proxy.url` and add rules. A rule matches requests by method and
 * a substring of the decoded URL, and applies `times` times (default: always).
 *
 * Request faults answer without asking upstream:
 *   `status:<code>` a JSON error with that status (with `retryAfter` / `errorCode` headers if given),
 *   `html200`       an HTML error page with status 200 (a captive portal),
 *   `hang`          no answer at all,
 *   `delay:<ms>`    forward after that long,
 *   `hold`          forward once the rule's `release()` is called: a download kept in flight until the
 *                   test has seen what it waits for (an event, not a time), then every match passes.
 * Body faults need upstream's answer, and are spent only on 200 answers with a body, so redirects
 * and the client's 1-byte Range probe (206) pass untouched:
 *   `reset`     headers and a third of the body, then a TCP reset,
 *   `truncate`  Content-Length of the whole body, half of it, then the connection is closed,
 *   `corrupt`   the same length with one byte flipped,
 *   `hang-body` headers and half the body, then nothing,
 *   `trickle:<ms>` headers, then one byte every that many ms (a link that never stalls, never finishes).
 * Redirects to upstream are rewritten to come back through the proxy (relative ones already do),
 * so LFS downloads from the /cdn-lfs/ URL can be faulted too. Every hang ends when the proxy closes.
 */
import { Agent, createServer, type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type ProxyFault =
  | `status:${number}`
  | 'html200'
  | 'hang'
  | `delay:${number}`
  | 'hold'
  | 'reset'
  | 'truncate'
  | 'corrupt'
  | 'hang-body'
  | `trickle:${number}`

export interface FaultRule {
  /** substring of the decoded request URL (path and query) */
  match: string
  /** only this method (default any) */
  method?: string
  fault: ProxyFault
  /** how many times to apply it (default unlimited) */
  times?: number
  /** Retry-After header for status faults: seconds or an HTTP date */
  retryAfter?: string
  /** X-Error-Code header for status faults (the Hub's RepoNotFound, EntryNotFound, ...) */
  errorCode?: string
}

export interface ActiveRule extends FaultRule {
  /** how many times it has been applied */
  applied: number
  /** lets the requests a `hold` rule holds through, and every later one */
  release(): void
}

export interface ProxyRequest {
  method: string
  url: string
  /** a Range header came with it */
  range: boolean
  /** an Authorization header came with it (the value is never recorded) */
  auth: boolean
  /** the fault applied, if any */
  fault?: ProxyFault
  /** the status sent (or upstream's, for body faults); absent for hangs and resets before headers */
  status?: number
  /** for `hang-body`: how many bytes of the body were sent before it stopped */
  sent?: number
}

export interface FaultProxy {
  url: string
  requests: ProxyRequest[]
  addFault(rule: FaultRule): ActiveRule
  clearFaults(): void
  close(): Promise<void>
}

const BODY_FAULTS = new Set<ProxyFault>(['reset', 'truncate', 'corrupt', 'hang-body'])
const isBodyFault = (f: ProxyFault) => BODY_FAULTS.has(f) || f.startsWith('trickle:')
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
])
export const HTML_PAGE =
  '<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head><body><h1>Please try again later</h1></body></html>\n'

const decode = (u: string) => {
  try {
    return decodeURIComponent(u)
  } catch {
    return u
  }
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const up = new URL(upstream)
  const upstreamOrigin = up.origin
  const rules: ActiveRule[] = []
  const requests: ProxyRequest[] = []
  const waits = new Set<() => void>()
  const agent = new Agent({ keepAlive: false })
  let closed = false
  let origin = ''

  /** each rule's `release()` gate, for `hold` */
  const released = new WeakMap<ActiveRule, Promise<void>>()

  /** Until `gate` resolves or the proxy closes, whichever comes first. */
  const until = (gate: Promise<void>) =>
    new Promise<void>((ok) => {
      if (closed) return ok()
      const done = () => {
        waits.delete(done)
        ok()
      }
      waits.add(done)
      void gate.then(done)
    })

  const delay = (ms: number) => {
    let t: NodeJS.Timeout | undefined
    return until(new Promise<void>((ok) => (t = setTimeout(ok, ms)))).finally(() => clearTimeout(t))
  }

  const take = (req: IncomingMessage, body: boolean): ActiveRule | undefined => {
    const url = decode(req.url ?? '/')
    const rule = rules.find(
      (r) =>
        (r.times === undefined || r.applied < r.times) &&
        isBodyFault(r.fault) === body &&
        (!r.method || r.method === req.method) &&
        url.includes(r.match),
    )
    if (rule) rule.applied++
    return rule
  }

  function forward(req: IncomingMessage, reqBody: Buffer): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    const headers: Record<string, string | string[]> = {}
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k) && k !== 'host') headers[k] = v
    headers.host = up.host
    if (reqBody.length > 0) headers['content-length'] = String(reqBody.length)
    return new Promise((ok, ko) => {
      const out = request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers, agent }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => ok({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }))
        res.on('error', ko)
      })
      out.on('error', ko)
      out.end(reqBody)
    })
  }

  function respondHeaders(res: ServerResponse, status: number, upHeaders: IncomingHttpHeaders, length: number): void {
    const h: Record<string, string | string[]> = {}
    for (const [k, v] of Object.entries(upHeaders)) if (v !== undefined && !HOP_BY_HOP.has(k)) h[k] = v
    const loc = h.location
    if (typeof loc === 'string' && loc.startsWith(upstreamOrigin)) h.location = origin + loc.slice(upstreamOrigin.length)
    h['content-length'] = String(length)
    res.writeHead(status, h)
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rec: ProxyRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      range: req.headers.range !== undefined,
      auth: req.headers.authorization !== undefined,
    }
    requests.push(rec)
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)

    const now = take(req, false)
    if (now) {
      rec.fault = now.fault
      if (now.fault === 'hang') return // answered never; the socket closes with the proxy or the client
      if (now.fault === 'html200') {
        rec.status = 200
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(HTML_PAGE) })
        return void res.end(HTML_PAGE)
      }
      if (now.fault.startsWith('status:')) {
        const status = Number(now.fault.slice(7))
        const body = JSON.stringify({ error: `injected fault ${now.fault}` })
        rec.status = status
        res.writeHead(status, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(body),
          ...(now.retryAfter !== undefined ? { 'Retry-After': now.retryAfter } : {}),
          ...(now.errorCode !== undefined ? { 'X-Error-Code': now.errorCode } : {}),
        })
        return void res.end(body)
      }
      await (now.fault === 'hold' ? until(released.get(now)!) : delay(Number(now.fault.slice(6))))
      if (closed) return void res.destroy()
    }

    const answer = await forward(req, Buffer.concat(chunks))
    rec.status = answer.status
    const late = answer.status === 200 && answer.body.length > 0 && req.method !== 'HEAD' ? take(req, true) : undefined
    const body = answer.body
    if (!late) {
      respondHeaders(res, answer.status, answer.headers, body.length)
      return void res.end(body)
    }
    rec.fault = late.fault
    respondHeaders(res, answer.status, answer.headers, body.length)
    if (late.fault === 'corrupt') {
      const bad = Buffer.from(body)
      bad[bad.length >> 1]! ^= 0xff
      return void res.end(bad)
    }
    if (late.fault === 'truncate') return void res.write(body.subarray(0, body.length >> 1), () => res.socket?.end())
    if (late.fault === 'reset') return void res.write(body.subarray(0, Math.floor(body.length / 3)), () => res.socket?.resetAndDestroy())
    if (late.fault.startsWith('trickle:')) {
      const every = Number(late.fault.slice(8))
      let t: NodeJS.Timeout | undefined
      res.once('close', () => clearTimeout(t))
      const drip = (i: number): void => {
        if (closed || i >= body.length || res.destroyed) return void res.end()
        res.write(body.subarray(i, i + 1))
        t = setTimeout(() => drip(i + 1), every)
      }
      return drip(0)
    }
    rec.sent = body.length >> 1
    res.write(body.subarray(0, rec.sent)) // hang-body: the rest never comes
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent || closed) return void res.destroy()
      res.writeHead(502, { 'Content-Type': 'text/plain' })
      res.end(`fault proxy: upstream failed: ${e instanceof Error ? e.message : String(e)}`)
    })
  })
  await new Promise<void>((ok, ko) => {
    server.once('error', ko)
    server.listen(0, '127.0.0.1', () => ok())
  })
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url: origin,
    requests,
    addFault(rule) {
      let open!: () => void
      const gate = new Promise<void>((ok) => (open = ok))
      const active: ActiveRule = { ...rule, applied: 0, release: () => open() }
      released.set(active, gate)
      rules.push(active)
      return active
    },
    clearFaults() {
      rules.length = 0
    },
    close() {
      closed = true
      for (const done of [...waits]) done()
      server.closeAllConnections()
      agent.destroy()
      return new Promise((ok) => server.close(() => ok()))
    },
  }
}
