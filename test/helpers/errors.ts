import assert from 'node:assert/strict'
import { isJevError, type JevError } from '../../src/errors.ts'

/** Awaits a promise that must reject with a JevError of `code`; returns the error. */
export async function rejectsWith(p: Promise<unknown>, code: string, options: { oneLine?: boolean } = {}): Promise<JevError> {
  try {
    await p
  } catch (e) {
    assert.ok(isJevError(e), `expected JevError, got ${String(e)}`)
    assert.equal(e.code, code, e.message)
    if (options.oneLine) assert.ok(!e.message.includes('\n'), `one line: ${e.message}`)
    return e
  }
  assert.fail(`expected ${code} error`)
}
