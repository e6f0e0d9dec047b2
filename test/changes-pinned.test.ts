import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
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
import { loadRecipe, parseRecipe } from '../src/recipe/load.ts'
import { readLock, writeLock } from '../src/recipe/lock.ts'
import { SPLITS, type Split } from '../src/recipe/schema.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE, runInProcess } from './helpers/cli.ts'

// A recipe pair cut from the fixture: "old" is the fixture recipe under another seed; "new" is the fixture recipe
// whose changesFrom names old and types no figures, so its lock must pin them. It is first built without
// changesFrom, as a release is (its records do not depend on it), which writes its lock and the folder to compare.
let tmp: string
let newPath: string
let lockPath: string
let now: Record<string, unknown>
const fetcher = createMirrorFetcher(FIXTURE_HUB)

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-changes-'))
  const base = JSON.parse(await readFile(FIXTURE_RECIPE, 'utf8'))
  base.$schema = undefined
  const old = { ...base, version: '1.0.0', seed: 4321 }
  await buildToDir(parseRecipe(old), fetcher, join(tmp, 'out-old'))
  newPath = join(tmp, 'new.json')
  lockPath = join(tmp, 'new.lock.json')
  const plain = { ...base, version: '1.1.0' }
  await writeFile(newPath, `${JSON.stringify(plain, null, 2)}\n`)
  const r = await build(['--recipe', newPath, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'out-plain'), '--no-prepared-cache'])
  assert.equal(r.status, 0, r.text)
  now = { ...plain, changesFrom: { version: '1.0.0', recipe: 'old.json', note: 'The seed changed.' } }
  await writeFile(newPath, `${JSON.stringify(now, null, 2)}\n`)
})
after(() => rm(tmp, { recursive: true, force: true }))

const build = async (argv: string[]) => {
  const c = collectIo()
  const status = await runCli(() => buildDatasetCli(argv, {}, c.io), c.io, false)
  return { status, text: c.text() }
}
const compareBuilds = (...args: string[]) => runInProcess('compare-builds', [...args, '--recipe', newPath])
const jsonlOf = async (dir: string) =>
  Object.fromEntries(await Promise.all(SPLITS.map(async (s) => [s, await readFile(join(dir, `${s}.jsonl`), 'utf8')]))) as Record<
    Split,
    string
  >

test('a recipe whose lock pins no "Changes from" figures is refused before any work, naming the lock and the command that pins them', async () => {
  const out = join(tmp, 'out-refused')
  const r = await build(['--recipe', newPath, '--mirror', FIXTURE_HUB, '--out', out, '--no-prepared-cache'])
  assert.equal(r.status, 5, r.text)
  assert.ok(r.text.includes(`changesFrom 1.0.0: the recipe types no figures and ${lockPath} pins none for 1.0.0`), r.text)
  assert.match(r.text, /npm run compare-builds -- PREVIOUS_DIR NEW_DIR --pin/)
  await assert.rejects(stat(out), { code: 'ENOENT' })
})

