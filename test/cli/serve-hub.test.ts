import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createRepo, datasetInfo } from '@huggingface/hub'
import { runCli } from '../../src/cli/run.ts'
import { serveHubCli } from '../../src/cli/serve-hub.ts'
import { collectIo, FIXTURE_HUB, ROOT } from '../helpers/cli.ts'

const TOKEN = 'hf_serveHubTest000000000'

test('serve-hub in-process: prints its URL, serves the mirror and a store, refuses a non-loopback host', async () => {
  const store = await mkdtemp(join(tmpdir(), 'jev-serve-'))
  try {
    let stop!: () => void
    const stopped = new Promise<void>((ok) => (stop = ok))
    const c = collectIo()
    const running = runCli(() => serveHubCli(['--mirror', FIXTURE_HUB, '--store', store], {}, c.io, stopped), c.io, false)
    while (!c.out.some((l) => l.startsWith('local Hub at '))) await new Promise((ok) => setTimeout(ok, 20))
    const url = c.out[0]!.slice('local Hub at '.length)
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/)
    const info = await datasetInfo({ hubUrl: url, name: 'cais/mmlu', revision: 'main', additionalFields: ['sha'] })
    assert.match(info.sha, /^[0-9a-f]{40}$/)
    await createRepo({ hubUrl: url, accessToken: TOKEN, repo: { type: 'dataset', name: 'me/kept' } })
    stop()
    assert.equal(await running, 0)
    assert.deepEqual(await readdir(join(store, 'repos', 'datasets', 'me')), ['kept.json'])

    const refused = collectIo()
    assert.equal(await runCli(() => serveHubCli(['--host', '0.0.0.0'], {}, refused.io), refused.io, false), 2)
    assert.match(refused.err[0]!, /^error\[USAGE\]: refusing to listen on 0\.0\.0\.0/)
  } finally {
    await rm(store, { recursive: true, force: true })
  }
})

test('npm run serve-hub as a subprocess: --require-token guards it with its HF_TOKEN, SIGTERM stops it cleanly', async () => {
  const child = spawn(process.execPath, ['dist/cli/main.js', 'serve-hub', '--port', '0', '--require-token', '--log'], {
    cwd: ROOT,
    env: { ...process.env, HF_TOKEN: TOKEN },
  })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  try {
    while (!/local Hub at (\S+)/.test(stdout)) {
      if (child.exitCode !== null) assert.fail(`serve-hub exited early: ${stdout}`)
      await new Promise((ok) => setTimeout(ok, 50))
    }
    const url = /local Hub at (\S+)/.exec(stdout)![1]!
    assert.equal((await fetch(`${url}/api/datasets/a/b`)).status, 401)
    await createRepo({ hubUrl: url, accessToken: TOKEN, repo: { type: 'dataset', name: 'me/x' } })
    child.kill('SIGTERM')
    const code = await new Promise<number | null>((ok) => child.on('close', ok))
    assert.equal(code, 0)
    assert.match(stdout, /POST \/api\/repos\/create/)
    assert.match(stdout, /local Hub stopped/)
    assert.ok(!stdout.includes(TOKEN), 'the token is never printed')
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL')
  }
})
