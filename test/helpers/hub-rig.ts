/**
 * The rig the Hub fault tests share: the loopback Hub behind the fault proxy, a fresh cache, a
 * fetcher with recorded (instant) waits and log lines, and checks of what the cache holds.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHubFetcher, type HubFetcherOptions } from '../../src/fetch/hub.ts'
import type { FileFetcher } from '../../src/fetch/types.ts'
import { ownFile, ROOT } from './cli.ts'
import { type FaultProxy, startFaultProxy } from './fault-proxy.ts'
import { type HubServer, startHubServer } from './hub-server.ts'

export { ROOT }
export const FIXTURE_HUB = join(ROOT, 'test', 'fixtures', 'hub')
export const CHILD = ownFile('test/helpers/hub-fetch-child.ts')
export const ARC = 'allenai/ai2_arc'
export const ARC_REV = '210d026faf9955653af8916fad021475a3f00453'
export const FILE = 'ARC-Challenge/test-00000-of-00001.parquet'
export const CDN = '/cdn-lfs/'
export const SECRET = 'hf_SECRETsecret123'

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
export const gitSha1 = (b: Uint8Array) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex')
export const FILE_BYTES = await readFile(join(FIXTURE_HUB, 'datasets', ...ARC.split('/'), FILE))
export const FILE_SHA = sha256(FILE_BYTES)

/** Every fixture file with the revision the fixture recipe pins. */
const recipe = JSON.parse(await readFile(join(ROOT, 'test', 'fixtures', 'recipe.json'), 'utf8')) as {
  sources: Array<{ repo: string; revision: string; files: Record<string, string[]> }>
}
export const ALL_FILES: Array<[string, string, string]> = [
  ...new Map(
    recipe.sources.flatMap((s) =>
      Object.values(s.files)
        .flat()
        .map((p) => [`${s.repo} ${p}`, [s.repo, s.revision, p] as [string, string, string]]),
    ),
  ).values(),
]

/**
 * A lock-poll sleep for fetchers that share a cache: real, but at most 20 ms a poll, so a waiter
 * notices the other's download at once, and gives up (after 3000 polls of a nominal 200 ms) no
 * sooner than a minute, however fast the machine polls.
 */
export const pollSleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, Math.min(ms, 20)))

/**
 * The transport for a test that gives a hang a short timeout: the real fetch, but the guard's
 * abort reaches a request only once the proxy holds it in a hang (for `hang-body`, once every
 * byte it sent has been handed on). A busy machine can pause this process, proxy and Hub
 * included, past the timeout in the middle of a good answer; that answer is then not cut, so
 * the test sees only the timeouts of the hangs it made, however slow the machine.
 */
export function hangOnlyTimeouts(proxy: FaultProxy): typeof fetch {
  return async (input, init) => {
    const from = proxy.requests.length
    const real = new AbortController()
    let delivered = 0
    let over = false
    const hung = () => proxy.requests.slice(from).some((r) => r.fault === 'hang' || (r.fault === 'hang-body' && delivered >= r.sent!))
    // the proxy records a hang a moment after the request reaches it: until then, look again
    const check = (): void => {
      if (over || real.signal.aborted) return
      if (hung()) {
        real.abort(init?.signal?.reason)
        return
      }
      setTimeout(check, 5)
    }
    init?.signal?.addEventListener('abort', check, { once: true })
    const res = await fetch(input, { ...init, signal: real.signal }).catch((e: unknown) => {
      over = true
      throw e
    })
    if (!res.body) {
      over = true
      return res
    }
    const reader = res.body.getReader()
    // one chunk per read, no queue: `delivered` is what the guard has read
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(c) {
          const { done, value } = await reader.read().catch((e: unknown) => {
            over = true
            throw e
          })
          if (done) {
            over = true
            c.close()
            return
          }
          delivered += value.length
          c.enqueue(value)
        },
        cancel: (why) => {
          over = true
          return reader.cancel(why)
        },
      },
      { highWaterMark: 0 },
    )
    const copy = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
    Object.defineProperty(copy, 'url', { value: res.url })
    Object.defineProperty(copy, 'redirected', { value: res.redirected })
    return copy
  }
}

/** The log line a fetcher writes when it waits on another's blob lock. */
export const WAITING = 'waiting for another build'

export interface Rig {
  hub: HubServer
  proxy: FaultProxy
  tmp: string
  cacheDir: string
  repoDir: string
  sleeps: number[]
  logs: string[]
  fetcher(extra?: Partial<HubFetcherOptions>): FileFetcher
}

export async function withRig(fn: (r: Rig) => Promise<void>, opts: { root?: string; token?: string } = {}): Promise<void> {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-faults-'))
  const hub = await startHubServer({ root: opts.root ?? FIXTURE_HUB, ...(opts.token ? { token: opts.token } : {}) })
  const proxy = await startFaultProxy(hub.url)
  const cacheDir = join(tmp, 'cache')
  const sleeps: number[] = []
  const logs: string[] = []
  try {
    await fn({
      hub,
      proxy,
      tmp,
      cacheDir,
      sleeps,
      logs,
      repoDir: join(cacheDir, 'datasets--allenai--ai2_arc'),
      fetcher: (extra = {}) =>
        createHubFetcher({
          endpoint: proxy.url,
          cacheDir,
          random: () => 0,
          log: (l) => logs.push(l),
          sleep: async (ms) => void sleeps.push(ms),
          ...extra,
        }),
    })
  } finally {
    await proxy.close()
    await hub.close()
    await rm(tmp, { recursive: true, force: true })
  }
}

export async function listAll(dir: string): Promise<string[]> {
  return ((await readdir(dir, { recursive: true }).catch(() => [])) as string[]).map(String).sort()
}

/** No temp file and no lock anywhere; with `empty`, no blob or snapshot either. */
export async function assertClean(cacheDir: string, empty = false): Promise<void> {
  const all = await listAll(cacheDir)
  assert.deepEqual(
    all.filter((p) => p.endsWith('.incomplete') || p.endsWith('.lock')),
    [],
    'temp or lock files left',
  )
  if (empty)
    assert.deepEqual(
      all.filter((p) => /\/(blobs|snapshots)\//.test(p)),
      [],
      'nothing may enter the cache',
    )
}

/** Every blob hashes to its name; every snapshot link points at a blob that exists. */
export async function assertConsistent(cacheDir: string): Promise<number> {
  let blobs = 0
  for (const rel of await listAll(cacheDir)) {
    const abs = join(cacheDir, rel)
    const st = await lstat(abs)
    const m = /\/blobs\/([0-9a-f]{40}|[0-9a-f]{64})$/.exec(rel)
    if (m) {
      const bytes = await readFile(abs)
      assert.equal(m[1]!.length === 64 ? sha256(bytes) : gitSha1(bytes), m[1], `blob ${rel} does not verify`)
      blobs++
    } else if (st.isSymbolicLink()) {
      await readFile(abs) // throws on a dangling link
    }
  }
  return blobs
}

/** Full-body (non-Range) downloads per file seen by the proxy. */
export const fullDownloads = (proxy: FaultProxy) => {
  const n = new Map<string, number>()
  for (const r of proxy.requests) {
    if (r.method !== 'GET' || r.range || r.status !== 200 || !(r.url.startsWith(CDN) || r.url.includes('/resolve/'))) continue
    const key = decodeURIComponent(r.url.split('?')[0]!)
    n.set(key, (n.get(key) ?? 0) + 1)
  }
  return n
}
