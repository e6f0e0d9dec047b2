/**
 * One bounded attempt at a request: a fetch wrapper with a per-request timeout re-armed on
 * every chunk, a minimum rate, the caller's deadline, and the whole body read before the
 * caller sees it (so a cut, stalled or HTML body fails the request that caused it).
 * retry.ts decides whether to try again.
 */
import { type NetBounds, settingOf } from './bounds.ts'

export type Fetch = typeof globalThis.fetch

/** The time one file (or one publish request) may take in all, attempts and waits included; real time. */
export class Deadline {
  private readonly start = performance.now()
  private excluded = 0
  constructor(readonly ms: number) {}
  left(): number {
    return this.ms + this.excluded - (performance.now() - this.start)
  }
  /** Time spent on something else (waiting for another build's download lock, which has its own bound) does not count. */
  exclude(ms: number): void {
    this.excluded += ms
  }
}

/** A failure a second attempt may fix: the connection or the bytes, not the request itself. */
export class TransientError extends Error {
  readonly code: 'NETWORK' | 'INTEGRITY'
  readonly detail: Record<string, unknown>
  constructor(code: 'NETWORK' | 'INTEGRITY', message: string, detail: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'TransientError'
    this.code = code
    this.detail = detail
  }
}

/** What the last response of an attempt said; the client's HubApiError keeps no headers. */
export interface ResponseNote {
  status: number
  retryAfter: string | null
  /** the Hub's X-Error-Code: RepoNotFound, RevisionNotFound, EntryNotFound, GatedRepo, ... */
  errorCode: string | null
}

const NULL_BODY = new Set([101, 204, 205, 304])

const describeCause = (e: unknown): string => {
  if (!(e instanceof Error)) return String(e)
  const c = e.cause as (Error & { code?: string }) | undefined
  return c instanceof Error ? `${e.message} (${c.code ?? c.message})` : e.message
}

export interface GuardOptions extends Partial<Pick<NetBounds, 'minRate' | 'rateWindowMs'>> {
  timeoutMs: number
  deadline?: Deadline
  /** the file asked for is itself HTML, so an HTML answer is no error page */
  htmlExpected?: boolean
  onResponse?: (note: ResponseNote) => void
  /** watches a response's body as it arrives (a download's progress); undefined: not this one */
  onBody?: BodyWatcher
}

/** Given a response and its request, what to tell of each chunk of its body and of its end, if anything. */
export type BodyWatcher = (res: Response, init: RequestInit | undefined) => { chunk(bytes: number): void; end(): void } | undefined

/** A request body's size, when it is known before sending (publish uploads). */
function bodySize(body: unknown): number {
  if (typeof body === 'string') return Buffer.byteLength(body)
  if (body instanceof Blob) return body.size
  if (ArrayBuffer.isView(body) || body instanceof ArrayBuffer) return body.byteLength
  return 0
}

/**
 * Wraps fetch for the Hub client. The whole body is read here, under a timeout re-armed on every
 * chunk, a minimum rate over a window (curl's --speed-limit/--speed-time: a trickle re-arms the
 * timeout forever) and the caller's deadline, and handed back as a fresh Response: the client
 * never sees a body that can hang or break later, and e.g. the 1-byte Range probe, whose body
 * the client never reads, is still checked.
 */
