import assert from 'node:assert/strict'
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildFromSources, buildToDir } from '../src/build-io.ts'
import { OUTPUT_FILES, type OutputContent, outputText } from '../src/emit/outputs.ts'
import type { DataRecord } from '../src/emit/schema.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { type Lock, readLock } from '../src/recipe/lock.ts'
import type { Recipe } from '../src/recipe/schema.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, ROOT, runNode } from './helpers/cli.ts'
import { readRows, rewriteRows } from './helpers/parquet.ts'

const FILES = OUTPUT_FILES
const LOCK = join(ROOT, 'test/fixtures/recipe.lock.json')
let tmp: string
let recipe: Recipe
let lock: Lock
let reference: Map<string, OutputContent>

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-repro-'))
  recipe = await loadRecipe(FIXTURE_RECIPE)
  lock = (await readLock(LOCK))!
  reference = (await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { lock })).files
})
after(() => rm(tmp, { recursive: true, force: true }))

async function assertReference(dir: string, what: string): Promise<void> {
  for (const f of FILES) assert.equal(await readFile(join(dir, f), 'utf8'), reference.get(f), `${what}: ${f}`)
}

const cliBuild = (out: string) => ['--recipe', FIXTURE_RECIPE, '--lock', LOCK, '--mirror', FIXTURE_HUB, '--out', out]

test('the same bytes whatever the time zone, locale and working folder', async () => {
  const out = join(tmp, 'env-out')
  const r = await runNode(
    'build-dataset.ts',
    cliBuild(out),
    { TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8', LC_COLLATE: 'tr_TR.UTF-8' },
    tmpdir(),
  )
  assert.equal(r.status, 0, r.stderr)
  await assertReference(out, 'TZ/LANG/cwd')
})

test('two builds at once into the same folder both succeed and leave one complete build', async () => {
  const out = join(tmp, 'shared-out')
  const [a, b] = await Promise.all([runNode('build-dataset.ts', cliBuild(out)), runNode('build-dataset.ts', cliBuild(out))])
  assert.equal(a.status, 0, a.stderr)
  assert.equal(b.status, 0, b.stderr)
  await assertReference(out, 'concurrent')
  assert.deepEqual(
    (await readdir(tmp)).filter((e) => e.startsWith('.shared-out.')),
    [],
    'no temp folders left',
  )
})

function recordsOf(files: Map<string, OutputContent>): DataRecord[] {
  return ['test.jsonl', 'val.jsonl'].flatMap((f) =>
    outputText(files.get(f)!)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as DataRecord),
  )
}

test("dropping an unselected row of one source leaves every other source's records byte-identical", async () => {
  const hub = join(tmp, 'one-row-less')
  await cp(FIXTURE_HUB, hub, { recursive: true })
  const file = join(hub, 'datasets/allenai/ai2_arc/ARC-Easy/test-00000-of-00001.parquet')
  const chosen = new Set(recordsOf(reference).map((r) => r.id))
  const victim = (await readRows(file)).find((r) => !chosen.has(`arc_easy-${String(r.id)}`))!
  await rewriteRows(file, (rows) => rows.filter((r) => r.id !== victim.id))
  const changed = recordsOf((await buildFromSources(recipe, createMirrorFetcher(hub), { lock: null })).files)
  const others = (rs: DataRecord[]) =>
    rs
      .filter((r) => r.source !== 'arc_easy')
      .map((r) => JSON.stringify(r))
      .sort()
  assert.deepEqual(others(changed), others(recordsOf(reference)))
  assert.ok(!changed.some((r) => r.id === `arc_easy-${String(victim.id)}`))
})

test('another seed gives other output; the same seed the same', async () => {
  const again = await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { lock })
  assert.equal(again.files.get('test.jsonl'), reference.get('test.jsonl'))
  const other = await buildFromSources({ ...recipe, seed: 4321 }, createMirrorFetcher(FIXTURE_HUB), { lock })
  assert.notEqual(other.files.get('test.jsonl'), reference.get('test.jsonl'))
})

test('a written build matches the in-memory one', async () => {
  const out = join(tmp, 'written')
  await buildToDir(recipe, createMirrorFetcher(FIXTURE_HUB), out, { lock })
  await assertReference(out, 'buildToDir')
})

test('the exclusion list removes what it names and warns about entries that match nothing', async () => {
  const victim = recordsOf(reference).find((r) => r.source === 'arc_easy')!
  const excluding = { ...recipe, exclude: { ids: [victim.id, 'arc_easy-NO_SUCH_ID'], texts: ['A question nobody asked?'] } }
  const built = await buildFromSources(excluding, createMirrorFetcher(FIXTURE_HUB), { lock })
  assert.ok(!recordsOf(built.files).some((r) => r.id === victim.id))
  assert.equal(built.drops.get('arc_easy')?.get('excluded'), 1)
  assert.deepEqual(
    built.warnings.filter((w) => w.startsWith('exclusion list')),
    [
      'exclusion list: no upstream question has the id arc_easy-NO_SUCH_ID',
      'exclusion list: no upstream question has the text "A question nobody asked?"',
    ],
  )
  assert.match(outputText(built.files.get('README.md')!), /The exclusion list named 2 ids and 1 question texts/)
})
