/** A request that cannot be made at all — no such host, nothing listening — fails at once; a reset is still retried. */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { hintOf, isJevError } from '../../src/errors.ts'
import { DEFAULT_BOUNDS } from '../../src/fetch/bounds.ts'
import { UNREACHABLE_HINT } from '../../src/fetch/guarded-fetch.ts'
import { createHubFetcher } from '../../src/fetch/hub.ts'
import { AttemptsFailed, type RetryPolicy, withRetries } from '../../src/fetch/retry.ts'

const policy = (slept: number[]): RetryPolicy => ({
  ...DEFAULT_BOUNDS,
  retries: 4,
  sleep: async (ms) => void slept.push(ms),
  random: () => 0.5,
  now: () => 0,
})
// what undici throws: a TypeError "fetch failed" whose cause carries the system code
const failing = (code: string) => async (): Promise<Response> => {
  throw new TypeError('fetch failed', { cause: Object.assign(new Error(`getaddrinfo ${code}`), { code }) })
}

for (const code of ['ENOTFOUND', 'ECONNREFUSED'])
  test(`${code}: one attempt, no wait`, async () => {
    const slept: number[] = []
    const e = await withRetries(policy(slept), failing(code), (f) => f('http://x.invalid/')).catch((x: unknown) => x)
    assert.ok(e instanceof AttemptsFailed, String(e))
    assert.equal(e.attempts, 1)
    assert.deepEqual(slept, [])
  })

test('ECONNRESET is still retried, with backoff', async () => {
  const slept: number[] = []
  const e = await withRetries(policy(slept), failing('ECONNRESET'), (f) => f('http://x.invalid/')).catch((x: unknown) => x)
  assert.ok(e instanceof AttemptsFailed)
  assert.equal(e.attempts, 5)
  assert.equal(slept.length, 4)
})

test('a build against a port nobody listens on: NETWORK at once, with the no-network hint naming --mirror and HF_ENDPOINT', async () => {
  const port = await new Promise<number>((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => ok(p))
    })
  })
  const cacheDir = await mkdtemp(join(tmpdir(), 'jev-unreachable-'))
  const slept: number[] = []
  try {
    const hub = createHubFetcher({ endpoint: `http://127.0.0.1:${port}`, cacheDir, sleep: async (ms) => void slept.push(ms) })
    const e = await hub.fetchFile('allenai/ai2_arc', 'main', 'x.parquet').catch((x: unknown) => x)
    assert.ok(isJevError(e) && e.code === 'NETWORK', String(e))
    assert.doesNotMatch(e.message, /attempts/)
    assert.deepEqual(slept, [])
    assert.equal(hintOf(e), UNREACHABLE_HINT)
    assert.match(UNREACHABLE_HINT, /--mirror/)
    assert.match(UNREACHABLE_HINT, /HF_ENDPOINT/)
  } finally {
    await rm(cacheDir, { recursive: true, force: true })
  }
})
