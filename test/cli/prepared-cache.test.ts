import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { OUTPUT_FILES } from '../../src/emit/outputs.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, runInProcess, runNode } from '../helpers/cli.ts'

let dir: string
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jev-cli-prepared-'))
})
after(() => rm(dir, { recursive: true, force: true }))

const buildArgs = (out: string, extra: string[]) => [
  '--recipe',
  FIXTURE_RECIPE,
  '--mirror',
  FIXTURE_HUB,
  '--out',
  join(dir, out),
  '--quiet',
  ...extra,
]
/** A build in-process. */
const build = (out: string, env: NodeJS.ProcessEnv, extra: string[] = []) => runInProcess('build-dataset', buildArgs(out, extra), env)
/** A build as a real subprocess: for builds that run at once, each its own process holding the cache's locks. */
const buildProcess = (out: string, env: NodeJS.ProcessEnv, extra: string[] = []) => runNode('build-dataset', buildArgs(out, extra), env)

const outputs = async (out: string) => Promise.all(OUTPUT_FILES.map((f) => readFile(join(dir, out, f))))
const entries = async (d: string) => (await readdir(d).catch(() => [] as string[])).filter((n) => n.includes('.prepared.'))

test('two builds at once, as real subprocesses, share one cache folder, and a third reads it: the same bytes as a build without it', async () => {
  const cache = join(dir, 'cache')
  const env = { JEV_PREPARED_CACHE: cache }
  // the two sharing the cache are processes of their own (two lock holders, two writers); the one without it, in-process meanwhile
  const [a, b, none] = await Promise.all([buildProcess('a', env), buildProcess('b', env), build('none', {}, ['--no-prepared-cache'])])
  for (const r of [a, b, none]) assert.equal(r.status, 0, r.stderr)
  assert.equal((await entries(cache)).length, 5, 'an entry per source of the fixture recipe')
  assert.deepEqual(
    (await readdir(cache)).filter((n) => !n.endsWith('.v8')),
    [],
    'no temp file left',
  )
  const warm = await build('warm', env)
  assert.equal(warm.status, 0, warm.stderr)
  const want = await outputs('none')
  for (const out of ['a', 'b', 'warm']) assert.deepEqual(await outputs(out), want, out)
})

test('--no-prepared-cache and JEV_PREPARED_CACHE=0 neither read nor write it; XDG_CACHE_HOME places it by default', async () => {
  const xdg = join(dir, 'xdg')
  const flag = await build('flag', { XDG_CACHE_HOME: xdg, JEV_PREPARED_CACHE: '' }, ['--no-prepared-cache'])
  const off = await build('off', { XDG_CACHE_HOME: xdg, JEV_PREPARED_CACHE: 'off' })
  for (const r of [flag, off]) assert.equal(r.status, 0, r.stderr)
  assert.deepEqual(await entries(join(xdg, 'jev-bench', 'prepared')), [])
  const on = await build('on', { XDG_CACHE_HOME: xdg, JEV_PREPARED_CACHE: '' })
  assert.equal(on.status, 0, on.stderr)
  assert.equal((await entries(join(xdg, 'jev-bench', 'prepared'))).length, 5)
})

test('JEV_PREPARED_CACHE=1 (on, yes, true) is the default place, not a folder of that name; verify-dataset neither reads nor writes the cache', async () => {
  const xdg = join(dir, 'xdg-on')
  const on = await build('on-1', { XDG_CACHE_HOME: xdg, JEV_PREPARED_CACHE: '1' })
  assert.equal(on.status, 0, on.stderr)
  assert.equal((await entries(join(xdg, 'jev-bench', 'prepared'))).length, 5)
  // a verifying rebuild derives everything from the bytes again: an empty cache stays empty
  const cache = join(dir, 'verify-cache')
  const verify = await runInProcess(
    'verify-dataset',
    [
      '--out',
      join(dir, 'on-1'),
      '--recipe',
      FIXTURE_RECIPE,
      '--lock',
      FIXTURE_RECIPE.replace(/\.json$/, '.lock.json'),
      '--mirror',
      FIXTURE_HUB,
      '--quiet',
    ],
    { JEV_PREPARED_CACHE: cache },
  )
  assert.equal(verify.status, 0, verify.stderr)
  assert.deepEqual(await entries(cache), [])
})
