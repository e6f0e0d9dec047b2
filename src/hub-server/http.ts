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
