/**
 * Links in a serve-hub mirror: a repo folder that links out of the mirror is no repo,
 * and a file link that leads out of it is in no listing (siblings, tree, paths-info).
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { type HubServer, startHubServer } from '../helpers/hub-server.ts'

let tmp: string
let server: HubServer

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-hub-links-'))
  const outside = join(tmp, 'outside')
  await mkdir(join(outside, 'ssh'), { recursive: true })
  await writeFile(join(outside, 'shadow'), 'root:*:0\n')
  await writeFile(join(outside, 'ssh', 'key'), 'private\n')
  const datasets = join(tmp, 'mirror', 'datasets')
  await mkdir(join(datasets, 'evil'), { recursive: true })
  // a whole repo folder that is a link out of the mirror
  await symlink(outside, join(datasets, 'evil', 'etcrepo'))
  // a normal repo with an outward file link, an outward folder link and an inward link
  const repo = join(datasets, 'acme', 'plain')
  await mkdir(join(repo, 'data'), { recursive: true })
  await writeFile(join(repo, 'data', 'x.txt'), 'x\n')
  await symlink(join(outside, 'shadow'), join(repo, 'passwd-link'))
  await symlink(outside, join(repo, 'etc-dir'))
  await symlink(join(repo, 'data', 'x.txt'), join(repo, 'inside-link'))
  // a repo folder linked from elsewhere inside the mirror is still a repo
  await mkdir(join(tmp, 'mirror', 'shelf', 'kept'), { recursive: true })
  await writeFile(join(tmp, 'mirror', 'shelf', 'kept', 'a.txt'), 'a\n')
  await symlink(join(tmp, 'mirror', 'shelf', 'kept'), join(datasets, 'acme', 'linked'))
  server = await startHubServer({ root: join(tmp, 'mirror') })
})
after(async () => {
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

const get = (path: string) => fetch(`${server.url}${path}`)

test('a repo folder that links out of the mirror answers 404 to info, tree and resolve', async () => {
  for (const path of [
    '/api/datasets/evil/etcrepo',
    '/api/datasets/evil/etcrepo/revision/main',
    '/api/datasets/evil/etcrepo/tree/main',
    '/api/datasets/evil/etcrepo/tree/main/ssh',
    '/datasets/evil/etcrepo/resolve/main/shadow',
  ]) {
    const r = await get(path)
    assert.equal(r.status, 404, path)
    assert.doesNotMatch(await r.text(), /shadow|ssh/, path)
  }
})

test('outward links are in no listing; links that stay inside the mirror are', async () => {
  const info = (await (await get('/api/datasets/acme/plain')).json()) as { siblings: { rfilename: string }[] }
  assert.deepEqual(
    info.siblings.map((s) => s.rfilename),
    ['data/x.txt', 'inside-link'],
  )
  const blobs = (await (await get('/api/datasets/acme/plain?blobs=true')).json()) as { siblings: { rfilename: string }[] }
  assert.deepEqual(
    blobs.siblings.map((s) => s.rfilename),
    ['data/x.txt', 'inside-link'],
  )
  const tree = (await (await get('/api/datasets/acme/plain/tree/main?recursive=true')).json()) as { path: string }[]
  assert.deepEqual(
    tree.map((e) => e.path),
    ['data', 'data/x.txt', 'inside-link'],
  )
  assert.equal((await get('/api/datasets/acme/plain/tree/main/etc-dir')).status, 404)
  // every listed file can be downloaded
  for (const s of info.siblings) assert.equal((await get(`/datasets/acme/plain/resolve/main/${s.rfilename}`)).status, 200, s.rfilename)
  assert.equal((await get('/datasets/acme/plain/resolve/main/passwd-link')).status, 404)
  assert.equal((await get('/datasets/acme/plain/resolve/main/etc-dir/shadow')).status, 404)
  const linked = (await (await get('/api/datasets/acme/linked')).json()) as { siblings: { rfilename: string }[] }
  assert.deepEqual(
    linked.siblings.map((s) => s.rfilename),
    ['a.txt'],
  )
})
