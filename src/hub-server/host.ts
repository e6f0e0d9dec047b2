/**
 * DNS rebinding guards for the local Hub: a page on another site can point its own
 * name at 127.0.0.1, so the Host header and, for writes, the Origin header must name
 * this server (a loopback name with its own port).
 */
import { isIP } from 'node:net'

/** localhost, 127.0.0.0/8 or [::1], lower-cased. */
function isLoopbackName(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true
  return isIP(hostname) === 4 && hostname.split('.')[0] === '127'
}

/** The Host header in lower case when it is a loopback name with `port`, else null. */
export function loopbackHost(header: string | undefined, port: number): string | null {
  const m = /^(\[[^\]]*\]|[^:[\]]+):(\d+)$/.exec((header ?? '').toLowerCase())
  if (!m || Number(m[2]) !== port || m[2] !== String(port) || !isLoopbackName(m[1]!)) return null
  return `${m[1]}:${m[2]}`
}

/** Whether an Origin header names this server: `http://` and a loopback Host with `port`. */
export function isOwnOrigin(origin: string, port: number): boolean {
  const m = /^http:\/\/(.+)$/.exec(origin.toLowerCase())
  return m !== null && loopbackHost(m[1], port) !== null
}
