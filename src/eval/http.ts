/**
 * One POST to a model server, bounded: a timeout per attempt, and retries with backoff (the
 * builder's, sources/retry.ts) for 408, 429, 5xx, a dropped connection or a body that is not JSON.
 */
import { randomInt } from 'node:crypto'
import { JevError } from '../errors.ts'
import { backoffMs, isRetryableStatus, parseRetryAfter } from '../fetch/retry.ts'

export interface PostOptions {
  /** sent as `authorization: Bearer …`; never in a message */
  apiKey?: string | undefined
  timeoutMs: number
  /** extra attempts after the first */
  retries: number
  /** the longest Retry-After waited out */
  maxRetryAfterMs: number
  sleep?: (ms: number) => Promise<void>
  onRetry?: (why: string, attempt: number, of: number) => void
}

export interface PostResult {
  status: number
  /** the parsed body of a 2xx answer; undefined for other statuses */
  json: unknown
  /** the time the successful attempt took */
  ms: number
}

const realSleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms))
const jitter = () => randomInt(2 ** 32) / 2 ** 32

/** POSTs `body` (JSON text) to `url`; a status the caller must judge (2xx, other 4xx) is returned, anything else retried or thrown. */
export async function postJson(url: string, body: string, o: PostOptions): Promise<PostResult> {
  const total = Math.max(0, Math.floor(o.retries)) + 1
  const sleep = o.sleep ?? realSleep
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
  }
  for (let n = 1; ; n++) {
    let why: string
    let waitMs: number | null = null
    const t0 = performance.now()
    try {
      const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(o.timeoutMs), redirect: 'error' })
      const raw = await res.text()
      const ms = Math.round(performance.now() - t0)
      if (res.status >= 200 && res.status < 300) {
        try {
          return { status: res.status, json: JSON.parse(raw), ms }
        } catch {
          why = `HTTP ${res.status} with a body that is not JSON`
        }
      } else if (isRetryableStatus(res.status)) {
        why = `HTTP ${res.status}`
        waitMs = parseRetryAfter(res.headers.get('retry-after'), Date.now())
      } else return { status: res.status, json: undefined, ms }
    } catch (e) {
      const err = e as Error & { cause?: { code?: string; message?: string } }
      if (err.name === 'TimeoutError')
        throw new JevError('NETWORK', `${url}: no answer within ${o.timeoutMs / 1000} s`, {
          hint: 'the model server is slow or stuck; give it more time with --timeout S, or fewer parallel requests with --workers N',
        })
      why = `connection failed (${err.cause?.code ?? err.cause?.message ?? err.message})`
    }
    if (n >= total)
      throw new JevError('NETWORK', `${url}: ${why} after ${n} attempt${n === 1 ? '' : 's'}`, {
        hint: 'check that the model server is running at --url and answering; answers already received are in the journal, so a rerun sends only the rest',
      })
    if (waitMs !== null && waitMs > o.maxRetryAfterMs)
      throw new JevError('NETWORK', `${url}: ${why}, and the server asked to wait ${Math.ceil(waitMs / 1000)} s`, {
        hint: 'the server is rate-limiting; rerun later (answers already received are in the journal) or lower --workers',
      })
    o.onRetry?.(why, n + 1, total)
    await sleep(waitMs ?? backoffMs(n - 1, jitter))
  }
}
