/**
 * Bounds on request bodies the local Hub holds in memory: one per endpoint, and a total
 * across the requests in flight, so concurrent large bodies cannot fill memory. A body
 * over either is answered early (413 or 503) and the rest of it is read and dropped.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { HubHttpError } from './http-error.ts'

const MiB = 1024 * 1024

/** Bytes of bodies a server holds at once, across its requests. */
export class BodyBudget {
  private used = 0

  constructor(readonly limit: number) {}

  take(n: number): boolean {
    if (this.used + n > this.limit) return false
    this.used += n
    return true
  }

  give(n: number): void {
    this.used -= n
  }
}

/** The largest body each endpoint reads: a card for validate-yaml, an LFS object for uploads, a commit's inline files. */
export function endpointLimit(route: 'validate' | 'lfs-upload' | 'commit' | 'other'): number {
  if (route === 'validate') return MiB
  if (route === 'lfs-upload') return 4 * 1024 * MiB - 1
  if (route === 'commit') return 256 * MiB
  return 16 * MiB
}

/**
 * A commit is read a line at a time (src/hub-server/write.ts): one operation, an inline file at most, which the
 * Hub takes up to 10 MiB (base64 in JSON: 16 MiB a line). It holds one line at once, as bytes, text, parsed and
 * decoded: these many copies of it, which is what its body takes of the budget.
 */
const COMMIT_LINE_LIMIT = 16 * MiB
const LINE_COPIES = 4

interface Bound {
  limit: number
  budget: BodyBudget
  reserved: number
  /** read a line at a time: the reservation is fixed, and bounds the line */
  streamed: boolean
}
const bounds = new WeakMap<IncomingMessage, Bound>()

export function tooLarge(limit: number): HubHttpError {
  return new HubHttpError(413, `request body over ${limit} bytes`)
}
export function busy(): HubHttpError {
  return new HubHttpError(503, 'this local Hub holds too many request bodies at once; retry shortly')
}

/**
 * Sets the bound readBody applies to `req` and reserves its declared Content-Length (a body read a line at a
 * time, `streamed`: its longest line's copies, within the whole budget); an error (413 or 503) when that alone
 * is over. What was taken is given back when the response closes.
 */
export function bindBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  budget: BodyBudget,
  streamed = false,
): HubHttpError | null {
  const declared = Number(req.headers['content-length'] ?? 0)
  const size = Number.isSafeInteger(declared) && declared > 0 ? declared : 0
  if (size > limit) return tooLarge(limit)
  const reserved = streamed ? Math.min(LINE_COPIES * Math.min(size || COMMIT_LINE_LIMIT, COMMIT_LINE_LIMIT), budget.limit) : size
  if (!budget.take(reserved)) return busy()
  const bound = { limit, budget, reserved, streamed }
  bounds.set(req, bound)
  res.once('close', () => {
    budget.give(bound.reserved)
    bound.reserved = 0
  })
  return null
}

/** A streamed body's bounds: its whole size, and a line's, which its reservation holds in all its copies. */
export function lineBounds(req: IncomingMessage, limit: number): { total: number; line: number } {
  const bound = bounds.get(req)
  if (!bound?.streamed) return { total: Math.min(limit, bound?.limit ?? limit), line: COMMIT_LINE_LIMIT }
  return { total: Math.min(limit, bound.limit), line: Math.min(COMMIT_LINE_LIMIT, Math.floor(bound.reserved / LINE_COPIES)) }
}

/** A body chunk's worth of room under `req`'s bounds: throws 413 or 503 past them. */
export function admit(req: IncomingMessage, size: number, limit: number): void {
  const bound = bounds.get(req)
  const max = Math.min(limit, bound?.limit ?? limit)
  if (size > max) throw tooLarge(max)
  if (bound && size > bound.reserved) {
    if (!bound.budget.take(size - bound.reserved)) throw busy()
    bound.reserved = size
  }
}
