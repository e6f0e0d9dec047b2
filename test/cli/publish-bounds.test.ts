/**
 * publish-dataset and verify-dataset under the same network bounds as the downloads, and a
 * publish plan that meets a repo appearing between two of its reads.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { createRepo } from '@huggingface/hub'
import { publishDatasetCli } from '../../src/cli/publish-dataset.ts'
import { runCli } from '../../src/cli/run.ts'
import { verifyDatasetCli } from '../../src/cli/verify-dataset.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE } from '../helpers/cli.ts'
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.ts'
import { type HubServer, isWriteRequest, startHubServer } from '../helpers/hub-server.ts'
import { buildFixtureOut, commitIds, downloadAll, FIXTURE_LOCK, TOKEN } from '../helpers/publish.ts'

let tmp: string
let out: string
let server: HubServer
let proxy: FaultProxy
const SAFETY = { timeout: 30_000 }

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-publish-bounds-'))
  out = join(tmp, 'out')
  await buildFixtureOut(out)
  server = await startHubServer({ root: FIXTURE_HUB })
  proxy = await startFaultProxy(server.url)
})
after(async () => {
  await proxy.close()
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

const SOURCES = ['--recipe', FIXTURE_RECIPE, '--lock', FIXTURE_LOCK]

async function run(cli: typeof publishDatasetCli, argv: string[], env: NodeJS.ProcessEnv, fetchImpl?: typeof fetch) {
  const c = collectIo()
  const status = await runCli(() => cli(argv, env, c.io, fetchImpl), c.io, false)
  return { status, ...c }
}

test(
  'a commit request that is never answered: error[NETWORK] within --http-timeout (plus the upload time at JEV_MIN_RATE), and nothing committed',
  SAFETY,
  async () => {
    const rule = proxy.addFault({ match: '/commit/main', method: 'POST', fault: 'hang' })
    try {
      const r = await run(
        publishDatasetCli,
        [...SOURCES, '--mirror', FIXTURE_HUB, '--out', out, '--repo', 'someone/stalled', '--http-timeout', '2'],
        { HF_ENDPOINT: proxy.url, HF_TOKEN: TOKEN, JEV_MIN_RATE: '1000000' },
      )
      assert.equal(r.status, 6, r.text())
      assert.match(r.err[0]!, /^error\[NETWORK\]: could not commit to someone\/stalled@main at .*no response within \d+ ms/)
      assert.equal(rule.applied, 1)
      assert.ok(!r.text().includes(TOKEN))
    } finally {
      proxy.clearFaults()
    }
    assert.equal((await commitIds(server.url, 'someone/stalled')).length, 1, "only the new repo's first commit")
  },
)

test(
  'a paths-info that never answers in verify-dataset: error[NETWORK] at JEV_FILE_DEADLINE; then the same cache verifies',
  SAFETY,
  async () => {
    const cacheDir = join(tmp, 'verify-cache')
    const args = [...SOURCES, '--out', out, '--cache-dir', cacheDir]
    proxy.addFault({ match: 'paths-info', fault: 'hang' })
    try {
      const r = await run(verifyDatasetCli as never, args, { HF_ENDPOINT: proxy.url, JEV_FILE_DEADLINE: '0.3' })
      assert.equal(r.status, 6, r.text())
      assert.match(r.err[0]!, /^error\[NETWORK\]: .*gave up after 0\.3 s, the limit for one file or request/)
    } finally {
      proxy.clearFaults()
    }
    const ok = await run(verifyDatasetCli as never, args, { HF_ENDPOINT: proxy.url })
    assert.equal(ok.status, 0, ok.text())
  },
)

test("a repo (with main) that appears between the plan's reads is re-read, not planned as a new branch", async () => {
  let created = false
  // the first read of the branch finds nothing; before the next, someone creates the repo
  const racing: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    const res = await fetch(input, init)
    if (!created && url.includes('/api/datasets/someone/appeared/revision/main') && res.status === 404) {
      created = true
      await createRepo({ hubUrl: server.url, accessToken: TOKEN, repo: { type: 'dataset', name: 'someone/appeared' } })
    }
    return res
  }
  const before = server.requests.filter(isWriteRequest).length
  const r = await run(
    publishDatasetCli,
    [...SOURCES, '--mirror', FIXTURE_HUB, '--out', out, '--repo', 'someone/appeared'],
    { HF_ENDPOINT: server.url, HF_TOKEN: TOKEN },
    racing,
  )
  assert.ok(created)
  assert.equal(r.status, 0, r.text())
  assert.ok(!r.out.some((l) => /new branch/.test(l)), r.text())
  assert.ok(server.requests.filter(isWriteRequest).length > before)
  assert.ok((await downloadAll(server.url, 'someone/appeared')).has('manifest.json'))
})

test('a bad bound is error[USAGE] at once, with --mirror too, for every command', async () => {
  const { buildDatasetCli } = await import('../../src/cli/build-dataset.ts')
  // the folder is there (an empty one), so that only the bound is wrong
  await mkdir(join(tmp, 'never'), { recursive: true })
  const argv = [...SOURCES, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'never')]
  for (const [cli, extra] of [
    [buildDatasetCli, ['--http-timeout', 'soon']],
    [verifyDatasetCli, ['--file-deadline', '0']],
    [publishDatasetCli, ['--repo', 'a/b', '--min-rate', '1.2.3']],
  ] as const) {
    const r = await run(cli as never, [...argv, ...extra], { HF_ENDPOINT: server.url, HF_TOKEN: TOKEN })
    assert.equal(r.status, 2, r.text())
    assert.match(r.err[0]!, /^error\[USAGE\]: --[a-z-]+ "[^"]*" is not a (positive )?number of/)
  }
})