export function guardedFetch(base: Fetch, opts: GuardOptions): Fetch {
  return async (input, init) => {
    const ctl = new AbortController()
    let why: 'stall' | 'slow' | 'deadline' | null = null
    const stop = (reason: typeof why) => {
      why ??= reason
      ctl.abort()
    }
    let timer: NodeJS.Timeout | undefined
    const arm = (ms: number) => {
      clearTimeout(timer)
      timer = setTimeout(() => stop('stall'), ms)
    }
    const left = opts.deadline?.left() ?? Infinity
    if (left <= 0) throw deadlineError(opts.deadline!)
    const deadlineTimer = Number.isFinite(left) ? setTimeout(() => stop('deadline'), left) : undefined
    let rateTimer: NodeJS.Timeout | undefined
    const outer = init?.signal ?? undefined
    const onOuter = () => ctl.abort(outer?.reason)
    outer?.addEventListener('abort', onOuter, { once: true })
    const ours = () => why !== null && !outer?.aborted
    const minRate = opts.minRate ?? 0
    const windowMs = opts.rateWindowMs ?? 0
    // an upload is sent before any answer can come: its time at the minimum rate is allowed on top
    const headersMs = Math.round(opts.timeoutMs + (minRate > 0 ? (bodySize(init?.body) / minRate) * 1000 : 0))
    arm(headersMs)
    const failure = (received: number, of: string, status: number) =>
      why === 'deadline'
        ? deadlineError(opts.deadline!)
        : why === 'slow'
          ? new TransientError(
              'NETWORK',
              `the response body came at under ${minRate} bytes/s over ${windowMs / 1000} s (${received}${of} bytes, HTTP ${status})`,
              { status, timeout: true, slow: true },
            )
          : new TransientError(
              'NETWORK',
              `the response body stalled for ${opts.timeoutMs} ms after ${received}${of} bytes (HTTP ${status})`,
              { status, timeout: true },
            )
    try {
      let res: Response
      try {
        res = await base(input, { ...init, signal: ctl.signal })
      } catch (e) {
        if (ours())
          throw why === 'deadline'
            ? deadlineError(opts.deadline!)
            : new TransientError('NETWORK', `no response within ${headersMs} ms`, { timeout: true })
        if (outer?.aborted || !isNetworkFailure(e)) throw e
        throw new TransientError(
          'NETWORK',
          `connection failed: ${describeCause(e)}`,
          isUnreachable(e) ? { unreachable: true, hint: UNREACHABLE_HINT } : {},
          { cause: e },
        )
      }
      const note: ResponseNote = {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        errorCode: res.headers.get('x-error-code'),
      }
      opts.onResponse?.(note)

      const declared = Number(res.headers.get('content-length') ?? NaN)
      const chunks: Uint8Array[] = []
      let received = 0
      if (res.body) {
        if (minRate > 0 && windowMs > 0) {
          let mark = 0
          rateTimer = setInterval(() => {
            if (received - mark < (minRate * windowMs) / 1000) stop('slow')
            mark = received
          }, windowMs)
        }
        const reader = res.body.getReader()
        const watch = opts.onBody?.(res, init)
        try {
          for (;;) {
            arm(opts.timeoutMs)
            const { done, value } = await reader.read()
            if (done) break
            chunks.push(value)
            received += value.length
            watch?.chunk(value.length)
          }
        } catch (e) {
          const of = Number.isFinite(declared) ? ` of ${declared}` : ''
          if (ours()) throw failure(received, of, res.status)
          if (outer?.aborted) throw e
          const what = Number.isFinite(declared) && received < declared ? 'the response was cut short' : 'the connection broke'
          throw new TransientError(
            'NETWORK',
            `${what} after ${received}${of} bytes (HTTP ${res.status}): ${describeCause(e)}`,
            { status: res.status },
            { cause: e },
          )
        } finally {
          watch?.end()
        }
      }
      const type = res.headers.get('content-type') ?? ''
      if (res.ok && !opts.htmlExpected && /^\s*text\/html\b/i.test(type)) {
        // A captive portal or a proxy's error page, dressed as success: never data, never JSON.
        throw new TransientError(
          'NETWORK',
          `got an HTML page with HTTP ${res.status} instead of the Hub's answer (a proxy or captive portal in between?)`,
          { status: res.status, html: true },
        )
      }
      const body = NULL_BODY.has(res.status) || !res.body ? null : Buffer.concat(chunks)
      const copy = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
      // The client reads resp.url after redirects (the CDN URL it then downloads from).
      Object.defineProperty(copy, 'url', { value: res.url })
      Object.defineProperty(copy, 'redirected', { value: res.redirected })
      return copy
    } finally {
      clearTimeout(timer)
      clearTimeout(deadlineTimer)
      clearInterval(rateTimer)
      outer?.removeEventListener('abort', onOuter)
    }
  }
}

/** One guarded attempt per call under its own deadline, for requests that are not retried (publishing's). */
export function boundedFetch(base: Fetch, b: NetBounds): Fetch {
  return (input, init) => guardedFetch(base, { ...b, deadline: new Deadline(b.fileDeadlineMs) })(input, init)
}

/** Not retried: the time for this file is up. */
export function deadlineError(d: Deadline): TransientError {
  return new TransientError(
    'NETWORK',
    `gave up after ${d.ms / 1000} s, the limit for one file or request (${settingOf('fileDeadlineMs')} to allow longer)`,
    { timeout: true, deadline: true },
  )
}

/**
 * A failure on the wire carries a system or undici code (ECONNREFUSED,
 * UND_ERR_SOCKET, …). A request that could not be made at all — a URL with no
 * http scheme, a header value with a newline — has none, and fails the same way
 * every time, so it is not retried.
 */
export function isNetworkFailure(e: unknown): boolean {
  const code = (e as { cause?: { code?: unknown } } | null)?.cause?.code
  return !(e instanceof TypeError) || (typeof code === 'string' && code !== 'ERR_INVALID_URL')
}

/**
 * No such host, or nothing listening: the request cannot be made at all, and a
 * retry seconds later would fail the same way, so it fails at once (as publishing does).
 */
export function isUnreachable(e: unknown): boolean {
  const code = (e as { cause?: { code?: unknown } } | null)?.cause?.code
  return code === 'ENOTFOUND' || code === 'ECONNREFUSED'
}

export const UNREACHABLE_HINT =
  'no Hub answers at that address: check the network or HF_ENDPOINT; without network, build from a local folder with --mirror DIR, or serve one with npm run serve-hub and point HF_ENDPOINT at it'
