import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createHubFetcher, type HubFetcherOptions, hubOptionsFromEnv, resolveCacheDir } from '../../src/fetch/hub.ts'
import { rejectsWith } from '../helpers/errors.ts'
import { type HubServer, type HubServerOptions, startHubServer } from '../helpers/hub-server.ts'

const REPO = 'acme/tiny'
const PINNED = '210d026faf9955653af8916fad021475a3f00453'
const PARQUET = new Uint8Array(Array.from({ length: 5000 }, (_, i) => (i * 7 + 3) % 256))
const NOTES = new TextEncoder().encode('hello notes\n')
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const gitSha1 = (b: Uint8Array) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex')
const MAIN_COMMIT = createHash('sha1').update(`commit:${REPO}`).digest('hex')
const TOKEN = 'hf_testSecretToken0123456789'

interface Ctx {
  server: HubServer
  cacheDir: string
  repoDir: string
  fetcher(extra?: Partial<HubFetcherOptions>): ReturnType<typeof createHubFetcher>
}

async function withHub(fn: (c: Ctx) => Promise<void>, serverOpts: Partial<HubServerOptions> = {}): Promise<void> {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-hub-'))
  const root = join(tmp, 'hub')
  const repoRoot = join(root, 'datasets', ...REPO.split('/'))
  await mkdir(join(repoRoot, 'data'), { recursive: true })
  await writeFile(join(repoRoot, 'data', 'x.parquet'), PARQUET)
  await writeFile(join(repoRoot, 'notes.txt'), NOTES)
  const server = await startHubServer({ root, ...serverOpts })
  const cacheDir = join(tmp, 'cache')
  try {
    await fn({
      server,
      cacheDir,
      repoDir: join(cacheDir, 'datasets--acme--tiny'),
      fetcher: (extra = {}) => createHubFetcher({ endpoint: server.url, cacheDir, sleep: async () => {}, ...extra }),
    })
  } finally {
    await server.close()
    await rm(tmp, { recursive: true, force: true })
  }
}

async function listAll(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[])
  return entries.map(String).sort()
}

