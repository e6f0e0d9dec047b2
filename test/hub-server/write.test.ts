import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { commit, createBranch, createRepo, datasetInfo, downloadFile, listFiles, pathsInfo } from '@huggingface/hub'
import { type HubServer, startHubServer } from '../helpers/hub-server.ts'

const TOKEN = 'hf_writeTests00000000000'
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex')
let tmp: string
let server: HubServer
const repo = (name: string) => ({ type: 'dataset' as const, name })
const hub = (s: HubServer = server) => ({ hubUrl: s.url, accessToken: TOKEN })
const BIG = new Uint8Array(Array.from({ length: 40_000 }, (_, i) => (i * 31 + 7) % 251))

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-hub-write-'))
  server = await startHubServer({ lfsThreshold: 10_000 })
})
after(async () => {
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

async function files(name: string, revision = 'main', s = server): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for await (const f of listFiles({ ...hub(s), repo: repo(name), revision, recursive: true })) {
    if (f.type !== 'file') continue
    const blob = await downloadFile({ ...hub(s), repo: repo(name), revision, path: f.path, xet: false })
    out[f.path] = sha256(new Uint8Array(await blob!.arrayBuffer()))
  }
  return out
}
const head = async (name: string, revision = 'main', s = server) =>
  (await datasetInfo({ ...hub(s), name, revision, additionalFields: ['sha'] })).sha
const add = (path: string, content: Uint8Array<ArrayBuffer> | string) => ({
  operation: 'addOrUpdate' as const,
  path,
  content: new Blob([content]),
})

test('create, then one commit with small and LFS files; a new repo holds .gitattributes; LFS files get their own line', async () => {
  const created = await createRepo({ ...hub(), repo: repo('me/data') })
  assert.equal(created.repoUrl, `${server.url}/datasets/me/data`)
  assert.deepEqual(Object.keys(await files('me/data')), ['.gitattributes'])
  const out = await commit({
    ...hub(),
    repo: repo('me/data'),
    title: 'add',
    operations: [add('a.txt', 'a\n'), add('dir/big.bin', BIG), add('dir/big.jsonl', BIG)],
  })
  assert.equal(out?.commit.url, `${server.url}/datasets/me/data/commit/${out?.commit.oid}`)
  const got = await files('me/data')
  assert.equal(got['a.txt'], sha256('a\n'))
  assert.equal(got['dir/big.bin'], sha256(BIG))
  const info = await pathsInfo({ ...hub(), repo: repo('me/data'), paths: ['a.txt', 'dir/big.bin', 'dir/big.jsonl'] })
  assert.deepEqual(
    info.map((i) => i.lfs?.oid ?? null),
    [null, sha256(BIG), sha256(BIG)],
  )
  const attrs = await (await downloadFile({ ...hub(), repo: repo('me/data'), path: '.gitattributes' }))!.text()
  assert.ok(attrs.includes('*.bin filter=lfs'), 'the default patterns')
  assert.ok(attrs.endsWith('dir/big.jsonl filter=lfs diff=lfs merge=lfs -text\n'), 'a line for the LFS file no pattern covered')
  await assert.rejects(createRepo({ ...hub(), repo: repo('me/data') }), (e: Error & { statusCode?: number }) => e.statusCode === 409)
})

test('the parent-commit guard: a stale parentCommit is refused with 412 and nothing changes', async () => {
  await createRepo({ ...hub(), repo: repo('me/guard') })
  const parent = await head('me/guard')
  await commit({ ...hub(), repo: repo('me/guard'), title: 'one', parentCommit: parent, operations: [add('one.txt', '1')] })
  const now = await head('me/guard')
  await assert.rejects(
    commit({ ...hub(), repo: repo('me/guard'), title: 'two', parentCommit: parent, operations: [add('two.txt', '2')] }),
    (e: Error & { statusCode?: number }) => e.statusCode === 412 && /A commit has happened since/.test(e.message),
  )
  assert.equal(await head('me/guard'), now)
  assert.deepEqual(Object.keys(await files('me/guard')).sort(), ['.gitattributes', 'one.txt'])
})

test('deletes of files and folders; deleting what is not there is a 404', async () => {
  await createRepo({ ...hub(), repo: repo('me/del') })
  await commit({
    ...hub(),
    repo: repo('me/del'),
    title: 'add',
    operations: [add('keep.txt', 'k'), add('gone.txt', 'g'), add('d/x.txt', 'x'), add('d/y.txt', 'y')],
  })
  await commit({ ...hub(), repo: repo('me/del'), title: 'del', operations: [{ operation: 'delete', path: 'gone.txt' }] })
  const res = await fetch(`${server.url}/api/datasets/me/del/commit/main`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/x-ndjson' },
    body: [
      { key: 'header', value: { summary: 'rm d' } },
      { key: 'deletedFolder', value: { path: 'd' } },
    ]
      .map((x) => JSON.stringify(x))
      .join('\n'),
  })
  assert.equal(res.status, 200)
  assert.deepEqual(Object.keys(await files('me/del')).sort(), ['.gitattributes', 'keep.txt'])
  await assert.rejects(
    commit({ ...hub(), repo: repo('me/del'), title: 'x', operations: [{ operation: 'delete', path: 'gone.txt' }] }),
    (e: Error & { statusCode?: number }) => e.statusCode === 404,
  )
})

