/** An HTTP status the Hub answered, as a typed error's code: one mapping for downloads and publishing. */
import type { ErrorCode } from '../errors.ts'

/**
 * 401/403: credentials; 404: the repo, revision or file; else the network or the Hub. 409/412 mean
 * someone else's change won only for a write (publishing); a download answered so is the Hub's fault.
 */
export function httpErrorCode(status: number, op: 'read' | 'write'): ErrorCode {
  if (status === 401 || status === 403) return 'AUTH'
  if (status === 404) return 'NOT_FOUND'
  if (op === 'write' && (status === 409 || status === 412)) return 'CONFLICT'
  return 'NETWORK'
}

/** The status's reason phrase where an error message names it ("HTTP 404 (not found)"). */
export function statusWords(status: number): string | null {
  return status === 401 ? 'unauthorized' : status === 403 ? 'forbidden' : status === 404 ? 'not found' : null
}
