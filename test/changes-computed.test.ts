import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildFromSources, buildToDir } from '../src/build-io.ts'
import { checkFolder } from '../src/check/check.ts'
import { compareBuildTexts } from '../src/check/compare.ts'
import { buildDatasetCli } from '../src/cli/build-dataset.ts'
import { runCli } from '../src/cli/run.ts'
import { Manifest } from '../src/emit/manifest.ts'
import { outputText } from '../src/emit/outputs.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { dirPreparedCache } from '../src/prepared-cache/cache.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock, writeLock } from '../src/recipe/lock.ts'
import { SPLITS, type Split } from '../src/recipe/schema.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE, ownFile, ROOT, TS_LOADER } from './helpers/cli.ts'

// A recipe pair cut from the fixture: "old" borrows uniformly and grows negative questions (1.0.0's
// rules); "new" is the fixture recipe with a changesFrom that names old and types no figures.
let tmp: string
let oldPath: string
let newPath: string
const fetcher = createMirrorFetcher(FIXTURE_HUB)

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-changes-'))
  const base = JSON.parse(await readFile(FIXTURE_RECIPE, 'utf8'))
  base.$schema = undefined
  const old = {
    ...base,
    version: '1.0.0',
    publication: undefined,
    distractors: { borrow: { rule: 'uniform' }, negatives: { grow: true } },
    sources: base.sources.map((s: Record<string, unknown>) => ({ ...s, onePerContext: false })),
  }
  oldPath = join(tmp, 'old.json')
  await writeFile(oldPath, `${JSON.stringify(old, null, 2)}\n`)
  const built = await buildToDir(await loadRecipe(oldPath), fetcher, join(tmp, 'out-old'))
  await writeLock(join(tmp, 'old.lock.json'), built.lock)
  const now = {
    ...base,
    version: '1.1.0',
    changesFrom: { version: '1.0.0', recipe: 'old.json', note: 'Distractors come from similar questions.' },
  }
  newPath = join(tmp, 'new.json')
  await writeFile(newPath, `${JSON.stringify(now, null, 2)}\n`)
})
after(() => rm(tmp, { recursive: true, force: true }))

const build = async (argv: string[]) => {
  const c = collectIo()
  const status = await runCli(() => buildDatasetCli(argv, {}, c.io), c.io, false)
  return { status, text: c.text() }
}
const jsonlOf = async (dir: string) =>
  Object.fromEntries(await Promise.all(SPLITS.map(async (s) => [s, await readFile(join(dir, `${s}.jsonl`), 'utf8')]))) as Record<
    Split,
    string
  >

