/**
 * Paths are resolved once, at the boundary: a relative --cache-dir, HF_HUB_CACHE, HF_HOME or
 * --mirror gives the same build as an absolute one, and a warm cache the same zero requests.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { after, before, test } from 'node:test'
import { buildDatasetCli } from '../../src/cli/build-dataset.ts'
import { runCli } from '../../src/cli/run.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE } from '../helpers/cli.ts'
import { type HubServer, startHubServer } from '../helpers/hub-server.ts'

let tmp: string
let server: HubServer
let reference: string

async function build(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const c = collectIo()
  const status = await runCli(() => buildDatasetCli(['--recipe', FIXTURE_RECIPE, ...argv], env, c.io), c.io, false)
  return { status, ...c }
}

async function assertSame(out: string): Promise<void> {
  for (const f of ['test.jsonl', 'val.jsonl', 'README.md', 'manifest.json'])
    assert.ok((await readFile(join(out, f))).equals(await readFile(join(reference, f))), f)
}

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-relative-'))
  server = await startHubServer({ root: FIXTURE_HUB })
  reference = join(tmp, 'reference')
  assert.equal((await build(['--mirror', FIXTURE_HUB, '--out', reference])).status, 0)
})
after(async () => {
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

/** Relative to the working folder, which is all a relative path is resolved against. */
const rel = (p: string) => relative(process.cwd(), p)

const CASES: Array<[string, (dir: string) => { argv: string[]; env: NodeJS.ProcessEnv }]> = [
  ['--cache-dir', (dir) => ({ argv: ['--cache-dir', rel(dir)], env: {} })],
  ['HF_HUB_CACHE', (dir) => ({ argv: [], env: { HF_HUB_CACHE: rel(dir) } })],
  ['HF_HOME', (dir) => ({ argv: [], env: { HF_HOME: rel(dir) } })],
]

for (const [name, how] of CASES) {
  test(`a relative ${name}: the same build, then zero requests warm and the same build --offline`, async () => {
    const { argv, env } = how(join(tmp, name))
    const e = { ...env, HF_ENDPOINT: server.url }
    const cold = await build([...argv, '--out', join(tmp, `${name}-cold`)], e)
    assert.equal(cold.status, 0, cold.text())
    await assertSame(join(tmp, `${name}-cold`))
    server.requests.length = 0
    const warm = await build([...argv, '--out', join(tmp, `${name}-warm`)], e)
    assert.equal(warm.status, 0, warm.text())
    assert.deepEqual(server.requests, [], 'a warm cache sends nothing')
    const off = await build([...argv, '--out', join(tmp, `${name}-off`), '--offline'], e)
    assert.equal(off.status, 0, off.text())
    await assertSame(join(tmp, `${name}-off`))
  })
}

test('a relative --mirror: the same build', async () => {
  const out = join(tmp, 'mirror-rel')
  const r = await build(['--mirror', rel(FIXTURE_HUB), '--out', rel(out)])
  assert.equal(r.status, 0, r.text())
  await assertSame(out)
})
