import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { HubApiError } from '@huggingface/hub'
import { DEFAULT_BOUNDS } from '../../src/fetch/bounds.ts'
import { TransientError } from '../../src/fetch/guarded-fetch.ts'
import { hubClient } from '../../src/fetch/hub-client.ts'
import { hubFetchError } from '../../src/fetch/hub-errors.ts'
import type { HubSession } from '../../src/fetch/hub-session.ts'
import { AttemptsFailed } from '../../src/fetch/retry.ts'

const TOKEN = 'hf_secretSECRET123'
const session = (token?: string): HubSession => ({
  endpoint: 'https://hub.example',
  token,
  cacheDir: '/cache',
  offline: false,
  policy: { ...DEFAULT_BOUNDS, retries: 4, sleep: async () => {}, random: () => 0, now: () => 0 },
  baseFetch: fetch,
  lockWaitMs: 0,
  log: undefined,
  commits: new Map(),
  swept: new Set(),
})
const ctx = { repo: 'o/n', revision: 'main', file: 'data/x.parquet' }

// the client's errors are recognised once it is loaded, as it is before any request
before(() => hubClient())

test('statuses become the shared codes, naming the file and what to check', () => {
  const e = (status: number, token?: string) => hubFetchError(session(token), new HubApiError('https://hub.example/x', status), ctx)
  assert.equal(e(401).code, 'AUTH')
  assert.match(e(401).message, /^Hub answered HTTP 401 \(unauthorized\) for o\/n@main data\/x\.parquet: without a token/)
  assert.match(e(403, TOKEN).message, /\(forbidden\).*HF_TOKEN has no access/)
  assert.equal(e(404).code, 'NOT_FOUND')
  assert.equal(e(503).code, 'NETWORK')
  assert.equal(e(503).context.status, 503)
  // a download is never a publish conflict (CONFLICT, exit 10, is publish-dataset's)
  assert.equal(e(409).code, 'NETWORK')
  assert.equal(e(412).code, 'NETWORK')
})

test('the token never reaches a message: it reads <HF_TOKEN>, on one line', () => {
  const failed = new AttemptsFailed(new TransientError('NETWORK', `reset by https://x/?t=${TOKEN}\nand more`), 5, undefined)
  const e = hubFetchError(session(TOKEN), failed, ctx)
  assert.equal(e.code, 'NETWORK')
  assert.ok(!e.message.includes(TOKEN), e.message)
  assert.ok(e.message.includes('<HF_TOKEN>') && !e.message.includes('\n'), e.message)
  assert.equal(e.context.attempts, 5)
})