test('download writes blobs, relative snapshot symlinks and refs/main in the HF cache layout', () =>
  withHub(async ({ server, repoDir, fetcher }) => {
    const hub = fetcher()
    assert.equal(hub.kind, 'hub')
    const f = await hub.fetchFile(REPO, 'main', 'data/x.parquet')
    assert.deepEqual(Buffer.from(f.bytes), Buffer.from(PARQUET))
    assert.equal(f.sha256, sha256(PARQUET))
    assert.equal(f.size, PARQUET.length)
    assert.equal(f.commit, MAIN_COMMIT)
    assert.equal(f.revision, 'main')

    const lfsBlob = join(repoDir, 'blobs', sha256(PARQUET))
    assert.deepEqual(await readFile(lfsBlob), Buffer.from(PARQUET))
    const pointer = join(repoDir, 'snapshots', MAIN_COMMIT, 'data', 'x.parquet')
    assert.ok((await lstat(pointer)).isSymbolicLink())
    assert.equal(await readlink(pointer), `../../../blobs/${sha256(PARQUET)}`)
    assert.equal(await readFile(join(repoDir, 'refs', 'main'), 'utf8'), MAIN_COMMIT)

    const n = await hub.fetchFile(REPO, 'main', 'notes.txt')
    assert.equal(n.sha256, sha256(NOTES))
    assert.equal(await readlink(join(repoDir, 'snapshots', MAIN_COMMIT, 'notes.txt')), `../../blobs/${gitSha1(NOTES)}`)

    const all = await listAll(repoDir)
    assert.ok(!all.some((p) => p.endsWith('.incomplete')), `temp files left: ${all.join(', ')}`)
    assert.ok(
      server.requests.every((r) => !r.auth),
      'no token, no Authorization header',
    )
    const kinds = server.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`)
    assert.ok(
      kinds.some((k) => k.startsWith('POST /api/datasets/acme/tiny/paths-info/')),
      kinds.join('\n'),
    )
  }))

test('a pinned commit writes no ref; warm fetches make zero requests', () =>
  withHub(async ({ server, repoDir, fetcher }) => {
    await fetcher().fetchFile(REPO, PINNED, 'data/x.parquet')
    await fetcher().fetchFile(REPO, 'main', 'notes.txt')
    assert.ok(server.requests.every((r) => !r.url.includes('/revision/') || r.url.includes('/revision/main')))
    assert.deepEqual(await readdir(join(repoDir, 'refs')), ['main'])
    assert.ok((await lstat(join(repoDir, 'snapshots', PINNED, 'data', 'x.parquet'))).isSymbolicLink())

    server.requests.length = 0
    const a = await fetcher().fetchFile(REPO, PINNED, 'data/x.parquet')
    const b = await fetcher().fetchFile(REPO, 'main', 'notes.txt')
    assert.equal(server.requests.length, 0)
    assert.equal(a.commit, PINNED)
    assert.equal(a.sha256, sha256(PARQUET))
    assert.equal(b.commit, MAIN_COMMIT)
    assert.deepEqual(Buffer.from(b.bytes), Buffer.from(NOTES))
  }))

test('offline: empty cache is an OFFLINE error with zero requests; warm cache works', () =>
  withHub(async ({ server, cacheDir, fetcher }) => {
    const err = await rejectsWith(fetcher({ offline: true }).fetchFile(REPO, PINNED, 'data/x.parquet'), 'OFFLINE')
    for (const part of [REPO, PINNED, 'data/x.parquet', cacheDir]) assert.ok(err.message.includes(part), err.message)
    assert.equal(server.requests.length, 0)

    await fetcher().fetchFile(REPO, PINNED, 'data/x.parquet')
    await fetcher().fetchFile(REPO, 'main', 'notes.txt')
    server.requests.length = 0
    const off = fetcher({ offline: true })
    assert.equal((await off.fetchFile(REPO, PINNED, 'data/x.parquet')).sha256, sha256(PARQUET))
    assert.equal((await off.fetchFile(REPO, 'main', 'notes.txt')).sha256, sha256(NOTES))
    await rejectsWith(off.fetchFile(REPO, 'main', 'data/x.parquet'), 'OFFLINE') // cached only under the pinned commit
    assert.equal(server.requests.length, 0)
  }))

test('a corrupted blob on disk is deleted and re-fetched (INTEGRITY when offline)', () =>
  withHub(async ({ server, repoDir, fetcher }) => {
    await fetcher().fetchFile(REPO, PINNED, 'data/x.parquet')
    const blob = join(repoDir, 'blobs', sha256(PARQUET))
    await writeFile(blob, 'garbage')

    const err = await rejectsWith(fetcher({ offline: true }).fetchFile(REPO, PINNED, 'data/x.parquet'), 'INTEGRITY')
    assert.ok(err.message.includes(sha256(PARQUET)), err.message)
    await assert.rejects(lstat(blob), { code: 'ENOENT' })

    await writeFile(blob, 'garbage again')
    server.requests.length = 0
    const lines: string[] = []
    const f = await fetcher({ log: (l) => lines.push(l) }).fetchFile(REPO, PINNED, 'data/x.parquet')
    assert.equal(f.sha256, sha256(PARQUET))
    assert.ok(server.requests.length > 0)
    assert.ok(
      lines.some((l) => l.includes('corrupt')),
      lines.join('\n'),
    )
    assert.deepEqual(await readFile(blob), Buffer.from(PARQUET))
  }))

test('wrong bytes from the server are an INTEGRITY error and leave nothing in the cache', () =>
  withHub(async ({ server, repoDir, fetcher }) => {
    server.setFault('x.parquet', 'corrupt')
    server.setFault('notes.txt', 'corrupt')
    for (const [rev, path, expected] of [
      [PINNED, 'data/x.parquet', sha256(PARQUET)],
      ['main', 'notes.txt', gitSha1(NOTES)],
    ] as const) {
      const err = await rejectsWith(fetcher().fetchFile(REPO, rev, path), 'INTEGRITY')
      for (const part of [REPO, rev, path, expected]) assert.ok(err.message.includes(part), err.message)
    }
    const left = await listAll(repoDir)
    assert.ok(!left.some((p) => p.startsWith('blobs/') || p.startsWith('snapshots/')), left.join(', '))
  }))

test('a truncated body is a NETWORK error and leaves no partial files', () =>
  withHub(async ({ server, repoDir, fetcher }) => {
    server.setFault('x.parquet', 'truncate', 1)
    await rejectsWith(fetcher({ retries: 0 }).fetchFile(REPO, PINNED, 'data/x.parquet'), 'NETWORK')
    assert.deepEqual(
      (await listAll(repoDir)).filter((p) => p.includes('.incomplete') || p.startsWith('blobs/')),
      [],
    )
    assert.equal((await fetcher().fetchFile(REPO, PINNED, 'data/x.parquet')).sha256, sha256(PARQUET)) // fault spent
  }))

test('HTTP failures map to NOT_FOUND / AUTH / NETWORK with context', () =>
  withHub(async ({ server, fetcher }) => {
    const hub = fetcher()
    let e = await rejectsWith(hub.fetchFile(REPO, PINNED, 'data/missing.parquet'), 'NOT_FOUND')
    assert.equal(e.context.file, 'data/missing.parquet')
    assert.equal(e.context.repo, REPO)
    e = await rejectsWith(hub.fetchFile('acme/nope', PINNED, 'data/x.parquet'), 'NOT_FOUND')
    assert.equal(e.context.status, 404)
    await rejectsWith(hub.fetchFile(REPO, 'no-such-branch', 'data/x.parquet'), 'NOT_FOUND')

    server.setFault('paths-info', 'status:403', 1)
    e = await rejectsWith(hub.fetchFile(REPO, PINNED, 'data/x.parquet'), 'AUTH')
    assert.equal(e.context.status, 403)
    server.setFault('x.parquet', 'status:500', 1)
    e = await rejectsWith(fetcher({ retries: 0 }).fetchFile(REPO, PINNED, 'data/x.parquet'), 'NETWORK')
    assert.equal(e.context.status, 500)

    await rejectsWith(hub.fetchFile(REPO, PINNED, '../escape.parquet'), 'RECIPE')
  }))

test('connection refused is a NETWORK error', async () => {
  const port = await new Promise<number>((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => ok(p))
    })
  })
  const cacheDir = await mkdtemp(join(tmpdir(), 'jev-hub-'))
  try {
    const hub = createHubFetcher({ endpoint: `http://127.0.0.1:${port}`, cacheDir, token: TOKEN, sleep: async () => {} })
    const e = await rejectsWith(hub.fetchFile(REPO, PINNED, 'data/x.parquet'), 'NETWORK')
    assert.ok(!e.message.includes(TOKEN))
  } finally {
    await rm(cacheDir, { recursive: true, force: true })
  }
})

