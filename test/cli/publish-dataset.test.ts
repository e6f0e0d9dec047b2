import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { commit } from '@huggingface/hub'
import { publishDatasetCli } from '../../src/cli/publish-dataset.ts'
import { runCli } from '../../src/cli/run.ts'
import { OUTPUT_FILES } from '../../src/emit/outputs.ts'
import { sha256Hex } from '../../src/util/hash.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE, runNode, STACK_FRAME } from '../helpers/cli.ts'
import { type HubServer, isWriteRequest, startHubServer } from '../helpers/hub-server.ts'
import { buildFixtureOut, commitIds, downloadAll, FIXTURE_LOCK, TOKEN, writeReseededRecipe } from '../helpers/publish.ts'

let tmp: string
let out: string
let server: HubServer
let reseeded: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-cli-publish-'))
  out = join(tmp, 'out')
  await buildFixtureOut(out)
  reseeded = await writeReseededRecipe(tmp, 777)
  server = await startHubServer({ root: FIXTURE_HUB })
})
after(async () => {
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

const SOURCES = ['--recipe', FIXTURE_RECIPE, '--lock', FIXTURE_LOCK, '--mirror', FIXTURE_HUB]
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HF_ENDPOINT: server.url, HF_TOKEN: TOKEN, ...extra })

/** In-process: what `npm run publish-dataset -- ...argv` does, with output collected. */
async function publish(argv: string[], e: NodeJS.ProcessEnv = env(), fetchImpl?: typeof fetch) {
  const c = collectIo()
  const status = await runCli(() => publishDatasetCli(argv, e, c.io, fetchImpl), c.io, false)
  return { status, ...c }
}

const writes = () => server.requests.filter(isWriteRequest).length

/** One `error[CODE]: …` line and one hint, no stack, no token. */
function assertOneError(r: Awaited<ReturnType<typeof publish>>, code: string, exit: number): string {
  assert.equal(r.status, exit, r.text())
  const errors = r.err.filter((l) => l.startsWith('error['))
  assert.equal(errors.length, 1, r.text())
  assert.ok(errors[0]!.startsWith(`error[${code}]: `), errors[0])
  assert.equal(r.err.filter((l) => l.startsWith('hint: ')).length, 1)
  assert.ok(!r.err.some((l) => STACK_FRAME.test(l)), 'no stack without --debug')
  assert.ok(!r.text().includes(TOKEN) && !r.text().includes(TOKEN.slice(3)), 'the token leaked')
  return errors[0]!
}

test('as a subprocess: publish creates the repo, prints the commit URL; the same publish again changes nothing', async () => {
  const args = [...SOURCES, '--out', out, '--repo', 'someone/jev-bench', '--tag', 'v1.0.0']
  await writeFile(join(out, 'notes.txt'), 'not part of the dataset\n') // nothing but the output files goes up
  const r1 = await runNode('publish-dataset.ts', args, env())
  assert.equal(r1.status, 0, r1.stderr)
  const [sha] = await commitIds(server.url, 'someone/jev-bench')
  assert.equal(r1.stdout.trimEnd().split('\n').at(-1), `${server.url}/datasets/someone/jev-bench/commit/${sha}`)
  const remote = await downloadAll(server.url, 'someone/jev-bench', 'v1.0.0')
  assert.deepEqual([...remote.keys()].sort(), ['.gitattributes', ...OUTPUT_FILES].sort())
  for (const f of OUTPUT_FILES) assert.ok(remote.get(f)!.equals(await readFile(join(out, f))), f)

  const before = writes()
  const r2 = await runNode('publish-dataset.ts', args, env())
  assert.equal(r2.status, 0, r2.stderr)
  assert.match(r2.stdout, /no new commit: someone\/jev-bench@main already holds these files/)
  assert.match(r2.stdout, /tag {7}v1\.0\.0: already on/)
  assert.equal(writes(), before)
  const ids = await commitIds(server.url, 'someone/jev-bench')
  assert.deepEqual([ids.length, ids[0]], [2, sha], "the new repo's first commit, then ours; nothing more")
  for (const r of [r1, r2]) assert.ok(!`${r.stdout}${r.stderr}`.includes(TOKEN))
})