test('the build computes the "Changes from" figures, and they are what compare-builds gives', async () => {
  const out = join(tmp, 'out-new')
  const r = await build(['--recipe', newPath, '--mirror', FIXTURE_HUB, '--out', out, '--no-prepared-cache'])
  assert.equal(r.status, 0, r.text)
  const m = Manifest.parse(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')))
  const figures = m.changesFrom?.bySource
  assert.ok(figures, 'manifest.json records the computed figures')
  assert.equal(m.changesFrom!.version, '1.0.0')
  const recipe = await loadRecipe(newPath)
  assert.deepEqual(
    figures,
    compareBuildTexts(
      await jsonlOf(join(tmp, 'out-old')),
      await jsonlOf(out),
      recipe.sources.map((s) => s.name),
    ),
  )
  // the two rule sets give different builds: every kind of figure occurs
  const sum = (k: 'kept' | 'optionsChanged' | 'replaced') => Object.values(figures).reduce((a, f) => a + f[k], 0)
  assert.ok(sum('kept') > 0 && sum('optionsChanged') > 0, JSON.stringify(figures))
  assert.equal(
    sum('kept') + sum('optionsChanged') + sum('replaced'),
    recipe.sources.reduce((a, s) => a + s.test.count + s.val.count, 0),
  )
  // the card prints them, and check-dataset holds it to the manifest's figures
  const card = await readFile(join(out, 'README.md'), 'utf8')
  assert.match(card, /## Changes from 1\.0\.0/)
  assert.ok(card.includes(`${sum('kept')} records are unchanged, ${sum('optionsChanged')} keep their question`), card)
  assert.deepEqual(await checkFolder(out, recipe), [])
  // the script, run as CI runs it, agrees
  const script = spawnSync(
    process.execPath,
    [...TS_LOADER, ownFile('scripts/compare-builds.ts'), join(tmp, 'out-old'), out, '--recipe', newPath, '--check'],
    { cwd: ROOT, encoding: 'utf8' },
  )
  assert.equal(script.status, 0, script.stderr)
  assert.match(script.stdout, /ok: .*manifest\.json: changesFrom\.bySource states these changes/)
})

test('a card whose computed figures were edited, or a manifest without them, fails check-dataset', async () => {
  const out = join(tmp, 'out-new')
  const recipe = await loadRecipe(newPath)
  const manifestText = await readFile(join(out, 'manifest.json'), 'utf8')
  const m = JSON.parse(manifestText)
  const first = Object.keys(m.changesFrom.bySource)[0]!
  m.changesFrom.bySource[first].kept += 1
  await writeFile(join(out, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`)
  assert.ok(
    (await checkFolder(out, recipe)).includes(
      `README.md: the "Changes from 1.0.0" section is not what the manifest's computed figures give`,
    ),
  )
  delete m.changesFrom
  await writeFile(join(out, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`)
  assert.ok(
    (await checkFolder(out, recipe)).includes(
      'README.md: the "Changes from 1.0.0" figures are computed by the build, and manifest.json records none',
    ),
  )
  await writeFile(join(out, 'manifest.json'), manifestText)
})

test('with the prepared cache the figures and every byte are the same, cold and warm', async () => {
  const recipe = await loadRecipe(newPath)
  const previous = { recipe: await loadRecipe(oldPath), lock: await readLock(join(tmp, 'old.lock.json')) }
  const plain = await buildFromSources(recipe, fetcher, { previous })
  const preparedCache = dirPreparedCache(join(tmp, 'cache'))
  const cold = await buildFromSources(recipe, fetcher, { previous, preparedCache })
  const warm = await buildFromSources(recipe, fetcher, { previous, preparedCache })
  for (const b of [cold, warm]) {
    assert.deepEqual([...b.files.keys()], [...plain.files.keys()])
    for (const [name, content] of plain.files) assert.equal(outputText(b.files.get(name)!), outputText(content), name)
    assert.deepEqual(b.warnings, plain.warnings)
  }
  // the warm build took the previous recipe's records from the cache; a lock that differs is not covered by them
  assert.equal((await readdir(join(tmp, 'cache'))).filter((n) => n.includes('.previous.')).length, 1)
  const bad = structuredClone(previous.lock!)
  bad.sources[0]!.files[0]!.rowsHash = '0'.repeat(64)
  await assert.rejects(
    buildFromSources(recipe, fetcher, { previous: { ...previous, lock: bad }, preparedCache }),
    (e: Error & { code?: string }) => e.code === 'LOCK',
  )
})

test('the previous recipe is built under its own lock: rows that differ from it are a LOCK error', async () => {
  const recipe = await loadRecipe(newPath)
  const lock = (await readLock(join(tmp, 'old.lock.json')))!
  const bad = structuredClone(lock)
  bad.sources[1]!.files[0]!.rowsHash = '0'.repeat(64)
  await assert.rejects(
    buildFromSources(recipe, fetcher, { previous: { recipe: await loadRecipe(oldPath), lock: bad } }),
    (e: Error & { code?: string }) => e.code === 'LOCK' && /other rows than the lock/.test(e.message),
  )
})

test('a recipe that types no figures needs its previous recipe, and that recipe its lock', async () => {
  const recipe = await loadRecipe(newPath)
  await assert.rejects(buildFromSources(recipe, fetcher), (e: Error & { code?: string }) => e.code === 'RECIPE')
  await rm(join(tmp, 'old.lock.json'))
  const r = await build(['--recipe', newPath, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'out-nolock'), '--no-prepared-cache'])
  assert.equal(r.status, 5, r.text)
  assert.match(
    r.text,
    /no lock at .*old\.lock\.json: the "Changes from 1\.0\.0" figures compare with a build of old\.json under its own lock/,
  )
})
