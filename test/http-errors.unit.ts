import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ERROR_CODES } from '../src/errors.ts'
import { httpErrorCode, statusWords } from '../src/fetch/http-errors.ts'

test('each status the Hub answers maps to one code; a conflict only where something is written', () => {
  const statuses = [401, 403, 404, 409, 412, 429, 500, 503, 418]
  assert.deepEqual(
    statuses.map((s) => `${s} ${httpErrorCode(s, 'write')}`),
    ['401 AUTH', '403 AUTH', '404 NOT_FOUND', '409 CONFLICT', '412 CONFLICT', '429 NETWORK', '500 NETWORK', '503 NETWORK', '418 NETWORK'],
  )
  // a download answered 409 or 412 is no publish conflict: the documented CONFLICT is publish-dataset's alone
  assert.deepEqual(
    statuses.map((s) => `${s} ${httpErrorCode(s, 'read')}`),
    ['401 AUTH', '403 AUTH', '404 NOT_FOUND', '409 NETWORK', '412 NETWORK', '429 NETWORK', '500 NETWORK', '503 NETWORK', '418 NETWORK'],
  )
  for (const op of ['read', 'write'] as const)
    for (const s of [200, 401, 404, 412, 599]) assert.ok(httpErrorCode(s, op) in ERROR_CODES, `${s}: a code the CLI knows`)
})

test('the reason phrases errors quote', () => {
  assert.deepEqual([401, 403, 404, 500].map(statusWords), ['unauthorized', 'forbidden', 'not found', null])
})
