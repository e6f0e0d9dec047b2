/**
 * What Python's huggingface_hub needs of the local Hub, checked with plain HTTP
 * so it runs on every clone (test/interop/ drives the real client when present):
 * validate-yaml, booleans spelled as Python sends them, file metadata, cardData.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { commit, createRepo } from '@huggingface/hub'
import { sha256Hex } from '../../src/util/hash.ts'
import { type HubServer, isWriteRequest, startHubServer } from '../helpers/hub-server.ts'
import { buildFixtureOut } from '../helpers/publish.ts'

const TOKEN = 'hf_fidelityTests00000000'
let tmp: string
let server: HubServer
let card: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-hub-fidelity-'))
  const dir = join(tmp, 'mirror', 'datasets', 'acme', 'tiny')
  await mkdir(join(dir, 'data'), { recursive: true })
  await writeFile(join(dir, 'data', 'x.parquet'), 'PAR1 not really')
  await writeFile(join(dir, 'notes.txt'), 'hello notes\n')
  server = await startHubServer({ root: join(tmp, 'mirror') })
  await buildFixtureOut(join(tmp, 'out'))
  card = await readFile(join(tmp, 'out', 'README.md'), 'utf8')
})
after(async () => {
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

interface Sibling {
  rfilename: string
  size?: number
  blobId?: string
  lfs?: { sha256: string; size: number; pointerSize: number }
}
interface Info {
  siblings: Sibling[]
  cardData?: { license?: string; configs?: { data_files: { split: string }[] }[] }
}
const getJson = async <T>(path: string): Promise<T> => {
  const r = await fetch(`${server.url}${path}`)
  assert.equal(r.status, 200, path)
  return (await r.json()) as T
}
const validate = async (content: string, repoType = 'dataset') => {
  const r = await fetch(`${server.url}/api/validate-yaml`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ content, repoType }),
  })
  return {
    status: r.status,
    body: (await r.json()) as { errors?: { message: string }[]; warnings?: { message: string }[]; error?: string },
  }
}

test('validate-yaml: the card the builder writes is 200 with no errors nor warnings; a bad one is 400 naming each problem', async () => {
  assert.deepEqual(await validate(card), { status: 200, body: { errors: [], warnings: [] } })
  const bad = card.replace(/^license: .*$/m, 'license: not-a-licence').replace(/^- multiple-choice$/m, '- guessing')
  const r = await validate(bad)
  assert.equal(r.status, 400)
  assert.deepEqual(
    r.body.errors!.map((e) => e.message),
    [
      'README.md: license: "not-a-licence" is not one of the Hub\'s licence ids (e.g. cc-by-sa-4.0, mit, other)',
      'README.md: task_categories: "guessing" is not one of the Hub\'s task categories',
    ],
  )
  const broken = await validate('---\nlicense: [mit\n---\n# x\n')
  assert.equal(broken.status, 400)
  assert.match(broken.body.errors![0]!.message, /not plain YAML/)
})

test('validate-yaml: no front matter, or missing fields, are warnings with 200; other repo types and bodies are 400', async () => {
  const none = await validate('# just a title\n')
  assert.equal(none.status, 200)
  assert.deepEqual(none.body, { errors: [], warnings: [{ message: 'README.md: empty or missing yaml metadata in repo card' }] })
  const thin = await validate('---\nlicense: mit\n---\n')
  assert.equal(thin.status, 200)
  assert.deepEqual(
    thin.body.warnings!.map((w) => w.message),
    ['README.md: pretty_name: missing or empty', 'README.md: task_categories: missing', 'README.md: language: missing'],
  )
  assert.equal((await validate(card, 'model')).status, 400)
  const notJson = await fetch(`${server.url}/api/validate-yaml`, { method: 'POST', body: '{"content": 1}' })
  assert.equal(notJson.status, 400)
  assert.equal(isWriteRequest({ method: 'POST', url: '/api/validate-yaml', auth: false }), false, 'it changes nothing')
})

test('boolean query parameters read as the Hub does: true, True and 1; anything else is false', async () => {
  const paths = async (q: string) => (await getJson<{ path: string }[]>(`/api/datasets/acme/tiny/tree/main?${q}`)).map((e) => e.path)
  const all = ['data', 'data/x.parquet', 'notes.txt']
  for (const q of ['recursive=true', 'recursive=True', 'recursive=1']) assert.deepEqual(await paths(q), all, q)
  for (const q of ['recursive=false', 'recursive=False', 'recursive=0', '']) assert.deepEqual(await paths(q), ['data', 'notes.txt'], q)
  const expanded = await getJson<{ path: string; lastCommit?: object; securityFileStatus?: object }[]>(
    '/api/datasets/acme/tiny/tree/main?recursive=True&expand=True',
  )
  assert.ok(
    expanded.every((e) => e.lastCommit),
    'every entry has its lastCommit',
  )
  assert.deepEqual(
    expanded.filter((e) => e.securityFileStatus).map((e) => e.path),
    ['data/x.parquet', 'notes.txt'],
    'files only have a scan status',
  )
})

test('repo info with blobs=True gives each sibling its size, blobId and LFS facts; without it, names only', async () => {
  const plain = await getJson<Info>('/api/datasets/acme/tiny')
  assert.deepEqual(plain.siblings, [{ rfilename: 'data/x.parquet' }, { rfilename: 'notes.txt' }])
  assert.equal(plain.cardData, undefined, 'no README, no cardData')
  const rich = await getJson<Info>('/api/datasets/acme/tiny/revision/main?blobs=True')
  const [lfs, small] = rich.siblings as [Sibling, Sibling]
  assert.deepEqual(lfs.lfs, { sha256: sha256Hex('PAR1 not really'), size: 15, pointerSize: lfs.lfs?.pointerSize })
  assert.ok(lfs.lfs!.pointerSize > 100)
  assert.equal(lfs.size, 15)
  assert.match(lfs.blobId ?? '', /^[0-9a-f]{40}$/)
  assert.deepEqual(Object.keys(small).sort(), ['blobId', 'rfilename', 'size'])
  assert.equal(small.size, 'hello notes\n'.length)
})

test('repo info carries cardData, the README front matter parsed, once a README with one is committed', async () => {
  const hub = { hubUrl: server.url, accessToken: TOKEN }
  const repo = { type: 'dataset' as const, name: 'me/carded' }
  await createRepo({ ...hub, repo })
  assert.equal((await getJson<Info>('/api/datasets/me/carded')).cardData, undefined)
  await commit({ ...hub, repo, title: 'card', operations: [{ operation: 'addOrUpdate', path: 'README.md', content: new Blob([card]) }] })
  const info = await getJson<Info>('/api/datasets/me/carded')
  assert.equal(info.cardData?.license, /^license: (.*)$/m.exec(card)![1])
  assert.deepEqual(
    info.cardData?.configs?.[0]?.data_files.map((d) => d.split),
    ['test', 'val'],
  )
})
