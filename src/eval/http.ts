/**
 * One POST to a model server, bounded: one deadline per attempt that covers the headers and the
 * whole body, a cap on the body's size, and retries with backoff (the builder's, fetch/retry.ts)
 * for 408, 429, 5xx, a dropped connection or a body that is not JSON.
 */
import { randomInt } from 'node:crypto'
import { JevError } from '../errors.ts'
import { backoffMs, isRetryableStatus, parseRetryAfter } from '../fetch/retry.ts'
import { readCapped } from '../util/read-capped.ts'

export interface PostOptions {
  /** the authorization header's value; never in a message */
  authorization?: string | undefined
  /** the URL as messages show it (no credentials) */
  shownUrl: string
  timeoutMs: number
  /** extra attempts after the first */
  retries: number
  /** the longest Retry-After waited out */
  maxRetryAfterMs: number
  /** the most bytes an answer's body may have */
  maxBytes: number
  /** aborted when the run has failed elsewhere: the request and any wait end at once */
  signal?: AbortSignal | undefined
  onRetry?: (why: string, attempt: number, of: number) => void
}

export interface PostResult {
  status: number
  /** the parsed body of a 2xx answer; undefined for other statuses */
  json: unknown
  /** the time the successful attempt took */
  ms: number
}

/** Thrown when the run's signal ends a request: another request's failure is the one reported. */
export class Cancelled extends Error {
  constructor() {
    super('cancelled: the run failed elsewhere')
    this.name = 'Cancelled'
  }
}

/** The default cap on an answer's body: an answer to one question needs a few kilobytes. */
export const DEFAULT_MAX_ANSWER_BYTES = 4 * 1024 * 1024

const jitter = () => randomInt(2 ** 32) / 2 ** 32

class Deadline extends Error {}
class TooLarge extends Error {}

interface Answer {
  status: number
  retryAfter: string | null
  text: string | null
}

/** A wait that ends early, with Cancelled, when `signal` aborts. */
function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((ok, ko) => {
    if (signal?.aborted) return ko(new Cancelled())
    const onAbort = () => {
      clearTimeout(timer)
      ko(new Cancelled())
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      ok()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** The body as text within the cap; TooLarge past it. */
async function readWithin(res: Response, max: number): Promise<string> {
  const text = await readCapped(res, max)
  if (text === null) throw new TooLarge()
  return text
}

/**
 * One attempt under one deadline: the timer, held here until the attempt ends, aborts the request
 * and rejects the race whether it fires before the headers or in the middle of the body.
 */
async function attempt(url: string, init: RequestInit, o: PostOptions): Promise<Answer> {
  const controller = new AbortController()
  const progress = { gotHeaders: false }
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const ended = new Promise<never>((_, ko) => {
    timer = setTimeout(() => {
      controller.abort()
      ko(new Deadline())
    }, o.timeoutMs)
    onAbort = () => {
      controller.abort()
      ko(new Cancelled())
    }
    if (o.signal?.aborted) onAbort()
    else o.signal?.addEventListener('abort', onAbort, { once: true })
  })
  const exchange = async (): Promise<Answer> => {
    const res = await fetch(url, { ...init, signal: controller.signal })
    progress.gotHeaders = true
    const ok = res.status >= 200 && res.status < 300
    // the body of a refusal is not read: nothing in it is used
    if (!ok) await res.body?.cancel().catch(() => {})
    return { status: res.status, retryAfter: res.headers.get('retry-after'), text: ok ? await readWithin(res, o.maxBytes) : null }
  }
  try {
    return await Promise.race([exchange(), ended])
  } catch (e) {
    if (e instanceof Deadline || e instanceof TooLarge) (e as Error & { gotHeaders?: boolean }).gotHeaders = progress.gotHeaders
    throw e
  } finally {
    clearTimeout(timer)
    if (onAbort) o.signal?.removeEventListener('abort', onAbort)
    // whatever is still in flight (a body being read past a deadline) is ended
    controller.abort()
  }
}

/**
 * The JSON of an answer, also as Python's json.dumps writes it: bare NaN, Infinity and -Infinity
 * become the strings "NaN", "Infinity" and "-Infinity", so such an answer is an invalid item, not a
 * body that is not JSON.
 */
export function parseAnswerJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (e) {
    const patched = quoteNonFinite(text)
    if (patched === text) throw e
    return JSON.parse(patched)
  }
}

function quoteNonFinite(text: string): string {
  let out = ''
  let from = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
      continue
    }
    if (c === '"') {
      inString = true
      continue
    }
    const m = /^(-?Infinity|NaN)/.exec(text.slice(i, i + 9))
    if (m) {
      out += `${text.slice(from, i)}"${m[1]}"`
      i += m[1]!.length - 1
      from = i + 1
    }
  }
  return out + text.slice(from)
}