test('compare-builds --pin pins what comparing the builds gives; the build states it, check-dataset holds it, --check agrees', async () => {
  const before = (await readLock(lockPath))!
  const pin = await compareBuilds(join(tmp, 'out-old'), join(tmp, 'out-plain'), '--pin')
  assert.equal(pin.status, 0, pin.stderr)
  const recipe = await loadRecipe(newPath)
  const figures = compareBuildTexts(
    await jsonlOf(join(tmp, 'out-old')),
    await jsonlOf(join(tmp, 'out-plain')),
    recipe.sources.map((s) => s.name),
  )
  const lock = (await readLock(lockPath))!
  assert.deepEqual(lock, { ...before, changesFrom: { version: '1.0.0', bySource: figures } })
  // another seed keeps some records and changes others: every figure the card sums is exercised
  const sum = (k: 'kept' | 'optionsChanged' | 'replaced') => Object.values(figures).reduce((a, f) => a + f[k], 0)
  assert.ok(sum('kept') > 0 && sum('replaced') > 0, JSON.stringify(figures))
  assert.equal(
    sum('kept') + sum('optionsChanged') + sum('replaced'),
    recipe.sources.reduce((a, s) => a + s.test.count + s.val.count, 0),
  )

  const out = join(tmp, 'out-new')
  const r = await build(['--recipe', newPath, '--mirror', FIXTURE_HUB, '--out', out, '--no-prepared-cache'])
  assert.equal(r.status, 0, r.text)
  const m = Manifest.parse(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')))
  assert.deepEqual(m.changesFrom, { version: '1.0.0', bySource: figures })
  // changesFrom changes the card and the manifest, never the records
  assert.deepEqual(await jsonlOf(out), await jsonlOf(join(tmp, 'out-plain')))
  const card = await readFile(join(out, 'README.md'), 'utf8')
  assert.match(card, /## Changes from 1\.0\.0/)
  assert.ok(card.includes(`${sum('kept')} records are unchanged, ${sum('optionsChanged')} keep their question`), card)
  assert.deepEqual(await checkFolder(out, recipe), [])
  const check = await compareBuilds(join(tmp, 'out-old'), out, '--check')
  assert.equal(check.status, 0, check.stderr)
  assert.ok(check.stdout.includes(`ok: ${lockPath}: changesFrom states these changes`), check.stdout)
  const json = await compareBuilds(join(tmp, 'out-old'), out, '--check', '--json')
  assert.equal(json.status, 0, json.stderr)
  assert.deepEqual(JSON.parse(json.stdout), { changes: figures, checked: `${lockPath}: changesFrom` })
})

test('--update-lock keeps the pinned figures', async () => {
  const pinned = (await readLock(lockPath))!.changesFrom
  const r = await build(['--recipe', newPath, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'out-relocked'), '--update-lock'])
  assert.equal(r.status, 0, r.text)
  const lock = (await readLock(lockPath))!
  assert.deepEqual(lock.changesFrom, pinned)
  const hash = (await buildFromSources(await loadRecipe(newPath), fetcher, { lock })).lock.recipe.hash
  assert.equal(lock.recipe.hash, hash, 'the lock now records the recipe with changesFrom')
})

test('a card whose figures were edited, or a manifest without them, fails check-dataset', async () => {
  const out = join(tmp, 'out-new')
  const recipe = await loadRecipe(newPath)
  const manifestText = await readFile(join(out, 'manifest.json'), 'utf8')
  const m = JSON.parse(manifestText)
  const first = Object.keys(m.changesFrom.bySource)[0]!
  m.changesFrom.bySource[first].kept += 1
  await writeFile(join(out, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`)
  assert.ok(
    (await checkFolder(out, recipe)).includes(`README.md: the "Changes from 1.0.0" section is not what the manifest's figures give`),
  )
  delete m.changesFrom
  await writeFile(join(out, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`)
  assert.ok(
    (await checkFolder(out, recipe)).includes(
      'README.md: the "Changes from 1.0.0" figures are pinned in the lock, and manifest.json records none',
    ),
  )
  await writeFile(join(out, 'manifest.json'), manifestText)
})

test('compare-builds --check fails on figures the builds do not give; --pin refuses a folder of another version', async () => {
  const lock = (await readLock(lockPath))!
  const edited = structuredClone(lock)
  const first = Object.keys(edited.changesFrom!.bySource)[0]!
  edited.changesFrom!.bySource[first]!.kept += 1
  await writeLock(lockPath, edited)
  try {
    const check = await compareBuilds(join(tmp, 'out-old'), join(tmp, 'out-new'), '--check')
    assert.equal(check.status, 5, check.stdout)
    assert.ok(check.stderr.includes(`error[LOCK]: ${lockPath}: changesFrom is {`), check.stderr)
    assert.match(check.stderr, /^hint: pin the figures the builds give with --pin$/m)
    const swapped = await compareBuilds(join(tmp, 'out-new'), join(tmp, 'out-old'), '--pin')
    assert.equal(swapped.status, 2, swapped.stdout)
    assert.match(swapped.stderr, /^error\[USAGE\]: .*out-new holds a build of 1\.1\.0, not of 1\.0\.0$/m)
    const both = await compareBuilds(join(tmp, 'out-old'), join(tmp, 'out-new'), '--pin', '--check')
    assert.equal(both.status, 2, both.stdout)
    assert.match(both.stderr, /^error\[USAGE\]: --check and --pin together/m)
    assert.deepEqual(await readLock(lockPath), edited, 'nothing was pinned')
  } finally {
    await writeLock(lockPath, lock)
  }
})

test('figures typed into the recipe win over the lock, which then neither states nor keeps them; a lock pinning another version is refused', async () => {
  const lock = (await readLock(lockPath))!
  const typed = structuredClone(lock.changesFrom!.bySource)
  const first = Object.keys(typed)[0]!
  typed[first]!.kept += 7
  const recipe = parseRecipe({ ...now, changesFrom: { ...(now.changesFrom as object), bySource: typed } })
  const built = await buildFromSources(recipe, fetcher, { lock })
  assert.equal(built.manifest.changesFrom, undefined)
  assert.equal(built.lock.changesFrom, undefined)
  const card = outputText(built.files.get('README.md')!)
  const kept = Object.values(typed).reduce((a, f) => a + f.kept, 0)
  assert.ok(card.includes(`${kept} records are unchanged`), card)

  const other = { ...lock, changesFrom: { ...lock.changesFrom!, version: '0.9.0' } }
  await assert.rejects(
    buildFromSources(await loadRecipe(newPath), fetcher, { lock: other, lockPath }),
    (e: Error & { code?: string }) => e.code === 'LOCK' && e.message.includes(`${lockPath} pins those of 0.9.0, not 1.0.0`),
  )
})