test('--dry-run prints repo, revision, parent and every file with size, sha256 and action, and sends no write request', async () => {
  const before = writes()
  const r = await publish([...SOURCES, '--out', out, '--repo', 'someone/dry', '--tag', 'v1.0.0', '--dry-run'], env({ HF_TOKEN: undefined }))
  assert.equal(r.status, 0, r.text())
  assert.equal(writes(), before)
  const text = r.out.join('\n')
  assert.match(text, /publish to http:\/\/127\.0\.0\.1:\d+\/datasets\/someone\/dry/)
  assert.match(text, /repo {6}create \(public\)/)
  assert.match(text, /revision {2}main/)
  assert.match(text, /parent {4}\(the first commit of the new repo\)/)
  for (const f of OUTPUT_FILES) {
    const bytes = await readFile(join(out, f))
    assert.ok(
      r.out.some((l) => l.includes(`add       ${f}`) && l.includes(`${bytes.length} bytes`) && l.includes(`sha256 ${sha256Hex(bytes)}`)),
      f,
    )
  }
  assert.equal(r.out.at(-1), 'dry run: only read requests were sent; nothing was changed')
  const repo = await fetch(`${server.url}/api/datasets/someone/dry`)
  assert.equal(repo.status, 404, 'the repo was not created')
})

test('--dry-run without a token: a repo the Hub hides behind 401, as it does missing ones, is planned as a new repo', async () => {
  server.setFault('api/datasets/someone/hidden', 'status:401')
  try {
    const r = await publish([...SOURCES, '--out', out, '--repo', 'someone/hidden', '--dry-run'], env({ HF_TOKEN: undefined }))
    assert.equal(r.status, 0, r.text())
    assert.match(r.out.join('\n'), /repo {6}create \(public\)/)
    assert.match(r.out.join('\n'), /note: without HF_TOKEN a private or gated someone\/hidden looks the same as a missing one/)
  } finally {
    server.clearFaults()
  }
  // with a token, a 401 is the token's fault
  server.setFault('api/datasets/someone/hidden', 'status:401', 1)
  try {
    const r = await publish([...SOURCES, '--out', out, '--repo', 'someone/hidden', '--dry-run'])
    assertOneError(r, 'AUTH', 6)
  } finally {
    server.clearFaults()
  }
})

test('changed data publishes one new commit with replace actions', async () => {
  const args = ['--mirror', FIXTURE_HUB, '--repo', 'someone/changing']
  assert.equal((await publish([...SOURCES, '--out', out, ...args])).status, 0)
  const r = await publish(['--recipe', reseeded, '--out', join(tmp, 'out-777'), ...args])
  assert.equal(r.status, 0, r.text())
  assert.ok(
    r.out.some((l) => l.startsWith('  replace   test.jsonl')),
    r.text(),
  )
  assert.equal((await commitIds(server.url, 'someone/changing')).length, 3)
})