/** POSTs `body` (JSON text) to `url`; a status the caller must judge (2xx, other 4xx) is returned, anything else retried or thrown. */
export async function postJson(url: string, body: string, o: PostOptions): Promise<PostResult> {
  const total = Math.max(0, Math.floor(o.retries)) + 1
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(o.authorization ? { authorization: o.authorization } : {}),
  }
  const init: RequestInit = { method: 'POST', headers, body, redirect: 'error' }
  const shown = o.shownUrl
  for (let n = 1; ; n++) {
    let why: string
    let waitMs: number | null = null
    const t0 = performance.now()
    try {
      const a = await attempt(url, init, o)
      const ms = Math.round(performance.now() - t0)
      if (a.text !== null) {
        try {
          return { status: a.status, json: parseAnswerJson(a.text), ms }
        } catch {
          why = `HTTP ${a.status} with a body that is not JSON`
        }
      } else if (isRetryableStatus(a.status)) {
        why = `HTTP ${a.status}`
        waitMs = parseRetryAfter(a.retryAfter, Date.now())
      } else return { status: a.status, json: undefined, ms }
    } catch (e) {
      if (e instanceof Cancelled) throw e
      const headersCame = (e as { gotHeaders?: boolean }).gotHeaders
      if (e instanceof Deadline)
        throw new JevError(
          'NETWORK',
          headersCame
            ? `${shown}: the answer did not finish within ${o.timeoutMs / 1000} s (--timeout)`
            : `${shown}: no answer within ${o.timeoutMs / 1000} s (--timeout)`,
          { hint: 'the model server is slow or stuck; give it more time with --timeout S, or fewer parallel requests with --workers N' },
        )
      if (e instanceof TooLarge)
        throw new JevError('NETWORK', `${shown}: an answer larger than ${o.maxBytes} bytes (--max-answer-bytes)`, {
          hint: 'one answer needs a few kilobytes; check --url and --api, or raise --max-answer-bytes N if the server really sends this much',
        })
      const err = e as Error & { cause?: { code?: string; message?: string } }
      why = `connection failed (${err.cause?.code ?? err.cause?.message ?? err.message})`
    }
    const asked = waitMs === null ? '' : `, and the server asked to wait ${Math.ceil(waitMs / 1000)} s`
    if (n >= total)
      throw new JevError('NETWORK', `${shown}: ${why} after ${n} attempt${n === 1 ? '' : 's'}${asked}`, {
        hint:
          waitMs !== null
            ? 'the server is rate-limiting; rerun later or allow waiting with --retries N (answers already received are in the journal)'
            : why.includes('not JSON')
              ? 'the server answers with something other than JSON; check --url and --api'
              : 'check that the model server is running at --url and answering; answers already received are in the journal, so a rerun sends only the rest',
      })
    if (waitMs !== null && waitMs > o.maxRetryAfterMs)
      throw new JevError('NETWORK', `${shown}: ${why}${asked}`, {
        hint: 'the server is rate-limiting; rerun later (answers already received are in the journal), raise --max-retry-after S or lower --workers',
      })
    o.onRetry?.(why, n + 1, total)
    await wait(waitMs ?? backoffMs(n - 1, jitter), o.signal)
  }
}