test('the token is sent as a Bearer header and never appears in errors, logs or files', () =>
  withHub(
    async ({ server, cacheDir, fetcher }) => {
      const lines: string[] = []
      const f = await fetcher({ token: TOKEN, log: (l) => lines.push(l) }).fetchFile(REPO, 'main', 'data/x.parquet')
      assert.equal(f.sha256, sha256(PARQUET))
      const api = server.requests.filter((r) => !r.url.startsWith('/cdn-lfs/'))
      assert.ok(api.length > 0 && api.every((r) => r.auth))

      const noToken = await rejectsWith(fetcher({ log: (l) => lines.push(l) }).fetchFile(REPO, 'main', 'notes.txt'), 'AUTH')
      assert.equal(noToken.context.status, 401)
      const wrong = 'hf_wrongToken'
      const e = await rejectsWith(fetcher({ token: wrong }).fetchFile(REPO, 'main', 'notes.txt'), 'AUTH')
      assert.ok(!e.message.includes(wrong))
      server.setFault('notes.txt', 'corrupt', 1)
      const integ = await rejectsWith(fetcher({ token: TOKEN, retries: 0 }).fetchFile(REPO, PINNED, 'notes.txt'), 'INTEGRITY')
      assert.ok(!integ.message.includes(TOKEN))

      const before = server.requests.length
      const bad = await rejectsWith(fetcher({ token: 'not-a-hf-token' }).fetchFile(REPO, 'main', 'notes.txt'), 'AUTH')
      assert.ok(!bad.message.includes('not-a-hf-token'))
      assert.equal(server.requests.length, before)

      assert.ok(!lines.join('\n').includes(TOKEN))
      for (const p of await listAll(cacheDir)) {
        const st = await lstat(join(cacheDir, p))
        if (st.isFile()) assert.ok(!(await readFile(join(cacheDir, p), 'utf8')).includes(TOKEN), p)
      }
    },
    { token: TOKEN },
  ))

test('without a CDN redirect the client reads the resolve URL directly', () =>
  withHub(
    async ({ server, fetcher }) => {
      assert.equal((await fetcher().fetchFile(REPO, 'main', 'data/x.parquet')).sha256, sha256(PARQUET))
      assert.ok(!server.requests.some((r) => r.url.startsWith('/cdn-lfs/')))
    },
    { redirectLfs: false },
  ))

test('resolveCacheDir and hubOptionsFromEnv follow huggingface_hub', () => {
  assert.equal(resolveCacheDir({ HF_HUB_CACHE: '/c', HF_HOME: '/h' }, '/home/u'), '/c')
  assert.equal(resolveCacheDir({ HF_HOME: '/h' }, '/home/u'), '/h/hub')
  assert.equal(resolveCacheDir({ HF_HOME: '~/hf' }, '/home/u'), '/home/u/hf/hub')
  assert.equal(resolveCacheDir({}, '/home/u'), '/home/u/.cache/huggingface/hub')
  assert.equal(resolveCacheDir({ XDG_CACHE_HOME: '/x' }, '/home/u'), '/x/huggingface/hub')
  assert.deepEqual(hubOptionsFromEnv({}), {})
  assert.deepEqual(hubOptionsFromEnv({ HF_ENDPOINT: 'http://m/', HF_TOKEN: 'hf_x' }), { endpoint: 'http://m', token: 'hf_x' })
})
