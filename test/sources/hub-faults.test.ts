import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { lstat, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { isJevError } from '../../src/errors.ts'
import type { HubFetcherOptions } from '../../src/fetch/hub.ts'
import { backoffMs, parseRetryAfter } from '../../src/fetch/retry.ts'
import { ownFile, TS_LOADER } from '../helpers/cli.ts'
import { rejectsWith } from '../helpers/errors.ts'
import { type FaultRule, startFaultProxy } from '../helpers/fault-proxy.ts'
import {
  ALL_FILES,
  ARC,
  ARC_REV,
  assertClean,
  assertConsistent,
  CDN,
  CHILD,
  FILE,
  FILE_BYTES,
  FILE_SHA,
  FIXTURE_HUB,
  fullDownloads,
  gitSha1,
  hangOnlyTimeouts,
  listAll,
  pollSleep,
  ROOT,
  SECRET,
  sha256,
  WAITING,
  withRig,
} from '../helpers/hub-rig.ts'

test('parseRetryAfter reads seconds and HTTP dates; backoff doubles from 1 s with jitter, capped', () => {
  const now = Date.UTC(2024, 0, 1)
  assert.equal(parseRetryAfter('7', now), 7000)
  assert.equal(parseRetryAfter(' 0 ', now), 0)
  assert.equal(parseRetryAfter(new Date(now + 12_000).toUTCString(), now), 12_000)
  assert.equal(parseRetryAfter(new Date(now - 5_000).toUTCString(), now), 0)
  assert.equal(parseRetryAfter('soon', now), null)
  assert.equal(parseRetryAfter(null, now), null)
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => backoffMs(i, () => 0)),
    [500, 1000, 2000, 4000],
  )
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => backoffMs(i, () => 0.999999)),
    [1000, 2000, 4000, 8000],
  )
  assert.equal(
    backoffMs(20, () => 0.999999),
    30_000,
  )
})

interface Case {
  name: string
  rule: Omit<FaultRule, 'times'>
  revision?: string
  timeoutMs?: number
}

const TRANSIENT: Case[] = [
  { name: 'HTTP 500 on the file', rule: { match: FILE, fault: 'status:500' } },
  { name: 'HTTP 502 on paths-info', rule: { match: 'paths-info', fault: 'status:502' } },
  { name: 'HTTP 503 on the revision lookup', rule: { match: '/revision/main', fault: 'status:503' }, revision: 'main' },
  { name: 'HTTP 429 on the CDN', rule: { match: CDN, fault: 'status:429' } },
  { name: 'a connection reset mid-body', rule: { match: CDN, fault: 'reset' } },
  { name: 'a truncated body', rule: { match: CDN, fault: 'truncate' } },
  { name: 'wrong bytes', rule: { match: CDN, fault: 'corrupt' } },
  { name: 'an HTML page with 200 for the file', rule: { match: FILE, fault: 'html200' } },
  { name: 'an HTML page with 200 for paths-info', rule: { match: 'paths-info', fault: 'html200' } },
  { name: 'a server that never answers', rule: { match: CDN, fault: 'hang' }, timeoutMs: 200 },
  { name: 'a body that stalls', rule: { match: CDN, fault: 'hang-body' }, timeoutMs: 200 },
]

for (const c of TRANSIENT) {
  test(`${c.name}, 4 times: retried 4 times (the whole budget), then the file`, () =>
    withRig(async ({ proxy, cacheDir, sleeps, logs, fetcher }) => {
      const rule = proxy.addFault({ ...c.rule, times: 4 })
      const f = await fetcher(c.timeoutMs ? { timeoutMs: c.timeoutMs, fetch: hangOnlyTimeouts(proxy) } : {}).fetchFile(
        ARC,
        c.revision ?? ARC_REV,
        FILE,
      )
      assert.equal(f.sha256, FILE_SHA)
      assert.equal(rule.applied, 4)
      assert.equal(sleeps.length, 4, `one wait per retry: ${sleeps.join(', ')}`)
      assert.ok(
        logs.some((l) => l.includes('attempt 5 of 5')),
        logs.join('\n'),
      )
      await assertClean(cacheDir)
      assert.equal(await assertConsistent(cacheDir), 1)
    }))
}

