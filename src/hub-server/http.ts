/** Small HTTP helpers shared by the local Hub's read and write handlers. */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { admit } from './body-limit.ts'
import { HubHttpError } from './http-error.ts'

export function fail(res: ServerResponse, status: number, error: string, code?: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...(code ? { 'X-Error-Code': code } : {}) })
  res.end(JSON.stringify({ error }))
}

export function json(res: ServerResponse, body: unknown, status = 200, contentType = 'application/json; charset=utf-8'): void {
  res.writeHead(status, { 'Content-Type': contentType })
  res.end(JSON.stringify(body))
}

/**
 * Reads a whole request body; refuses bodies over `limit` bytes, or over the endpoint's and
 * the server's bounds (body-limit.ts), so a stray client cannot fill memory. Past a bound the
 * rest is read and dropped, so the refusal is answered while the client is still sending.
 */
export function readBody(req: IncomingMessage, limit = 256 * 1024 * 1024): Promise<Buffer> {
  return new Promise((ok, ko) => {
    const chunks: Buffer[] = []
    let size = 0
    let refused = false
    req.on('data', (c: Buffer) => {
      if (refused) return
      size += c.length
      try {
        admit(req, size, limit)
      } catch (e) {
        refused = true
        chunks.length = 0
        return ko(e)
      }
      chunks.push(c)
    })
    req.once('end', () => refused || ok(Buffer.concat(chunks)))
    req.once('error', ko)
    req.once('close', () => req.readableEnded || refused || ko(new HubHttpError(400, 'the request body was cut short')))
  })
}

/**
 * Calls `onLine` with each line of a request body in turn, holding one line at a time: the request is paused
 * while a line is handled. Over `total` bytes, or a line over `maxLine`, it is 413, and, as in readBody, the
 * rest of the body is read and dropped; an error from `onLine` ends it the same way.
 */
export function forEachLine(
  req: IncomingMessage,
  bounds: { total: number; line: number },
  onLine: (line: Buffer) => Promise<void>,
): Promise<void> {
  return new Promise((ok, ko) => {
    const queue: Buffer[] = []
    let pieces: Buffer[] = []
    let pending = 0
    let size = 0
    let failed = false
    let working = false
    let ended = false
    const fail = (e: unknown) => {
      if (failed) return
      failed = true
      queue.length = 0
      pieces = []
      req.resume()
      ko(e)
    }
    const tooLong = () => new HubHttpError(413, `a commit line over ${bounds.line} bytes; send files over 10 MiB through LFS`)
    const work = async () => {
      if (working) return
      working = true
      try {
        while (queue.length && !failed) await onLine(queue.shift()!)
      } catch (e) {
        fail(e)
      }
      working = false
      if (failed) return
      if (ended) ok()
      else req.resume()
    }
    req.on('data', (c: Buffer) => {
      if (failed) return
      size += c.length
      if (size > bounds.total) return fail(new HubHttpError(413, `request body over ${bounds.total} bytes`))
      let start = 0
      for (let nl = c.indexOf(0x0a); nl !== -1; nl = c.indexOf(0x0a, start)) {
        pieces.push(c.subarray(start, nl))
        if (pending + nl - start > bounds.line) return fail(tooLong())
        queue.push(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces))
        pieces = []
        pending = 0
        start = nl + 1
      }
      if (start < c.length) {
        pending += c.length - start
        if (pending > bounds.line) return fail(tooLong())
        pieces.push(c.subarray(start))
      }
      if (queue.length) {
        req.pause()
        void work()
      }
    })
    req.once('end', () => {
      if (failed) return
      ended = true
      if (pending) queue.push(Buffer.concat(pieces))
      pieces = []
      void work()
    })
    req.once('error', fail)
    req.once('close', () => req.readableEnded || fail(new HubHttpError(400, 'the request body was cut short')))
  })
}

export async function readJson<T>(req: IncomingMessage): Promise<T> {
  const text = (await readBody(req)).toString('utf8')
  try {
    return JSON.parse(text === '' ? '{}' : text) as T
  } catch {
    throw new HubHttpError(400, 'request body is not valid JSON')
  }
}

/** A boolean query or form value read as the Hub reads it: `true`, `True` (Python's spelling) or `1`. */
export function isTrue(value: string | null | undefined): boolean {
  return value === 'true' || value === 'True' || value === '1'
}

/** Repo-relative paths as the Hub accepts them: no empty, `.` or `..` parts, no backslashes. */
export function safeRepoPath(path: unknown): path is string {
  return (
    typeof path === 'string' &&
    path !== '' &&
    !path.includes('\\') &&
    !path.includes('\0') &&
    path.split('/').every((p) => p !== '' && p !== '.' && p !== '..' && p !== '__proto__')
  )
}

/** 'status:<code>' answers with that status; 'reset' drops the connection; 'truncate' and
 * 'corrupt' apply to full (non-Range) file bodies only: half the body then a dropped
 * connection, or the same length with one byte flipped. */
export type FaultKind = `status:${number}` | 'reset' | 'truncate' | 'corrupt'

export interface Fault {
  match: string
  kind: FaultKind
  left: number
}
