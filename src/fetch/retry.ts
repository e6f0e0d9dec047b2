/**
 * Bounded retries for Hub requests: a loop over guarded attempts (guarded-fetch.ts) that retries
 * what a second try can fix, with exponential backoff, jitter and Retry-After.
 */
import type { NetBounds } from './bounds.ts'
import { type BodyWatcher, Deadline, deadlineError, type Fetch, guardedFetch, type ResponseNote, TransientError } from './guarded-fetch.ts'
import { isHubApiError, isInvalidApiResponse } from './hub-client.ts'

export interface RetryPolicy extends NetBounds {
  /** extra attempts after the first */
  retries: number
  sleep: (ms: number) => Promise<void>
  /** jitter source in [0, 1) */
  random: () => number
  /** for Retry-After given as an HTTP date */
  now: () => number
}

export const BACKOFF_BASE_MS = 1000
export const BACKOFF_CAP_MS = 30_000

/** Why an operation stopped: the last error, after how many attempts, and what the server said last. */
export class AttemptsFailed extends Error {
  readonly attempts: number
  readonly note: ResponseNote | undefined
  /** set when the server asked to wait longer than the policy's maxRetryAfterMs, or than the deadline leaves */
  readonly retryAfterMs: number | undefined
  /** with retryAfterMs: the deadline's time left, when that (not the cap) is what the wait exceeds */
  readonly deadlineLeftMs: number | undefined
  constructor(cause: unknown, attempts: number, note: ResponseNote | undefined, retryAfterMs?: number, deadlineLeftMs?: number) {
    super(cause instanceof Error ? cause.message : String(cause), { cause })
    this.name = 'AttemptsFailed'
    this.attempts = attempts
    this.note = note
    this.retryAfterMs = retryAfterMs
    this.deadlineLeftMs = deadlineLeftMs
  }
}

export const isRetryableStatus = (s: number) => s === 408 || s === 429 || s >= 500

/** Retry-After is either delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  const v = value?.trim()
  if (!v) return null
  if (/^\d+$/.test(v)) return Number(v) * 1000
  const at = Date.parse(v)
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs)
}

/** Exponential with "equal jitter": never under half the step, spread so parallel builds don't retry in lockstep. */
export function backoffMs(retry: number, random: () => number): number {
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry)
  return Math.round(step * (0.5 + Math.min(Math.max(random(), 0), 1) / 2))
}

interface Verdict {
  retry: boolean
  waitMs?: number
  why: string
}

function judge(e: unknown, note: ResponseNote | undefined, nowMs: number): Verdict {
  if (e instanceof TransientError) return { retry: e.detail.deadline !== true && e.detail.unreachable !== true, why: e.message }
  if (isHubApiError(e)) {
    const s = e.statusCode
    const retryAfter = note?.status === s ? parseRetryAfter(note.retryAfter, nowMs) : null
    return { retry: isRetryableStatus(s), ...(retryAfter !== null ? { waitMs: retryAfter } : {}), why: `HTTP ${s}` }
  }
  // A body that parsed as nothing the client expected (bad JSON, missing headers): the wire, not the request.
  if (isInvalidApiResponse(e) || e instanceof SyntaxError) return { retry: true, why: `malformed response: ${(e as Error).message}` }
  return { retry: false, why: e instanceof Error ? e.message : String(e) }
}

export interface RetryEvent {
  /** the attempt about to start, 2..retries+1 */
  attempt: number
  of: number
  why: string
  waitMs: number
  /** the server's Retry-After, when it sent one */
  retryAfterMs?: number
}

/**
 * Runs `attempt` with a fresh guarded fetch until it succeeds, fails in a way a retry cannot fix,
 * or the budget is spent; then throws AttemptsFailed wrapping the last error.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  base: Fetch,
  attempt: (fetch: Fetch) => Promise<T>,
  opts: { htmlExpected?: boolean; onRetry?: (ev: RetryEvent) => void; deadline?: Deadline; onBody?: BodyWatcher } = {},
): Promise<T> {
  const total = Math.max(0, Math.floor(policy.retries)) + 1
  const deadline = opts.deadline ?? new Deadline(policy.fileDeadlineMs)
  for (let n = 1; ; n++) {
    let note: ResponseNote | undefined
    const f = guardedFetch(base, {
      timeoutMs: policy.timeoutMs,
      minRate: policy.minRate,
      rateWindowMs: policy.rateWindowMs,
      deadline,
      htmlExpected: opts.htmlExpected ?? false,
      onResponse: (r) => {
        note = r
      },
      ...(opts.onBody ? { onBody: opts.onBody } : {}),
    })
    try {
      return await attempt(f)
    } catch (e) {
      const v = judge(e, note, policy.now())
      if (!v.retry || n >= total) throw new AttemptsFailed(e, n, note)
      if (v.waitMs !== undefined && v.waitMs > policy.maxRetryAfterMs) throw new AttemptsFailed(e, n, note, v.waitMs)
      // the Hub's own wait past the deadline is reported as that, not as a deadline spent
      if (v.waitMs !== undefined && v.waitMs >= deadline.left()) throw new AttemptsFailed(e, n, note, v.waitMs, deadline.left())
      const waitMs = Math.max(v.waitMs ?? 0, backoffMs(n - 1, policy.random))
      // a wait that would end past the deadline is not begun
      if (waitMs >= deadline.left()) throw new AttemptsFailed(deadlineError(deadline), n, note)
      opts.onRetry?.({ attempt: n + 1, of: total, why: v.why, waitMs, ...(v.waitMs !== undefined ? { retryAfterMs: v.waitMs } : {}) })
      await policy.sleep(waitMs)
    }
  }
}
