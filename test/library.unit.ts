/** The package used as a library, imported by its own name (package.json "exports"), on the fixture dataset. */
import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import {
  buildDataset,
  checkDataset,
  diffDatasets,
  isJevError,
  JevError,
  publishDataset,
  serveHub,
  terminalProgress,
  verifyDataset,
} from 'jev-bench-builder'
import { isWriteRequest } from '../src/hub-server/index.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE } from './helpers/cli.ts'
import { buildFixtureOut, FIXTURE_LOCK } from './helpers/publish.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-lib-'))
})
after(() => rm(tmp, { recursive: true, force: true }))
const sources = () => ({ recipe: FIXTURE_RECIPE, lock: FIXTURE_LOCK, mirror: FIXTURE_HUB, env: {} })

test('buildDataset builds the fixture dataset as the CLI does; check, verify and diff read it back', async () => {
  const out = join(tmp, 'out')
  const lines: string[] = []
  const run = await buildDataset({ ...sources(), out, onLine: (l) => lines.push(l) })
  assert.equal(run.out, out)
  assert.equal(run.wroteLock, false, 'frozen against the fixture lock')
  for (const [name, text] of run.built.files) assert.equal(await readFile(join(out, name), 'utf8'), text, name)
  // the same bytes as the CLI's path to a folder (test/helpers/publish.ts builds with buildToDir)
  const reference = join(tmp, 'reference')
  await buildFixtureOut(reference)
  const same = await diffDatasets({ a: reference, b: out })
  assert.equal(same.identical, true, JSON.stringify(same.files))
  assert.deepEqual((await checkDataset({ dir: out, recipe: FIXTURE_RECIPE })).problems, [])
  assert.equal((await verifyDataset({ ...sources(), out })).result.identical, true)

  const edited = join(tmp, 'edited')
  await cp(out, edited, { recursive: true })
  const text = await readFile(join(edited, 'val.jsonl'), 'utf8')
  await writeFile(join(edited, 'val.jsonl'), text.slice(text.indexOf('\n') + 1))
  const d = await diffDatasets({ a: out, b: edited })
  assert.equal(d.identical, false)
  assert.equal(d.records.val.removed.length, 1)
  const v = await verifyDataset({ ...sources(), out: edited })
  assert.equal(v.result.identical, false)
  assert.equal(v.result.cause, 'out-edited')
  assert.ok((await checkDataset({ dir: edited, recipe: FIXTURE_RECIPE })).problems.length > 0)
})

test('failures throw the typed errors: a bad option is USAGE, a missing recipe IO', async () => {
  await assert.rejects(buildDataset({ ...sources(), out: join(tmp, 'x'), bogus: 1 } as never), (e: unknown) => {
    assert.ok(e instanceof JevError && isJevError(e))
    assert.equal(e.code, 'USAGE')
    assert.match(e.message, /bogus/)
    return true
  })
  await assert.rejects(
    buildDataset({ ...sources(), recipe: join(tmp, 'missing.json'), out: join(tmp, 'y') }),
    (e: unknown) => isJevError(e) && e.code === 'IO',
  )
})

test('serveHub serves the mirror; publishDataset plans a dry run against it and sends nothing', async () => {
  const server = await serveHub({ mirror: FIXTURE_HUB })
  try {
    const out = join(tmp, 'publish-out')
    await buildFixtureOut(out)
    const lines: string[] = []
    const run = await publishDataset({
      ...sources(),
      env: { HF_ENDPOINT: server.url },
      out,
      repo: 'someone/lib-test',
      dryRun: true,
      onLine: (l) => lines.push(l),
    })
    assert.equal(run.result, null)
    assert.equal(run.plan.repoAction, 'create')
    assert.deepEqual(run.plan.files.map((f) => f.path).sort(), [
      'README.md',
      'answer-positions.svg',
      'borrowed-options.svg',
      'croissant.json',
      'manifest.json',
      'option-counts.svg',
      'provenance.jsonl',
      'test.jsonl',
      'val.jsonl',
    ])
    assert.ok(lines.includes('dry run: only read requests were sent; nothing was changed'), lines.join('\n'))
    assert.ok(server.requests.length > 0, 'the plan read the repo')
    assert.deepEqual(server.requests.filter(isWriteRequest), [])
  } finally {
    await server.close()
  }
})

test('a progress given to the library is drawn on as the build goes, and left for the caller to end; anything else is USAGE', async () => {
  const writes: string[] = []
  const progress = terminalProgress({ write: (t) => void writes.push(t), intervalMs: 0, now: () => 0 })
  const out = join(tmp, 'progress-out')
  await buildDataset({ ...sources(), out, progress })
  const drawn = writes.join('')
  for (const stage of [
    'loading and preparing sources (1 of 5: jcommonsenseqa)',
    'selecting, borrowing distractors and reshaping',
    `writing ${out}/`,
  ])
    assert.ok(drawn.includes(stage), stage)
  assert.equal(writes.at(-1), `writing ${out}/`, "still drawn: ending it is the caller's")
  progress.end()
  await assert.rejects(
    buildDataset({ ...sources(), out, progress: { stage() {} } as never }),
    (e: unknown) => isJevError(e) && e.code === 'USAGE' && /progress/.test(e.message),
  )
})
