import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { commit, createRepo, datasetInfo, listCommits, listFiles, pathsInfo, repoExists } from '@huggingface/hub'
import { isJevError } from '../../src/errors.ts'
import { type HubServer, isWriteRequest, startHubServer } from '../helpers/hub-server.ts'

const TOKEN = 'hf_readTests000000000000'
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex')
let tmp: string
let server: HubServer
const hub = () => ({ hubUrl: server.url, accessToken: TOKEN })
const repo = (name: string) => ({ type: 'dataset' as const, name })

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-hub-read-'))
  const dir = join(tmp, 'mirror', 'datasets', 'acme', 'tiny')
  await mkdir(join(dir, 'data', 'deep'), { recursive: true })
  await writeFile(join(dir, 'data', 'x.parquet'), 'PAR1 not really')
  await writeFile(join(dir, 'data', 'deep', 'y.txt'), 'y\n')
  await writeFile(join(dir, 'notes.txt'), 'hello notes\n')
  await writeFile(join(tmp, 'secret.txt'), 'outside the mirror\n')
  await mkdir(join(tmp, 'outside'))
  await writeFile(join(tmp, 'outside', 'passwords.txt'), 'outside the mirror\n')
  await symlink(join(tmp, 'secret.txt'), join(dir, 'escape.txt'))
  server = await startHubServer({ root: join(tmp, 'mirror') })
})
after(async () => {
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

test('a mirror repo: main and HEAD name one fixed commit, any full commit id is accepted, refs and commits list it', async () => {
  const main = sha1('commit:acme/tiny')
  assert.equal((await datasetInfo({ ...hub(), name: 'acme/tiny', revision: 'main', additionalFields: ['sha'] })).sha, main)
  assert.equal((await datasetInfo({ ...hub(), name: 'acme/tiny', additionalFields: ['sha'] })).sha, main, 'HEAD')
  const pinned = 'a'.repeat(40)
  assert.equal((await datasetInfo({ ...hub(), name: 'acme/tiny', revision: pinned, additionalFields: ['sha'] })).sha, pinned)
  const refs = await (await fetch(`${server.url}/api/datasets/acme/tiny/refs`)).json()
  assert.deepEqual(refs, { branches: [{ name: 'main', ref: 'refs/heads/main', targetCommit: main }], tags: [], converts: [] })
  const commits = []
  for await (const c of listCommits({ ...hub(), repo: repo('acme/tiny') })) commits.push(c.oid)
  assert.deepEqual(commits, [main])
  assert.equal(await repoExists({ hubUrl: server.url, repo: repo('acme/tiny') }), true)
  assert.equal(await repoExists({ hubUrl: server.url, repo: repo('acme/none') }), false)
})

test('tree lists folders before their contents, .parquet as LFS; paths-info answers files and folders; links out of the mirror are not served', async () => {
  const entries = []
  for await (const f of listFiles({ ...hub(), repo: repo('acme/tiny'), recursive: true }))
    entries.push(`${f.type} ${f.path}${f.lfs ? ' lfs' : ''}`)
  assert.deepEqual(entries, ['directory data', 'directory data/deep', 'file data/deep/y.txt', 'file data/x.parquet lfs', 'file notes.txt'])
  const top = []
  for await (const f of listFiles({ ...hub(), repo: repo('acme/tiny'), path: 'data' })) top.push(f.path)
  assert.deepEqual(top, ['data/deep', 'data/x.parquet'])
  const missing = await fetch(`${server.url}/api/datasets/acme/tiny/tree/main/nope`)
  assert.equal(missing.status, 404)
  assert.equal(missing.headers.get('x-error-code'), 'EntryNotFound')
  const info = await pathsInfo({ ...hub(), repo: repo('acme/tiny'), paths: ['data', 'notes.txt', 'escape.txt', 'absent'] })
  assert.deepEqual(
    info.map((i) => `${i.type} ${i.path}`),
    ['directory data', 'file notes.txt'],
  )
  const leak = await fetch(`${server.url}/datasets/acme/tiny/resolve/main/escape.txt`)
  assert.equal(leak.status, 404)
  const bad = await fetch(`${server.url}/api/datasets/acme/tiny/revision/no-such-branch`)
  assert.equal(bad.status, 404)
  assert.equal(bad.headers.get('x-error-code'), 'RevisionNotFound')
})

test('an owner with an encoded slash is no way out of the mirror', async () => {
  // decoded, x/../../.. would put <mirror>/datasets/x/../../../outside at the mirror's parent
  for (const path of [
    '/api/datasets/x%2F..%2F..%2F../outside',
    '/api/datasets/x%2F..%2F..%2F../outside/tree/main',
    '/datasets/x%2F..%2F..%2F../outside/resolve/main/passwords.txt',
  ]) {
    const r = await fetch(`${server.url}${path}`)
    assert.equal(r.status, 400, path)
    assert.doesNotMatch(await r.text(), /passwords/, path)
  }
  // no .. at all, but still a path: acme/tiny/data is a folder of a repo, not a repo
  assert.equal((await fetch(`${server.url}/api/datasets/acme%2Ftiny/data`)).status, 404)
})

test('a file path with an encoded .. is no way out of its repo, to the mirror root or another repo', async () => {
  await writeFile(join(tmp, 'mirror', 'ROOT.md'), 'mirror root\n')
  for (const path of ['..%2F..%2F..%2FROOT.md', 'data%2F..%2F..%2F..%2F..%2FROOT.md', '..%2Ftiny%2Fnotes.txt']) {
    const r = await fetch(`${server.url}/datasets/acme/tiny/resolve/main/${path}`)
    assert.equal(r.status, 400, path)
    assert.doesNotMatch(await r.text(), /mirror root|hello notes/, path)
  }
})

test("LFS files redirect to a signed CDN URL; without the signature, or with another file's, the CDN refuses", async () => {
  const r = await fetch(`${server.url}/datasets/acme/tiny/resolve/main/data/x.parquet`, { redirect: 'manual' })
  assert.equal(r.status, 302)
  // absolute, as the Hub's: Python's client would follow a relative one as a renamed repo
  assert.match(r.headers.get('location')!, /^http:\/\/127\.0\.0\.1:\d+\/cdn-lfs\//)
  assert.match(r.headers.get('x-repo-commit')!, /^[0-9a-f]{40}$/)
  const loc = new URL(r.headers.get('location')!)
  assert.match(loc.pathname, /^\/cdn-lfs\/acme\/tiny\/[0-9a-f]{40}\/data\/x\.parquet$/)
  assert.equal(await (await fetch(loc)).text(), 'PAR1 not really')
  const unsigned = new URL(loc.pathname, server.url)
  assert.equal((await fetch(unsigned)).status, 403)
  const other = new URL(loc.pathname.replace('data/x.parquet', 'notes.txt') + loc.search, server.url)
  assert.equal((await fetch(other)).status, 403)
  assert.equal((await fetch(`${server.url}/cdn-lfs/acme/tiny/main/notes.txt`, { headers: { Authorization: 'x' } })).status, 403)
})

test('mirror repos are read-only, and their names cannot be taken by a new repo', async () => {
  await assert.rejects(
    commit({
      ...hub(),
      repo: repo('acme/tiny'),
      title: 'x',
      operations: [{ operation: 'addOrUpdate', path: 'a.txt', content: new Blob(['a']) }],
    }),
    (e: Error & { statusCode?: number }) => e.statusCode === 403,
  )
  await assert.rejects(createRepo({ ...hub(), repo: repo('acme/tiny') }), (e: Error & { statusCode?: number }) => e.statusCode === 409)
})

test('a private repo answers 401 to requests without credentials, and works with any token', async () => {
  await createRepo({ ...hub(), repo: repo('acme/private'), visibility: 'private' })
  for (const path of [
    '/api/datasets/acme/private/revision/main',
    '/api/datasets/acme/private/tree/main',
    '/datasets/acme/private/resolve/main/.gitattributes',
  ]) {
    const r = await fetch(`${server.url}${path}`)
    assert.equal(r.status, 401, path)
    assert.equal((await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status, 200, path)
  }
  assert.equal((await datasetInfo({ ...hub(), name: 'acme/private' })).private, true)
})

test('writes need a Bearer hf_ token; whoami-v2 answers one', async () => {
  const r = await fetch(`${server.url}/api/repos/create`, {
    method: 'POST',
    body: JSON.stringify({ name: 'x', organization: 'acme', type: 'dataset' }),
  })
  assert.equal(r.status, 401)
  const me = await fetch(`${server.url}/api/whoami-v2`, { headers: { Authorization: `Bearer ${TOKEN}` } })
  assert.equal(((await me.json()) as { name: string }).name, 'local')
})

test('it binds to loopback only; isWriteRequest tells reads from writes', async () => {
  for (const host of ['0.0.0.0', '192.168.1.10', 'example.org'])
    await assert.rejects(startHubServer({ host }), (e: unknown) => isJevError(e) && e.code === 'USAGE' && e.message.includes('loopback'))
  const local = await startHubServer({ host: 'localhost' })
  assert.match(local.url, /^http:\/\/(127\.0\.0\.1|\[::1\]):\d+$/)
  await local.close()
  const w = (method: string, url: string) => isWriteRequest({ method, url, auth: true })
  assert.equal(w('POST', '/api/datasets/a/b/paths-info/main'), false)
  assert.equal(w('GET', '/api/datasets/a/b/refs'), false)
  assert.equal(w('HEAD', '/datasets/a/b/resolve/main/x'), false)
  assert.equal(w('POST', '/api/datasets/a/b/preupload/main'), true)
  assert.equal(w('POST', '/api/repos/create'), true)
  assert.equal(w('PUT', '/lfs-upload/abc?size=1&sig=x'), true)
})
