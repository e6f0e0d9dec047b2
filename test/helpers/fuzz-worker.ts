/**
 * The builds of test/fuzz.test.ts, run in a worker thread so the test thread
 * can stop a build that never returns (even one stuck in synchronous code).
 * workerData: { seed, cases }. Posts, per case, { kind: 'start', i, label }
 * then { kind: 'done', i, label, outcome, ms } or { kind: 'fail', i, label, message };
 * finally { kind: 'end' }.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parentPort, workerData } from 'node:worker_threads'
import { buildFromSources } from '../../src/build-io.ts'
import { type ErrorCode, isJevError } from '../../src/errors.ts'
import { createMirrorFetcher } from '../../src/fetch/mirror.ts'
import type { FileFetcher } from '../../src/fetch/types.ts'
import { loadRecipe } from '../../src/recipe/load.ts'
import { readLock } from '../../src/recipe/lock.ts'
import { randInt, rngFor } from '../../src/shape/rng.ts'
import { sha256Hex } from '../../src/util/hash.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, ROOT } from './cli.ts'

export type FuzzMessage =
  | { kind: 'start'; i: number; label: string }
  | { kind: 'done'; i: number; label: string; outcome: string; ms: number }
  | { kind: 'fail'; i: number; label: string; message: string }
  | { kind: 'end' }

/** What corrupt upstream bytes may legitimately end in. */
export const EXPECTED: readonly ErrorCode[] = ['DATA', 'SCHEMA', 'LOCK']

interface Case {
  repo: string
  path: string
  what: string
  bytes: Uint8Array
}

/** the decode time limit the cases run under */
export const DECODE_LIMIT_MS = 1_000

const port = parentPort!
const { seed, cases } = workerData as { seed: number; cases: number }
const post = (m: FuzzMessage) => port.postMessage(m)

const recipe = await loadRecipe(FIXTURE_RECIPE)
const lock = (await readLock(join(ROOT, 'test/fixtures/recipe.lock.json')))!
const reference = (await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { lock })).files
const files: { repo: string; path: string; bytes: Uint8Array }[] = []
for (const s of recipe.sources)
  for (const path of Object.values(s.files).flat())
    if (!files.some((f) => f.repo === s.repo && f.path === path))
      files.push({ repo: s.repo, path, bytes: new Uint8Array(await readFile(join(FIXTURE_HUB, 'datasets', s.repo, path))) })

/** Case i: one fixture file, truncated (1 in 4) or with 1–8 bytes xor-ed with a non-zero value. */
function makeCase(i: number): Case {
  const rng = rngFor(seed, 'fuzz', String(i))
  const f = files[randInt(rng, files.length)]!
  if (randInt(rng, 4) === 0) {
    const at = randInt(rng, f.bytes.length)
    return { repo: f.repo, path: f.path, what: `truncated to ${at} of ${f.bytes.length} bytes`, bytes: f.bytes.slice(0, at) }
  }
  const bytes = f.bytes.slice()
  const flips: string[] = []
  for (let n = 1 + randInt(rng, 8); n > 0; n--) {
    const at = randInt(rng, bytes.length)
    const mask = 1 + randInt(rng, 255)
    bytes[at] = bytes[at]! ^ mask
    flips.push(`${at}^${mask}`)
  }
  return { repo: f.repo, path: f.path, what: `bytes ${flips.join(' ')}`, bytes }
}

/** The fixture mirror, except that one file has the case's bytes. */
function fetcherFor(c: Case): FileFetcher {
  const mirror = createMirrorFetcher(FIXTURE_HUB)
  return {
    kind: 'mirror',
    async fetchFile(repo, revision, path) {
      const file = await mirror.fetchFile(repo, revision, path)
      if (repo !== c.repo || path !== c.path) return file
      return { ...file, bytes: c.bytes.slice(), size: c.bytes.length, sha256: sha256Hex(c.bytes) }
    },
  }
}

/** The outcome of one case, or why it is wrong. */
async function run(c: Case): Promise<{ outcome: string } | { message: string }> {
  try {
    // a decoder that never finishes is stopped after 1 s instead of the default ~5 s: a fixture file decodes in
    // milliseconds, and a limit hit on a busy machine is a DATA error, an outcome the test accepts anyway
    const built = await buildFromSources(recipe, fetcherFor(c), { lock, decodeTimeoutMs: DECODE_LIMIT_MS })
    // the rows decoded are the locked ones, so the output must be the reference, byte for byte
    if ([...built.files.keys()].join() !== [...reference.keys()].join())
      return { message: `other output files: ${[...built.files.keys()].join(', ')}` }
    for (const [name, content] of reference)
      if (built.files.get(name) !== content) return { message: `built, but ${name} differs from the reference` }
    return { outcome: 'built, identical' }
  } catch (e) {
    if (!isJevError(e)) return { message: `an untyped ${(e as Error)?.name ?? typeof e}: ${(e as Error)?.message ?? String(e)}` }
    if (!EXPECTED.includes(e.code)) return { message: `error[${e.code}] ${e.message}` }
    if (e.context.source === undefined && e.context.file === undefined)
      return { message: `error[${e.code}] names neither source nor file: ${e.message}` }
    return { outcome: `error[${e.code}]` }
  }
}

for (let i = 0; i < cases; i++) {
  const c = makeCase(i)
  const label = `case ${i}: ${c.repo}/${c.path} ${c.what}`
  post({ kind: 'start', i, label })
  const t0 = performance.now()
  const r = await run(c)
  post(
    'outcome' in r
      ? { kind: 'done', i, label, outcome: r.outcome, ms: performance.now() - t0 }
      : { kind: 'fail', i, label, message: r.message },
  )
}
post({ kind: 'end' })