test('missing, rejected (401) and forbidden (403) tokens, 404 and 5xx: one clear line each, non-zero exit', async () => {
  const args = [...SOURCES, '--out', out, '--repo', 'someone/errors']
  const before = server.requests.length
  assert.match(assertOneError(await publish(args, env({ HF_TOKEN: undefined })), 'AUTH', 6), /HF_TOKEN is not set/)
  assert.match(assertOneError(await publish(args, env({ HF_TOKEN: 'not-a-token' })), 'AUTH', 6), /malformed/)
  assert.equal(server.requests.length, before, 'no request without a usable token')

  const guarded = await startHubServer({ token: 'hf_theServerWantsAnotherOne000000' })
  try {
    assert.match(assertOneError(await publish(args, env({ HF_ENDPOINT: guarded.url })), 'AUTH', 6), /HTTP 401/)
    assert.equal(guarded.requests.filter(isWriteRequest).length, 0)
  } finally {
    await guarded.close()
  }
  const faults: [string, string, string, RegExp][] = [
    ['repos/create', 'status:403', 'AUTH', /HTTP 403 to create the dataset repo someone\/errors \(the token lacks write access/],
    ['commit/main', 'status:404', 'NOT_FOUND', /HTTP 404 to commit to someone\/errors@main/],
    ['preupload', 'status:503', 'NETWORK', /HTTP 503 to commit to someone\/errors@main/],
  ]
  for (const [match, kind, code, message] of faults) {
    server.setFault(match, kind as never, 1)
    assert.match(assertOneError(await publish(args), code, 6), message)
    server.clearFaults()
  }
  server.setFault('refs', 'reset', 1)
  assert.match(assertOneError(await publish([...args, '--tag', 'v1']), 'NETWORK', 6), /could not list the refs of someone\/errors/)
  server.clearFaults()
})

test('a tampered or stale out/ is refused before any request to the Hub', async () => {
  const tampered = join(tmp, 'tampered')
  await cp(out, tampered, { recursive: true })
  const val = await readFile(join(tampered, 'val.jsonl'), 'utf8')
  await writeFile(join(tampered, 'val.jsonl'), val.replace('"answer_idx":0', '"answer_idx":1'))
  const before = server.requests.length
  for (const extra of [[], ['--no-verify']]) {
    const r = await publish([...SOURCES, '--out', tampered, '--repo', 'someone/refused', ...extra])
    assert.match(assertOneError(r, 'VERIFY', 9), /nothing was sent/)
    assert.ok(
      r.err.some((l) => l.includes('val.jsonl')),
      r.text(),
    )
  }
  // out/ built from another recipe than the one being verified against
  const stale = await publish([...SOURCES, '--out', join(tmp, 'out-777'), '--repo', 'someone/refused'])
  assertOneError(stale, 'VERIFY', 9)
  assert.ok(stale.err.includes('cause: recipe-changed'), stale.text())
  assert.equal(server.requests.length, before, 'not a single request')
})

test('card metadata the Hub would reject is listed field by field, and nothing is sent', async () => {
  const bad = join(tmp, 'bad-card')
  await cp(out, bad, { recursive: true })
  const card = (await readFile(join(bad, 'README.md'), 'utf8'))
    .replace('license: cc-by-sa-4.0', 'license: cc-by-sa-9.9')
    .replace('- n<1K', '- 10K<n<100K')
    .replace('    path: val.jsonl', '    path: validation.jsonl')
    .replace(/num_examples: 74/, 'num_examples: 70')
  await writeFile(join(bad, 'README.md'), card)
  // keep the manifest in step, so only the card check can object (with --no-verify)
  const m = JSON.parse(await readFile(join(bad, 'manifest.json'), 'utf8')) as { outputs: { path: string; sha256: string; bytes: number }[] }
  Object.assign(m.outputs.find((o) => o.path === 'README.md')!, { sha256: sha256Hex(card), bytes: Buffer.byteLength(card) })
  await writeFile(join(bad, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`)
  const before = server.requests.length
  const r = await publish(['--out', bad, '--repo', 'someone/card', '--no-verify'])
  assert.match(assertOneError(r, 'CARD', 8), /problems in .*README\.md front matter; nothing was sent/)
  for (const field of ['license:', 'size_categories:', 'configs[0].data_files:', 'dataset_info.splits[test].num_examples:'])
    assert.ok(
      r.err.some((l) => l.includes(field)),
      `${field}\n${r.text()}`,
    )
  assert.equal(server.requests.length, before)
})

test('a concurrent commit between reading and committing: error[CONFLICT], exit 10, nothing mixed', async () => {
  const args = [...SOURCES, '--out', out, '--repo', 'someone/raced']
  assert.equal((await publish(args)).status, 0)
  await commit({
    hubUrl: server.url,
    accessToken: TOKEN,
    repo: { type: 'dataset', name: 'someone/raced' },
    title: 'stray file',
    operations: [{ operation: 'addOrUpdate', path: 'manifest.json', content: new Blob(['{}\n']) }],
  })
  let raced = false
  const racing: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    if (!raced && url.includes('/preupload/')) {
      raced = true
      await commit({
        hubUrl: server.url,
        accessToken: TOKEN,
        repo: { type: 'dataset', name: 'someone/raced' },
        title: 'theirs',
        operations: [{ operation: 'addOrUpdate', path: 'theirs.txt', content: new Blob(['x']) }],
      })
    }
    return fetch(input, init)
  }
  const r = await publish(args, env(), racing)
  assert.match(assertOneError(r, 'CONFLICT', 10), /HTTP 412/)
  const remote = await downloadAll(server.url, 'someone/raced')
  assert.equal(remote.get('manifest.json')!.toString(), '{}\n', 'our manifest did not land')
  assert.ok(remote.has('theirs.txt'))
})

test('usage errors: no --repo, a bad repo name or tag', async () => {
  assertOneError(await publish(['--out', out]), 'USAGE', 2)
  assertOneError(await publish(['--out', out, '--repo', 'no-slash']), 'USAGE', 2)
  assertOneError(await publish(['--out', out, '--repo', 'a/b', '--tag', 'v1..0']), 'USAGE', 2)
  const help = await publish(['--help'])
  assert.equal(help.status, 0)
  assert.match(help.out[0]!, /^usage: npm run publish-dataset/)
})