const PERMANENT: Array<Case & { code: string; says: RegExp; status?: number }> = [
  { name: 'HTTP 503 on the file', rule: { match: FILE, fault: 'status:503' }, code: 'NETWORK', says: /HTTP 503 /, status: 503 },
  {
    name: 'HTTP 429 on paths-info',
    rule: { match: 'paths-info', fault: 'status:429' },
    code: 'NETWORK',
    says: /HTTP 429 .*rate limited/,
    status: 429,
  },
  {
    name: 'HTTP 500 on the revision lookup',
    rule: { match: '/revision/main', fault: 'status:500' },
    revision: 'main',
    code: 'NETWORK',
    says: /HTTP 500 /,
    status: 500,
  },
  {
    name: 'a connection reset mid-body',
    rule: { match: CDN, fault: 'reset' },
    code: 'NETWORK',
    says: /cut short after \d+ of 8599 bytes|connection failed/,
  },
  { name: 'a truncated body', rule: { match: CDN, fault: 'truncate' }, code: 'NETWORK', says: /cut short after 4299 of 8599 bytes/ },
  {
    name: 'wrong bytes',
    rule: { match: CDN, fault: 'corrupt' },
    code: 'INTEGRITY',
    says: new RegExp(`expected ${FILE_SHA} \\(8599 bytes\\), received [0-9a-f]{64}; nothing was written`),
  },
  { name: 'an HTML page with 200', rule: { match: FILE, fault: 'html200' }, code: 'NETWORK', says: /HTML page with HTTP 200/ },
  {
    name: 'a server that never answers',
    rule: { match: CDN, fault: 'hang' },
    timeoutMs: 200,
    code: 'NETWORK',
    says: /no response within 200 ms/,
  },
  {
    name: 'a body that stalls',
    rule: { match: CDN, fault: 'hang-body' },
    timeoutMs: 200,
    code: 'NETWORK',
    says: /stalled for 200 ms after 4299 of 8599 bytes/,
  },
]

for (const c of PERMANENT) {
  test(`${c.name}, always: ${c.code} after 5 attempts naming repo, revision, path${c.status ? ' and status' : ''}; nothing cached, and the cache builds afterwards`, () =>
    withRig(async ({ proxy, cacheDir, sleeps, fetcher }) => {
      const rule = proxy.addFault(c.rule)
      const revision = c.revision ?? ARC_REV
      const e = await rejectsWith(
        fetcher(c.timeoutMs ? { timeoutMs: c.timeoutMs, fetch: hangOnlyTimeouts(proxy) } : {}).fetchFile(ARC, revision, FILE),
        c.code,
        { oneLine: true },
      )
      for (const part of [ARC, revision, FILE, 'after 5 attempts']) assert.ok(e.message.includes(part), `${part} missing: ${e.message}`)
      assert.match(e.message, c.says)
      if (c.status) assert.equal(e.context.status, c.status)
      assert.equal(e.context.attempts, 5)
      assert.equal(rule.applied, 5)
      assert.equal(sleeps.length, 4)
      await assertClean(cacheDir, true)
      // and the same cache builds against a clean server afterwards
      proxy.clearFaults()
      assert.equal((await fetcher().fetchFile(ARC, revision, FILE)).sha256, FILE_SHA)
      await assertClean(cacheDir)
      assert.equal(await assertConsistent(cacheDir), 1)
    }))
}

