/**
 * Local inputs that are not regular files — a FIFO, a device, a folder where a file should be —
 * are refused with IO at once, never read (a FIFO's read would block forever). Run as
 * subprocesses: a read blocked on a FIFO would hold this process's thread pool.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { FIXTURE_HUB, FIXTURE_RECIPE, runNode } from '../helpers/cli.ts'
import { buildFixtureOut, FIXTURE_LOCK } from '../helpers/publish.ts'

const SAFETY = { timeout: 60_000 }
const ARC_FILE = join('datasets', 'allenai', 'ai2_arc', 'ARC-Challenge', 'test-00000-of-00001.parquet')
let tmp: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-not-a-file-'))
})
after(async () => {
  await rm(tmp, { recursive: true, force: true })
})

const mkfifo = (path: string) => assert.equal(spawnSync('mkfifo', [path]).status, 0, `mkfifo ${path}`)

function assertIo(r: { status: number | null; stderr: string }, what: RegExp): void {
  assert.equal(r.status, 7, r.stderr)
  const line = r.stderr.split('\n').find((l) => l.startsWith('error['))!
  assert.match(line, /^error\[IO\]: /)
  assert.match(line, what)
}

for (const kind of ['a FIFO', 'a folder'] as const) {
  test(`${kind} in place of a Parquet file in a --mirror folder: error[IO] at once`, SAFETY, async () => {
    const mirror = join(tmp, `mirror-${kind.replace(' ', '-')}`)
    await cp(FIXTURE_HUB, mirror, { recursive: true })
    await rm(join(mirror, ARC_FILE))
    if (kind === 'a FIFO') mkfifo(join(mirror, ARC_FILE))
    else await mkdir(join(mirror, ARC_FILE))
    const r = await runNode('build-dataset.ts', [
      '--recipe',
      FIXTURE_RECIPE,
      '--lock',
      FIXTURE_LOCK,
      '--mirror',
      mirror,
      '--out',
      join(tmp, `out-${kind}`),
    ])
    assertIo(r, new RegExp(`test-00000-of-00001\\.parquet is ${kind}, not a regular file`))
  })
}

test('a FIFO in place of val.jsonl given to check-dataset, or of the recipe or the lock: error[IO] at once', SAFETY, async () => {
  const out = join(tmp, 'built')
  await buildFixtureOut(out)
  await rm(join(out, 'val.jsonl'))
  mkfifo(join(out, 'val.jsonl'))
  assertIo(await runNode('check-dataset.ts', [out, '--recipe', FIXTURE_RECIPE]), /val\.jsonl is a FIFO, not a regular file/)

  const fifo = join(tmp, 'recipe.fifo')
  mkfifo(fifo)
  assertIo(
    await runNode('build-dataset.ts', ['--recipe', fifo, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'o1')]),
    /recipe\.fifo is a FIFO/,
  )
  assertIo(
    await runNode('build-dataset.ts', ['--recipe', FIXTURE_RECIPE, '--lock', fifo, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'o2')]),
    /recipe\.fifo is a FIFO/,
  )
  assertIo(
    await runNode('build-dataset.ts', ['--recipe', '/dev/zero', '--mirror', FIXTURE_HUB, '--out', join(tmp, 'o3')]),
    /\/dev\/zero is a device/,
  )
})
