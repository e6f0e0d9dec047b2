/**
 * Every network wait is bounded: a trickling body, a deadline per file, a Retry-After that would
 * pass it, a listing that never answers. Bounds are set short here, so each case ends in a typed
 * error at once; the time limits on the tests are only a safety net, never what is asserted.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { boundsFrom, DEFAULT_BOUNDS } from '../../src/fetch/bounds.ts'
import { rejectsWith } from '../helpers/errors.ts'
import { ARC, ARC_REV, assertClean, assertConsistent, CDN, FILE, FILE_SHA, withRig } from '../helpers/hub-rig.ts'

const SAFETY = { timeout: 30_000 }

test('the defaults fail a fault within about two minutes; flags win over the environment; bad values are USAGE', async () => {
  assert.deepEqual(DEFAULT_BOUNDS, {
    timeoutMs: 30_000,
    minRate: 1024,
    rateWindowMs: 30_000,
    maxRetryAfterMs: 60_000,
    fileDeadlineMs: 120_000,
  })
  const env = { JEV_HTTP_TIMEOUT: '5', JEV_MIN_RATE: '0', JEV_FILE_DEADLINE: '0.5', JEV_MAX_RETRY_AFTER: '7' }
  assert.deepEqual(boundsFrom({}, env), { timeoutMs: 5000, minRate: 0, rateWindowMs: 30_000, maxRetryAfterMs: 7000, fileDeadlineMs: 500 })
  assert.equal(boundsFrom({ 'file-deadline': '900', 'rate-window': '2' }, env).fileDeadlineMs, 900_000)
  assert.equal(boundsFrom({ 'rate-window': '2' }, env).rateWindowMs, 2000)
  for (const [values, e] of [
    [{ 'http-timeout': '0' }, {}],
    [{}, { JEV_FILE_DEADLINE: 'soon' }],
    [{ 'min-rate': '-1' }, {}],
  ] as const) {
    assert.throws(
      () => boundsFrom(values, e),
      (err: Error & { code?: string }) => err.code === 'USAGE' && /is not a/.test(err.message),
    )
  }
})

test('a body that trickles a byte at a time is cut at the minimum rate, retried, then NETWORK; the cache then builds', SAFETY, () =>
  withRig(async ({ proxy, cacheDir, fetcher }) => {
    // never silent for the 10 s timeout: only the rate can stop it
    const rule = proxy.addFault({ match: CDN, fault: 'trickle:20' })
    const quick = { timeoutMs: 10_000, minRate: 1000, rateWindowMs: 200, retries: 1 }
    const e = await rejectsWith(fetcher(quick).fetchFile(ARC, ARC_REV, FILE), 'NETWORK', { oneLine: true })
    assert.match(e.message, /came at under 1000 bytes\/s over 0\.2 s \(\d+ of 8599 bytes, HTTP 200\)/)
    assert.equal(e.context.attempts, 2)
    assert.equal(rule.applied, 2)
    await assertClean(cacheDir, true)
    proxy.clearFaults()
    // with the default bounds: a 0.2 s rate window would also cut a good download that a busy machine pauses
    assert.equal((await fetcher().fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
    assert.equal(await assertConsistent(cacheDir), 1)
  }),
)

test('the deadline per file ends a slow download, is not retried, and says what to set', SAFETY, () =>
  withRig(async ({ proxy, cacheDir, sleeps, fetcher }) => {
    proxy.addFault({ match: CDN, fault: 'trickle:20' })
    const e = await rejectsWith(fetcher({ minRate: 0, fileDeadlineMs: 300 }).fetchFile(ARC, ARC_REV, FILE), 'NETWORK', { oneLine: true })
    assert.match(
      e.message,
      /gave up after 0\.3 s, the limit for one file or request \(set JEV_FILE_DEADLINE or --file-deadline to allow longer\)/,
    )
    assert.deepEqual(sleeps, [], 'no retry once the time is up')
    await assertClean(cacheDir, true)
    proxy.clearFaults()
    assert.equal((await fetcher().fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
  }),
)

test('a listing (paths-info) that never answers ends at the deadline, with every attempt inside it', SAFETY, () =>
  withRig(async ({ proxy, cacheDir, fetcher }) => {
    proxy.addFault({ match: 'paths-info', fault: 'hang' })
    const e = await rejectsWith(fetcher({ timeoutMs: 10_000, fileDeadlineMs: 300 }).fetchFile(ARC, ARC_REV, FILE), 'NETWORK', {
      oneLine: true,
    })
    assert.match(e.message, /gave up after 0\.3 s/)
    await assertClean(cacheDir, true)
    proxy.clearFaults()
    assert.equal((await fetcher().fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
  }),
)

test('a Retry-After under the cap but past the deadline is not waited: NETWORK at once', () =>
  withRig(async ({ proxy, sleeps, fetcher }) => {
    proxy.addFault({ match: FILE, fault: 'status:503', retryAfter: '50' })
    const e = await rejectsWith(fetcher({ fileDeadlineMs: 10_000 }).fetchFile(ARC, ARC_REV, FILE), 'NETWORK', { oneLine: true })
    // how long the Hub asked for, not the generic deadline message
    assert.match(e.message, /asked to wait 50 s, more than the \d+ s left of the 10 s allowed for one file/)
    assert.deepEqual(sleeps, [])
  }))