test('429 with Retry-After in seconds: every wait is what the Hub asked for (not less)', () =>
  withRig(async ({ proxy, sleeps, logs, fetcher }) => {
    proxy.addFault({ match: FILE, fault: 'status:429', retryAfter: '7', times: 2 })
    assert.equal((await fetcher().fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
    assert.deepEqual(sleeps, [7000, 7000])
    assert.ok(
      logs.some((l) => l.includes('the Hub asked to wait 7 s')),
      logs.join('\n'),
    )
  }))

test('503 with Retry-After as an HTTP date is measured against the injected clock; backoff wins when longer', () =>
  withRig(async ({ proxy, sleeps, fetcher }) => {
    const now = Date.UTC(2024, 0, 1, 12)
    proxy.addFault({ match: FILE, fault: 'status:503', retryAfter: new Date(now + 12_000).toUTCString(), times: 1 })
    proxy.addFault({ match: FILE, fault: 'status:503', retryAfter: '0', times: 3 })
    assert.equal((await fetcher({ now: () => now }).fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
    assert.deepEqual(sleeps, [12_000, 1000, 2000, 4000])
  }))

test('without Retry-After the waits back off exponentially, with jitter from the injected source', () =>
  withRig(async ({ proxy, sleeps, fetcher }) => {
    proxy.addFault({ match: 'paths-info', fault: 'status:503', times: 4 })
    await fetcher({ random: () => 0.5 }).fetchFile(ARC, ARC_REV, FILE)
    assert.deepEqual(sleeps, [750, 1500, 3000, 6000])
  }))

test('a Retry-After longer than the cap (default 60 s) ends the retries at once, saying when to retry and what to set', () =>
  withRig(async ({ proxy, cacheDir, sleeps, fetcher }) => {
    const now = Date.UTC(2024, 0, 1, 12)
    for (const wait of ['3600', '120']) {
      const rule = proxy.addFault({ match: 'paths-info', fault: 'status:429', retryAfter: wait })
      const e = await rejectsWith(fetcher({ now: () => now }).fetchFile(ARC, ARC_REV, FILE), 'NETWORK', { oneLine: true })
      assert.match(
        e.message,
        new RegExp(
          `HTTP 429 for allenai/ai2_arc@210d026\\S+ ARC-Challenge/test-00000-of-00001\\.parquet and asked to wait ${wait} s, longer than the 60 s`,
        ),
      )
      assert.match(e.message, /set JEV_MAX_RETRY_AFTER or --max-retry-after to wait longer/)
      assert.ok(e.message.includes(`try again after ${new Date(now + Number(wait) * 1000).toISOString().replace('.000Z', 'Z')}`), e.message)
      assert.equal(rule.applied, 1)
      assert.deepEqual(sleeps, [])
      proxy.clearFaults()
    }
    await assertClean(cacheDir, true)
    // a longer cap waits it out
    proxy.addFault({ match: 'paths-info', fault: 'status:429', retryAfter: '120', times: 1 })
    assert.equal((await fetcher({ maxRetryAfterMs: 200_000, fileDeadlineMs: 300_000 }).fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
    assert.deepEqual(sleeps, [120_000])
  }))

test('a Retry-After within the cap but past the file deadline ends at once, saying how long the Hub asked for', () =>
  withRig(async ({ proxy, cacheDir, sleeps, fetcher }) => {
    const now = Date.UTC(2024, 0, 1, 12)
    const rule = proxy.addFault({ match: 'paths-info', fault: 'status:429', retryAfter: '50' })
    const e = await rejectsWith(fetcher({ now: () => now, fileDeadlineMs: 30_000 }).fetchFile(ARC, ARC_REV, FILE), 'NETWORK', {
      oneLine: true,
    })
    assert.match(e.message, /HTTP 429 for allenai\/ai2_arc@210d026\S+ \S+ and asked to wait 50 s, more than the \d+ s left of the 30 s/)
    assert.match(e.message, /set JEV_FILE_DEADLINE or --file-deadline to wait longer/)
    assert.ok(e.message.includes(`try again after ${new Date(now + 50_000).toISOString().replace('.000Z', 'Z')}`), e.message)
    assert.equal(rule.applied, 1)
    assert.deepEqual(sleeps, [])
    await assertClean(cacheDir, true)
  }))

test('retries: 0 makes one attempt', () =>
  withRig(async ({ proxy, sleeps, fetcher }) => {
    const rule = proxy.addFault({ match: FILE, fault: 'status:503', times: 1 })
    const e = await rejectsWith(fetcher({ retries: 0 }).fetchFile(ARC, ARC_REV, FILE), 'NETWORK', { oneLine: true })
    assert.ok(!e.message.includes('attempts'), e.message)
    assert.equal(rule.applied, 1)
    assert.deepEqual(sleeps, [])
  }))

test('a request that cannot be made (no http scheme, a token with a newline) fails after one attempt, without the token', () =>
  withRig(async ({ sleeps, fetcher }) => {
    let e = await rejectsWith(fetcher({ endpoint: 'localhost:8080' }).fetchFile(ARC, ARC_REV, FILE), 'NETWORK', { oneLine: true })
    assert.match(e.message, /unknown scheme/)
    const token = 'hf_secret\nline2'
    e = await rejectsWith(fetcher({ token }).fetchFile(ARC, ARC_REV, FILE), 'NETWORK', { oneLine: true })
    assert.ok(!e.message.includes('hf_secret') && !e.message.includes('line2'), e.message)
    assert.deepEqual(sleeps, [], 'no retry')
  }))

const ONCE: Array<{
  name: string
  rule?: Omit<FaultRule, 'times'>
  revision?: string
  repo?: string
  path?: string
  code: string
  says: RegExp
}> = [
  { name: '401', rule: { match: 'paths-info', fault: 'status:401' }, code: 'AUTH', says: /HTTP 401 \(unauthorized\) .*set HF_TOKEN/ },
  {
    name: '403',
    rule: { match: FILE, fault: 'status:403' },
    code: 'AUTH',
    says: /HTTP 403 \(forbidden\) .*gated or private; set HF_TOKEN/,
  },
  {
    name: '404 on the file',
    rule: { match: FILE, fault: 'status:404', errorCode: 'EntryNotFound' },
    code: 'NOT_FOUND',
    says: /HTTP 404 .*check the recipe's path/,
  },
  {
    name: '404 without an error code',
    rule: { match: 'paths-info', fault: 'status:404' },
    code: 'NOT_FOUND',
    says: /HTTP 404 .*check the recipe's repo, revision and path/,
  },
  {
    name: 'a missing file',
    path: 'ARC-Challenge/nope.parquet',
    code: 'NOT_FOUND',
    says: /no file ARC-Challenge\/nope\.parquet .*check the recipe's path/,
  },
  { name: 'a missing repo', repo: 'allenai/nope', code: 'NOT_FOUND', says: /no dataset repo allenai\/nope; check the recipe's repo/ },
  {
    name: 'a missing revision',
    revision: 'no-such-branch',
    code: 'NOT_FOUND',
    says: /no revision no-such-branch in allenai\/ai2_arc; check the recipe's revision/,
  },
]

for (const c of ONCE) {
  test(`${c.name}: ${c.code} after exactly one attempt, one line saying what to check`, () =>
    withRig(async ({ proxy, cacheDir, sleeps, fetcher }) => {
      const rule = c.rule ? proxy.addFault(c.rule) : undefined
      const e = await rejectsWith(fetcher().fetchFile(c.repo ?? ARC, c.revision ?? ARC_REV, c.path ?? FILE), c.code, { oneLine: true })
      assert.match(e.message, c.says)
      assert.equal(e.context.status, c.code === 'AUTH' ? Number(c.name) : 404)
      if (rule) assert.equal(rule.applied, 1)
      // paths-info (or the revision lookup) first; a fault on the file needs that one plus the file's own request
      assert.equal(proxy.requests.length, c.rule?.match === FILE ? 2 : 1, proxy.requests.map((r) => r.url).join('\n'))
      assert.deepEqual(sleeps, [])
      await assertClean(cacheDir, true)
      if (!rule) return
      // a fault of the server's, not of the recipe: the same cache builds once it is gone
      proxy.clearFaults()
      assert.equal((await fetcher().fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
      await assertClean(cacheDir)
    }))
}

test('with a token, a rejected one says HF_TOKEN was rejected', () =>
  withRig(async ({ proxy, fetcher }) => {
    proxy.addFault({ match: 'paths-info', fault: 'status:401' })
    const e = await rejectsWith(fetcher({ token: SECRET }).fetchFile(ARC, ARC_REV, FILE), 'AUTH', { oneLine: true })
    assert.match(e.message, /HF_TOKEN was rejected/)
    assert.ok(!e.message.includes(SECRET))
  }))

test('two fetchers on one empty cache at once: both succeed, each blob downloaded once and verified', () =>
  withRig(async ({ proxy, cacheDir, logs, fetcher }) => {
    // Every download is held until one fetcher is seen waiting on the other's lock, so they overlap on any machine.
    const held = proxy.addFault({ match: CDN, fault: 'hold' })
    const log = (l: string) => {
      logs.push(l)
      if (l.includes(WAITING)) held.release()
    }
    const a = fetcher({ sleep: pollSleep, log })
    const b = fetcher({ sleep: pollSleep, log })
    const [ra, rb] = await Promise.all([a, b].map((h) => Promise.all(ALL_FILES.map(([repo, rev, path]) => h.fetchFile(repo, rev, path)))))
    for (const [i, [repo, , path]] of ALL_FILES.entries()) {
      const want = sha256(await readFile(join(FIXTURE_HUB, 'datasets', ...repo.split('/'), path)))
      assert.equal(ra![i]!.sha256, want)
      assert.equal(rb![i]!.sha256, want)
    }
    await assertClean(cacheDir)
    assert.equal(await assertConsistent(cacheDir), ALL_FILES.length)
    const n = fullDownloads(proxy)
    assert.equal(n.size, ALL_FILES.length)
    assert.deepEqual(
      [...n.values()],
      ALL_FILES.map(() => 1),
      'the lock saves the second download',
    )
    assert.ok(
      logs.some((l) => l.includes(WAITING)),
      logs.join('\n'),
    )
  }))

/** Runs hub-fetch-child.ts; `onErr` sees its stderr so far after every chunk. */
function runChild(
  endpoint: string,
  cacheDir: string,
  onErr: (err: string) => void = () => {},
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((ok, ko) => {
    const p = spawn(process.execPath, [...TS_LOADER, CHILD, endpoint, cacheDir, JSON.stringify(ALL_FILES)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    p.stdout.on('data', (d: Buffer) => (out += d.toString()))
    p.stderr.on('data', (d: Buffer) => onErr((err += d.toString())))
    // only a bound on a hang (a broken lock that never makes either wait); no outcome depends on it
    const kill = setTimeout(() => p.kill('SIGKILL'), 120_000)
    p.on('error', ko)
    p.on('close', (code) => {
      clearTimeout(kill)
      ok({ code, out, err })
    })
  })
}

test('two processes on one empty cache at once: both succeed, each blob downloaded once and verified', () =>
  withRig(async ({ proxy, cacheDir }) => {
    // Every download is held until one process is seen waiting on the other's lock: each blob's lock is
    // taken by one and, held, found by the other, so they overlap however late the second one starts.
    const held = proxy.addFault({ match: CDN, fault: 'hold' })
    const onErr = (err: string) => {
      if (err.includes(WAITING)) held.release()
    }
    const [x, y] = await Promise.all([runChild(proxy.url, cacheDir, onErr), runChild(proxy.url, cacheDir, onErr)])
    assert.equal(x!.code, 0, `${x!.err}\n(a code of null: killed, neither was seen waiting on the other's lock)`)
    assert.equal(y!.code, 0, y!.err)
    assert.equal(x!.out, y!.out)
    assert.match(`${x!.err}${y!.err}`, new RegExp(WAITING))
    const got = JSON.parse(x!.out) as Array<{ path: string; sha256: string }>
    for (const [i, [repo, , path]] of ALL_FILES.entries()) {
      assert.equal(got[i]!.sha256, sha256(await readFile(join(FIXTURE_HUB, 'datasets', ...repo.split('/'), path))))
    }
    await assertClean(cacheDir)
    assert.equal(await assertConsistent(cacheDir), ALL_FILES.length)
    const n = fullDownloads(proxy)
    assert.equal(n.size, ALL_FILES.length)
    assert.deepEqual(
      [...n.values()],
      ALL_FILES.map(() => 1),
    )
  }))

test('a process that exits while it holds a blob lock (a CLI after an error) leaves no lock behind', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-lock-exit-'))
  try {
    const blob = join(tmp, 'blobs', 'abc')
    const script = `
      import { existsSync } from 'node:fs'
      import { withBlobLock } from ${JSON.stringify(pathToFileURL(ownFile('src/fetch/hub-cache.ts')).href)}
      // the download the lock guards starts (so the lock is taken and held), and the process exits in the middle of it
      const download = () => {
        if (existsSync(${JSON.stringify(`${blob}.lock`)})) console.log('seen')
        process.exit(3)
      }
      withBlobLock(${JSON.stringify(blob)}, async () => null, download, { now: Date.now, maxWaitMs: 1000, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) })
    `
    const r = spawnSync(process.execPath, [...TS_LOADER, '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    assert.equal(r.status, 3, r.stderr)
    assert.equal(r.stdout.trim(), 'seen', 'the lock existed when the process exited')
    assert.deepEqual(await listAll(join(tmp, 'blobs')), [])
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
})

test("a dead process's lock is removed; a live one is waited for, bounded, then an IO error naming it", () =>
  withRig(async ({ proxy, repoDir, cacheDir, sleeps, logs, fetcher }) => {
    const lock = join(repoDir, 'blobs', `${FILE_SHA}.lock`)
    await mkdir(join(repoDir, 'blobs'), { recursive: true })

    await writeFile(lock, `${process.pid}@${hostname()} 0123456789abcdef\n`) // this process is alive
    const e = await rejectsWith(fetcher({ lockWaitMs: 2000 }).fetchFile(ARC, ARC_REV, FILE), 'IO', { oneLine: true })
    assert.ok(e.message.includes(lock) && e.message.includes(String(process.pid)), e.message)
    assert.equal(
      sleeps.reduce((a, b) => a + b, 0),
      2000,
    )
    assert.equal(fullDownloads(proxy).size, 0)

    await writeFile(lock, `999999999@${hostname()} 0123456789abcdef\n`) // no such pid
    assert.equal((await fetcher().fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
    assert.ok(
      logs.some((l) => l.includes('stale lock')),
      logs.join('\n'),
    )
    await assertClean(cacheDir)

    // A lock left empty by a crash between create and write is stale once old.
    await rm(cacheDir, { recursive: true })
    await mkdir(join(repoDir, 'blobs'), { recursive: true })
    await writeFile(lock, '')
    await utimes(lock, new Date(0), new Date(0))
    assert.equal((await fetcher().fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
    await assertClean(cacheDir)
  }))

test('a corrupted blob on disk is re-fetched, whether its snapshot link exists or not', () =>
  withRig(async ({ proxy, repoDir, cacheDir, logs, fetcher }) => {
    await fetcher().fetchFile(ARC, ARC_REV, FILE)
    const blob = join(repoDir, 'blobs', FILE_SHA)
    const bad = Buffer.from(FILE_BYTES)
    bad[100]! ^= 1 // same length, wrong bytes
    await writeFile(blob, bad)
    assert.equal((await fetcher().fetchFile(ARC, ARC_REV, FILE)).sha256, FILE_SHA)
    assert.ok(
      logs.some((l) => l.includes('is corrupt')),
      logs.join('\n'),
    )
    assert.deepEqual(await readFile(blob), FILE_BYTES)

    // Same blob under another revision, no link yet: the bad blob is replaced, not trusted.
    await writeFile(blob, bad)
    assert.equal((await fetcher().fetchFile(ARC, 'main', FILE)).sha256, FILE_SHA)
    assert.deepEqual(await readFile(blob), FILE_BYTES)
    assert.equal(
      [...fullDownloads(proxy)].filter(([k]) => k.endsWith(FILE)).reduce((a, [, v]) => a + v, 0),
      3,
    )
    await assertClean(cacheDir)
    assert.equal(await assertConsistent(cacheDir), 1)
  }))

test('small (non-LFS) files: wrong bytes are checked against the git blob sha1', async () => {
  const root = await mkdtemp(join(tmpdir(), 'jev-faults-root-'))
  const notes = Buffer.from('hello notes\n')
  await mkdir(join(root, 'datasets', 'acme', 'tiny'), { recursive: true })
  await writeFile(join(root, 'datasets', 'acme', 'tiny', 'notes.txt'), notes)
  try {
    await withRig(
      async ({ proxy, cacheDir, fetcher }) => {
        proxy.addFault({ match: 'notes.txt', fault: 'corrupt', times: 2 })
        assert.equal((await fetcher().fetchFile('acme/tiny', 'main', 'notes.txt')).sha256, sha256(notes))
        await rm(cacheDir, { recursive: true })
        proxy.addFault({ match: 'notes.txt', fault: 'corrupt' })
        const e = await rejectsWith(fetcher().fetchFile('acme/tiny', 'main', 'notes.txt'), 'INTEGRITY', { oneLine: true })
        assert.ok(e.message.includes(`expected ${gitSha1(notes)}`), e.message)
        await assertClean(cacheDir, true)
      },
      { root },
    )
  } finally {
    await rm(root, { recursive: true, force: true })
  }
})

test('the token appears in no error message, context, log line, proxy record or cache file on any error path', () =>
  withRig(
    async ({ proxy, cacheDir, repoDir, logs, fetcher }) => {
      const seen: string[] = []
      const quick = { token: SECRET, retries: 1, timeoutMs: 200, fetch: hangOnlyTimeouts(proxy) }
      const paths: Array<[Omit<FaultRule, 'times'> | null, string, Partial<HubFetcherOptions>?]> = [
        ...PERMANENT.map((c) => [c.rule, c.revision ?? ARC_REV] as [Omit<FaultRule, 'times'>, string]),
        ...ONCE.filter((c) => c.rule).map((c) => [c.rule!, ARC_REV] as [Omit<FaultRule, 'times'>, string]),
        [{ match: 'paths-info', fault: 'status:429', retryAfter: '3600' }, ARC_REV],
        [null, 'no-such-branch'],
        [null, ARC_REV, { token: 'hf_wrong', retries: 1 }],
      ]
      for (const [rule, rev, extra] of paths) {
        proxy.clearFaults()
        if (rule) proxy.addFault(rule)
        try {
          await fetcher({ ...quick, ...extra }).fetchFile(ARC, rev, FILE)
          assert.fail(`expected a failure for ${JSON.stringify(rule)}`)
        } catch (e) {
          assert.ok(isJevError(e), String(e))
          seen.push(e.message, JSON.stringify(e.context), e.stack ?? '')
        }
      }
      proxy.clearFaults()
      await mkdir(join(repoDir, 'blobs'), { recursive: true })
      await writeFile(join(repoDir, 'blobs', `${FILE_SHA}.lock`), `999999999@${hostname()} x\n`)
      proxy.addFault({ match: CDN, fault: 'corrupt', times: 1 })
      // retried, stale lock, refs written: every log line kind (no hang here, so no short timeout to trip on a busy machine)
      await fetcher({ token: SECRET, retries: 1 }).fetchFile(ARC, 'main', FILE)

      assert.ok(logs.length > 10)
      for (const text of [...seen, ...logs, JSON.stringify(proxy.requests)]) {
        assert.ok(!text.includes(SECRET) && !text.includes(SECRET.slice(3)), `token leaked: ${text}`)
      }
      const files = await listAll(cacheDir)
      assert.ok(files.some((p) => p.includes('refs')))
      for (const rel of files) {
        const st = await lstat(join(cacheDir, rel))
        if (st.isFile()) assert.ok(!(await readFile(join(cacheDir, rel), 'latin1')).includes(SECRET), `${rel} holds the token`)
      }
    },
    { token: SECRET },
  ))

test('the fault proxy rewrites absolute redirects to come back through it', async () => {
  const { createServer } = await import('node:http')
  const up = createServer((req, res) => {
    if (req.url === '/a') return void res.writeHead(302, { Location: `${origin}/b`, 'Content-Length': '0' }).end()
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' }).end('ok')
  })
  await new Promise<void>((ok) => up.listen(0, '127.0.0.1', () => ok()))
  const origin = `http://127.0.0.1:${(up.address() as { port: number }).port}`
  const proxy = await startFaultProxy(origin)
  try {
    const manual = await fetch(`${proxy.url}/a`, { redirect: 'manual' })
    assert.equal(manual.headers.get('location'), `${proxy.url}/b`)
    proxy.addFault({ match: '/b', fault: 'corrupt', times: 1 })
    const body = Buffer.from(await (await fetch(`${proxy.url}/a`)).arrayBuffer())
    assert.deepEqual([...body], [0x6f, 0x6b ^ 0xff]) // followed through the proxy, so faultable
    assert.deepEqual(
      proxy.requests.map((r) => `${r.url} ${r.status} ${r.fault ?? ''}`),
      ['/a 302 ', '/a 302 ', '/b 200 corrupt'],
    )
  } finally {
    await proxy.close()
    await new Promise((ok) => up.close(ok))
  }
})
