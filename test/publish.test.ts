import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { commit, pathsInfo } from '@huggingface/hub'
import { isJevError, type JevError } from '../src/errors.ts'
import { describeLocal, type LocalFile, readPublishFiles } from '../src/publish/files.ts'
import type { HubAccess } from '../src/publish/hub.ts'
import { executePublish, formatPlan, type PublishTarget, planPublish } from '../src/publish/publish.ts'
import { type HubServer, isWriteRequest, startHubServer } from './helpers/hub-server.ts'
import { buildFixtureOut, commitIds, downloadAll, TOKEN, writeReseededRecipe } from './helpers/publish.ts'

let tmp: string
let server: HubServer
let first: LocalFile[]
let second: LocalFile[]
let access: HubAccess

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-publish-'))
  await buildFixtureOut(join(tmp, 'out'))
  await writeReseededRecipe(tmp, 4242)
  first = await readPublishFiles(join(tmp, 'out'))
  second = await readPublishFiles(join(tmp, 'out-4242'))
  server = await startHubServer({})
  access = { endpoint: server.url, token: TOKEN }
})
after(async () => {
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

const target = (repo: string, extra: Partial<PublishTarget> = {}): PublishTarget => ({
  repo,
  revision: 'main',
  private: false,
  message: 'Publish test',
  ...extra,
})
const publish = async (files: LocalFile[], t: PublishTarget, a: HubAccess = access) =>
  executePublish(await planPublish(files, t, a), files, t, a)
const writes = () => server.requests.filter(isWriteRequest)

async function rejectsWith(p: Promise<unknown>, code: string): Promise<JevError> {
  try {
    await p
  } catch (e) {
    assert.ok(isJevError(e), `expected a JevError, got ${String(e)}`)
    assert.equal(e.code, code, e.message)
    return e
  }
  assert.fail(`expected error[${code}]`)
}

function assertHolds(remote: Map<string, Buffer>, files: LocalFile[], extra: string[] = ['.gitattributes']): void {
  assert.deepEqual([...remote.keys()].sort(), [...files.map((f) => f.path), ...extra].sort())
  for (const f of files) assert.ok(remote.get(f.path)!.equals(f.bytes), `${f.path} arrived byte-identical`)
}

test('first publish creates the repo, uploads the output files byte-identical in one commit and tags it', async () => {
  const t = target('someone/first', { tag: 'v1.0.0' })
  const plan = await planPublish(first, t, access)
  assert.equal(plan.repoAction, 'create')
  assert.equal(plan.parentCommit, null)
  assert.deepEqual(
    plan.files.map((f) => `${f.action} ${f.path}`),
    [
      'add test.jsonl',
      'add val.jsonl',
      'add provenance.jsonl',
      'add README.md',
      'add option-counts.svg',
      'add answer-positions.svg',
      'add borrowed-options.svg',
      'add croissant.json',
      'add manifest.json',
    ],
  )
  const r = await executePublish(plan, first, t, access)
  assert.equal(r.committed, true)
  assert.equal(r.tagged, 'created')
  assert.equal(r.url, `${server.url}/datasets/someone/first/commit/${r.commit}`)
  assertHolds(await downloadAll(server.url, 'someone/first'), first)
  assertHolds(await downloadAll(server.url, 'someone/first', 'v1.0.0'), first)
  const ids = await commitIds(server.url, 'someone/first')
  assert.equal(ids.length, 2, 'the initial commit of the new repo, then ours')
  assert.equal(ids[0], r.commit)
})

test('publishing the same files again makes no commit, sends no write request and keeps the tag', async () => {
  const t = target('someone/again', { tag: 'v1.0.0' })
  const r1 = await publish(first, t)
  const before = writes().length
  const r2 = await publish(first, t)
  assert.deepEqual([r2.committed, r2.tagged, r2.commit], [false, 'exists', r1.commit])
  assert.equal(writes().length, before, 'no write request at all')
  assert.equal((await commitIds(server.url, 'someone/again')).length, 2)
  assert.ok(
    formatPlan(await planPublish(first, t, access), t).some((l) => l.includes('none: the branch already holds exactly these files')),
  )
})

test('changed data publishes exactly one new commit on top of the previous one', async () => {
  const t = target('someone/changed')
  const r1 = await publish(first, t)
  const plan = await planPublish(second, t, access)
  assert.equal(plan.parentCommit, r1.commit)
  // the quotas fix the option counts, so their figure is the same under another seed
  const actions = new Map(plan.files.map((f) => [f.path, f.action]))
  assert.equal(actions.get('option-counts.svg'), 'unchanged', formatPlan(plan, t).join('\n'))
  actions.delete('option-counts.svg')
  assert.ok(
    [...actions.values()].every((a) => a === 'replace'),
    formatPlan(plan, t).join('\n'),
  )
  const r2 = await executePublish(plan, second, t, access)
  const ids = await commitIds(server.url, 'someone/changed')
  assert.deepEqual(ids.slice(0, 2), [r2.commit, r1.commit])
  assert.equal(ids.length, 3)
  assertHolds(await downloadAll(server.url, 'someone/changed'), second)
})

test('a commit by someone else between plan and commit makes publish fail with CONFLICT and changes nothing', async () => {
  const t = target('someone/race')
  await publish(first, t)
  const before = await commitIds(server.url, 'someone/race')
  let raced = false
  const racing: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    if (!raced && url.includes('/preupload/')) {
      raced = true
      await commit({
        hubUrl: server.url,
        accessToken: 'hf_someoneElse000000000',
        repo: { type: 'dataset', name: 'someone/race' },
        title: 'their change',
        operations: [{ operation: 'addOrUpdate', path: 'notes.md', content: new Blob(['theirs\n']) }],
      })
    }
    return fetch(input, init)
  }
  const plan = await planPublish(second, t, access)
  const e = await rejectsWith(executePublish(plan, second, t, { ...access, fetch: racing }), 'CONFLICT')
  assert.match(e.message, /HTTP 412/)
  assert.doesNotMatch(e.message, /\.\./, "one full stop between the Hub's words and the URL")
  assert.ok(raced)
  const after = await commitIds(server.url, 'someone/race')
  assert.deepEqual(after.slice(1), before, 'only their commit landed')
  assertHolds(await downloadAll(server.url, 'someone/race'), first, ['.gitattributes', 'notes.md'])
  // planned again, it goes through and leaves their file alone
  await publish(second, t)
  assertHolds(await downloadAll(server.url, 'someone/race'), second, ['.gitattributes', 'notes.md'])
})

test('files an earlier publish listed in its manifest and this one lacks are deleted; other files stay', async () => {
  const t = target('someone/prune')
  const manifest = JSON.parse(first.find((f) => f.path === 'manifest.json')!.bytes.toString('utf8')) as { outputs: { path: string }[] }
  manifest.outputs.push({ path: 'data/old.jsonl' } as never)
  const older = [
    ...first.filter((f) => f.path !== 'manifest.json'),
    describeLocal('manifest.json', Buffer.from(JSON.stringify(manifest))),
    describeLocal('data/old.jsonl', Buffer.from('{"id":"x"}\n')),
  ]
  await publish(older, t)
  await commit({
    hubUrl: server.url,
    accessToken: TOKEN,
    repo: { type: 'dataset', name: 'someone/prune' },
    title: 'notes',
    operations: [{ operation: 'addOrUpdate', path: 'notes.md', content: new Blob(['kept\n']) }],
  })
  const plan = await planPublish(first, t, access)
  assert.deepEqual(
    plan.files.map((f) => `${f.action} ${f.path}`),
    [
      'unchanged test.jsonl',
      'unchanged val.jsonl',
      'unchanged provenance.jsonl',
      'unchanged README.md',
      'unchanged option-counts.svg',
      'unchanged answer-positions.svg',
      'unchanged borrowed-options.svg',
      'unchanged croissant.json',
      'replace manifest.json',
      'delete data/old.jsonl',
    ],
  )
  await executePublish(plan, first, t, access)
  assertHolds(await downloadAll(server.url, 'someone/prune'), first, ['.gitattributes', 'notes.md'])
})

test('a tag that already names other files is a CONFLICT before any write; it is never moved', async () => {
  const t = target('someone/tagged', { tag: 'v1.0.0' })
  const r1 = await publish(first, t)
  const before = writes().length
  const e = await rejectsWith(planPublish(second, t, access), 'CONFLICT')
  assert.match(e.message, /v1\.0\.0 already points at/)
  assert.equal(writes().length, before)
  // a new tag is fine, and the old one stays where it was
  const r2 = await publish(second, { ...t, tag: 'v1.1.0' })
  assertHolds(await downloadAll(server.url, 'someone/tagged', 'v1.0.0'), first)
  assertHolds(await downloadAll(server.url, 'someone/tagged', 'v1.1.0'), second)
  assert.notEqual(r1.commit, r2.commit)
})

test('large files go through LFS (batch + PUT); the Hub then reports their sha256 and a republish is a no-op', async () => {
  const lfsServer = await startHubServer({ lfsThreshold: 16 * 1024 })
  try {
    const a = { endpoint: lfsServer.url, token: TOKEN }
    const t = target('someone/lfs')
    await publish(first, t, a)
    const urls = lfsServer.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`)
    assert.ok(urls.includes('POST /datasets/someone/lfs.git/info/lfs/objects/batch'), urls.join('\n'))
    assert.equal(urls.filter((u) => u.startsWith('PUT /lfs-upload/')).length, 2, 'only test.jsonl and provenance.jsonl are over 16 KiB')
    const info = await pathsInfo({
      hubUrl: a.endpoint,
      accessToken: TOKEN,
      repo: { type: 'dataset', name: 'someone/lfs' },
      paths: ['test.jsonl', 'val.jsonl'],
    })
    assert.equal(info.find((i) => i.path === 'test.jsonl')?.lfs?.oid, first[0]!.sha256)
    assert.equal(info.find((i) => i.path === 'val.jsonl')?.lfs, undefined)
    assertHolds(await downloadAll(a.endpoint, 'someone/lfs'), first)
    const r = await publish(first, t, a)
    assert.equal(r.committed, false)
  } finally {
    await lfsServer.close()
  }
})

test('--private creates a private repo that answers nothing without credentials; a new branch starts from main', async () => {
  const t = target('someone/hidden', { private: true })
  await publish(first, t)
  const anon = await fetch(`${server.url}/api/datasets/someone/hidden/revision/main`)
  assert.equal(anon.status, 401)
  // without a token a private repo looks missing, as on the Hub: a dry run's plan says so
  const anonPlan = await planPublish(first, t, { endpoint: server.url })
  assert.equal(anonPlan.repoAction, 'create')
  assert.ok(anonPlan.notes.some((n) => n.includes('without HF_TOKEN a private or gated someone/hidden looks the same as a missing one')))
  const dev = await publish(second, { ...t, revision: 'dev' })
  assert.equal(dev.committed, true)
  assertHolds(await downloadAll(server.url, 'someone/hidden', 'dev'), second)
  assertHolds(await downloadAll(server.url, 'someone/hidden', 'main'), first)
})
