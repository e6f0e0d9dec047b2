/** Errors whose code's hint does not fit carry their own: a corrupt cached blob offline, a file that is not Parquet. */
import assert from 'node:assert/strict'
import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildDatasetCli } from '../../src/cli/build-dataset.ts'
import { runCli } from '../../src/cli/run.ts'
import { ERROR_CODES } from '../../src/errors.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE } from '../helpers/cli.ts'
import { startHubServer } from '../helpers/hub-server.ts'
import { FIXTURE_LOCK } from '../helpers/publish.ts'

async function build(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const c = collectIo()
  const status = await runCli(() => buildDatasetCli(['--recipe', FIXTURE_RECIPE, '--lock', FIXTURE_LOCK, ...argv], env, c.io), c.io, false)
  return { status, err: c.err }
}

test('a non-Parquet file in the mirror: DATA with a hint about the file, not "an upstream row is malformed"', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-hints-'))
  try {
    const mirror = join(tmp, 'hub')
    await cp(FIXTURE_HUB, mirror, { recursive: true })
    const dir = join(mirror, 'datasets', 'sbintuitions', 'JCommonsenseQA', 'data')
    for (const f of await readdir(dir)) await writeFile(join(dir, f), '<html>rate limited</html>\n')
    const r = await build(['--mirror', mirror, '--out', join(tmp, 'out')])
    assert.equal(r.status, 3, r.err.join('\n'))
    assert.match(r.err[0]!, /^error\[DATA\]: .* is not a readable Parquet file/)
    assert.match(r.err[1]!, /^hint: the file is not Parquet/)
    assert.notEqual(r.err[1], `hint: ${ERROR_CODES.DATA.hint}`)
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
})

test('a corrupt cached blob, offline: INTEGRITY saying the entry was deleted and to build online, not "the partial file was discarded"', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-hints-'))
  const server = await startHubServer({ root: FIXTURE_HUB })
  try {
    const cache = join(tmp, 'cache')
    const warm = await build(['--out', join(tmp, 'o1'), '--cache-dir', cache], { HF_ENDPOINT: server.url })
    assert.equal(warm.status, 0, warm.err.join('\n'))
    const blobs = join(cache, 'datasets--sbintuitions--JCommonsenseQA', 'blobs')
    for (const b of await readdir(blobs)) await writeFile(join(blobs, b), 'garbage')
    const r = await build(['--out', join(tmp, 'o2'), '--cache-dir', cache, '--offline'])
    assert.equal(r.status, 5, r.err.join('\n'))
    assert.match(r.err[0]!, /^error\[INTEGRITY\]: cached blob .* is corrupt/)
    assert.equal(r.err[1], 'hint: the corrupt cache entry was deleted; build once without --offline to fetch it again')
  } finally {
    await server.close()
    await rm(tmp, { recursive: true, force: true })
  }
})