test('LFS: uploads need the signed URL and the right bytes; a commit cannot name an object never uploaded', async () => {
  await createRepo({ ...hub(), repo: repo('me/lfs') })
  const oid = sha256('never uploaded')
  const auth = { Authorization: `Bearer ${TOKEN}` }
  const batch = await fetch(`${server.url}/datasets/me/lfs.git/info/lfs/objects/batch`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/vnd.git-lfs+json' },
    body: JSON.stringify({ operation: 'upload', transfers: ['basic'], objects: [{ oid, size: 14 }] }),
  })
  const obj = (await batch.json()) as { transfer: string; objects: { actions: { upload: { href: string }; verify: { href: string } } }[] }
  const href = obj.objects[0]!.actions.upload.href
  assert.equal((await fetch(href.replace(/sig=\w+/, 'sig=forged'), { method: 'PUT', body: 'never uploaded' })).status, 403)
  assert.equal((await fetch(href, { method: 'PUT', body: 'never uploadeD' })).status, 400)
  assert.equal((await fetch(obj.objects[0]!.actions.verify.href, { method: 'POST' })).status, 404, 'not there yet')
  const res = await fetch(`${server.url}/api/datasets/me/lfs/commit/main`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/x-ndjson' },
    body: [
      { key: 'header', value: { summary: 'x' } },
      { key: 'lfsFile', value: { path: 'x.bin', algo: 'sha256', oid, size: 14 } },
    ]
      .map((x) => JSON.stringify(x))
      .join('\n'),
  })
  assert.equal(res.status, 422)
  assert.equal((await fetch(href, { method: 'PUT', body: 'never uploaded' })).status, 200)
  assert.equal((await fetch(obj.objects[0]!.actions.verify.href, { method: 'POST' })).status, 200)
})

test('preupload tells LFS from regular uploads and reports the remote oid, as Python huggingface_hub expects', async () => {
  await createRepo({ ...hub(), repo: repo('me/pre') })
  await commit({ ...hub(), repo: repo('me/pre'), title: 'a', operations: [add('a.txt', 'a\n')] })
  const sample = (s: string | Uint8Array) => Buffer.from(s).subarray(0, 512).toString('base64')
  const res = await fetch(`${server.url}/api/datasets/me/pre/preupload/main`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      files: [
        { path: 'a.txt', size: 2, sample: sample('a\n') },
        { path: 'x.parquet', size: 3, sample: sample('PAR') },
        { path: 'big.txt', size: 20_000, sample: sample('text') },
        { path: 'bin.dat', size: 4, sample: sample(new Uint8Array([0, 1, 2, 3])) },
      ],
    }),
  })
  const body = (await res.json()) as { files: { path: string; uploadMode: string; oid: string | null }[] }
  assert.deepEqual(
    body.files.map((f) => `${f.path} ${f.uploadMode}`),
    ['a.txt regular', 'x.parquet lfs', 'big.txt lfs', 'bin.dat lfs'],
  )
  assert.equal(body.files[0]!.oid, createHash('sha1').update('blob 2\0a\n').digest('hex'))
  assert.equal(body.files[1]!.oid, null)
})

test('tags: created on a commit, readable as a revision, never overwritten (409); branches from a commit', async () => {
  await createRepo({ ...hub(), repo: repo('me/tags') })
  await commit({ ...hub(), repo: repo('me/tags'), title: 'a', operations: [add('a.txt', 'a')] })
  const first = await head('me/tags')
  const tag = (name: string, rev: string) =>
    fetch(`${server.url}/api/datasets/me/tags/tag/${rev}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ tag: name }),
    })
  assert.equal((await tag('v1', first)).status, 200)
  await commit({ ...hub(), repo: repo('me/tags'), title: 'b', operations: [add('b.txt', 'b')] })
  assert.equal((await tag('v1', 'main')).status, 409)
  assert.equal((await tag('bad..name', 'main')).status, 400)
  assert.equal(await head('me/tags', 'v1'), first)
  await createBranch({ ...hub(), repo: repo('me/tags'), branch: 'old', revision: first })
  assert.deepEqual(Object.keys(await files('me/tags', 'old')).sort(), ['.gitattributes', 'a.txt'])
  await assert.rejects(
    createBranch({ ...hub(), repo: repo('me/tags'), branch: 'old' }),
    (e: Error & { statusCode?: number }) => e.statusCode === 409,
  )
  const refs = (await (
    await fetch(`${server.url}/api/datasets/me/tags/refs`, { headers: { Authorization: `Bearer ${TOKEN}` } })
  ).json()) as { branches: { name: string }[]; tags: { name: string; targetCommit: string }[] }
  assert.deepEqual(
    refs.branches.map((b) => b.name),
    ['main', 'old'],
  )
  assert.deepEqual(refs.tags, [{ name: 'v1', ref: 'refs/tags/v1', targetCommit: first }])
})

test('with a store folder, repos, files, branches and tags survive a restart', async () => {
  const store = join(tmp, 'store')
  const a = await startHubServer({ store, lfsThreshold: 10_000 })
  await createRepo({ ...hub(a), repo: repo('me/kept') })
  await commit({ ...hub(a), repo: repo('me/kept'), title: 'a', operations: [add('a.txt', 'a'), add('big.bin', BIG)] })
  const sha = await head('me/kept', 'main', a)
  await fetch(`${a.url}/api/datasets/me/kept/tag/main`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ tag: 'v1' }),
  })
  const before = await files('me/kept', 'main', a)
  await a.close()
  const b = await startHubServer({ store })
  try {
    assert.equal(await head('me/kept', 'v1', b), sha)
    assert.deepEqual(await files('me/kept', 'main', b), before)
    assert.equal(before['big.bin'], sha256(BIG))
  } finally {
    await b.close()
  }
})
