/**
 * Corrupt fixture Parquet files at random — seeded with rngFor, so every run
 * is the same run — and build with the committed lock. Every case must end in
 * a typed error (DATA, SCHEMA or LOCK) or in output byte-identical to the
 * reference build: never another exception, an unhandled rejection, a hang or
 * other output. The builds run in a worker (test/helpers/fuzz-worker.ts), so a
 * build that never returns, even in synchronous code, is stopped and named.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Worker } from 'node:worker_threads'
import { COMPILED } from './helpers/cli.ts'
import { depth } from './helpers/depth.ts'
import type { FuzzMessage } from './helpers/fuzz-worker.ts'

/** 300 cases take ~7 s here, one of them ~1 s (the decoder's limit, DECODE_LIMIT_MS); `npm test` runs the first 40 of the same seeded sequence */
const CASES = depth(300, 40)
const SEED = 20240611
/** watchdogs against a hang only, far past any real case (the slowest is the decoder's limit), so a busy machine cannot trip them */
const BUILD_TIMEOUT_MS = 60_000
/** loading the builder into the worker and the reference build */
const STARTUP_TIMEOUT_MS = 120_000

test(`${CASES} seeded corruptions of the fixture Parquet files: a typed error or the reference output, every time`, async (t) => {
  const started = performance.now()
  // run as TypeScript (through tsx), the worker registers tsx before it loads the module; compiled (npm test), it loads the .js twin
  const workerUrl = JSON.stringify(new URL(`./helpers/fuzz-worker.${COMPILED ? 'js' : 'ts'}`, import.meta.url).href)
  const boot = COMPILED
    ? `import(${workerUrl})`
    : `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${workerUrl}) })`
  const worker = new Worker(boot, { eval: true, workerData: { seed: SEED, cases: CASES } })
  const tally = new Map<string, number>()
  const slow: string[] = []
  const failures: string[] = []
  let current = 'start-up (the reference build)'
  let seen = 0
  const finished = await new Promise<string>((resolve) => {
    let watchdog = setTimeout(() => resolve(`${current}: no outcome after ${STARTUP_TIMEOUT_MS / 1000} s`), STARTUP_TIMEOUT_MS)
    const arm = (ms: number, what: string) => {
      clearTimeout(watchdog)
      watchdog = setTimeout(() => resolve(`${what}: no outcome after ${ms / 1000} s`), ms)
    }
    worker.on('message', (m: FuzzMessage) => {
      if (m.kind === 'start') {
        current = m.label
        arm(BUILD_TIMEOUT_MS, m.label)
      } else if (m.kind === 'done') {
        seen++
        tally.set(m.outcome, (tally.get(m.outcome) ?? 0) + 1)
        if (m.ms > 1000) slow.push(`${m.label}: ${m.outcome} after ${(m.ms / 1000).toFixed(1)} s`)
      } else if (m.kind === 'fail') {
        seen++
        failures.push(`${m.label}: ${m.message}`)
      } else {
        clearTimeout(watchdog)
        resolve('end')
      }
    })
    // an uncaught exception or unhandled rejection ends the worker with an error
    worker.on('error', (e) => {
      clearTimeout(watchdog)
      resolve(`${current}: the worker crashed: ${e.stack ?? e.message}`)
    })
    worker.on('exit', (code) => {
      clearTimeout(watchdog)
      resolve(`${current}: the worker exited (${code}) before the end`)
    })
  })
  await worker.terminate()
  t.diagnostic(
    `outcomes: ${[...tally].map(([k, n]) => `${k} ${n}`).join(', ')}; ${((performance.now() - started) / 1000).toFixed(1)} s in all`,
  )
  for (const s of slow) t.diagnostic(`slow: ${s}`)
  assert.equal(finished, 'end')
  assert.deepEqual(failures, [])
  assert.equal(seen, CASES)
  // the corruption is real: most cases fail, both in decoding and against the lock
  assert.ok((tally.get('error[DATA]') ?? 0) > CASES / 2, 'most corruptions are DATA errors')
  assert.ok((tally.get('error[LOCK]') ?? 0) > 0, 'some decode to other rows, which the lock refuses')
})
