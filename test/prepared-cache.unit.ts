import assert from 'node:assert/strict'
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { type BuiltDataset, buildFromSources } from '../src/build-io.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import {
  cardKey,
  decodeEntry,
  dirPreparedCache,
  encodeEntry,
  type PreparedCache,
  type PreparedEntry,
  preparedKey,
} from '../src/prepared-cache/cache.ts'
import { packPrepared } from '../src/prepared-cache/store.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import type { Recipe } from '../src/recipe/schema.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE } from './helpers/cli.ts'
import { narrowInt64 } from './helpers/parquet.ts'

let dir: string
let recipe: Recipe
let plain: BuiltDataset

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jev-prepared-'))
  recipe = await loadRecipe(FIXTURE_RECIPE)
  plain = await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB))
})
after(() => rm(dir, { recursive: true, force: true }))

/** The real cache, with the sources each build found prepared in it (`hits`), found lending for (`lent`), and the cards it found (`carded`). */
function counted(cacheDir: string): PreparedCache & { hits: string[]; lent: string[]; carded: string[] } {
  const inner = dirPreparedCache(cacheDir)
  const hits: string[] = []
  const lent: string[] = []
  const carded: string[] = []
  return {
    hits,
    lent,
    carded,
    async get(kind, key, source) {
      const got = await inner.get(kind, key, source)
      if (got) ({ prepared: hits, lending: lent, card: carded, contamination: [] as string[] })[kind].push(source)
      return got
    },
    put: inner.put,
  }
}

function assertSameBuild(a: BuiltDataset, b: BuiltDataset): void {
  assert.deepEqual([...a.files.keys()], [...b.files.keys()])
  for (const [name, content] of a.files) assert.deepEqual(b.files.get(name), content, name)
  assert.deepEqual(b.lock, a.lock)
  assert.deepEqual(b.warnings, a.warnings)
}

const entries = async (d: string, kind = 'prepared') => (await readdir(d)).filter((n) => n.includes(`.${kind}.`)).sort()

test('cold, warm and after a corrupt entry, a build with the cache gives the bytes and the lock of one without', async () => {
  const cacheDir = join(dir, 'a')
  const cold = counted(cacheDir)
  assertSameBuild(plain, await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { preparedCache: cold }))
  assert.deepEqual(cold.hits, [])
  assert.deepEqual(cold.carded, [])
  assert.equal((await entries(cacheDir, 'card')).length, 1)
  const names = await entries(cacheDir)
  assert.equal(names.length, recipe.sources.length, 'an entry per source')
  const lending = await entries(cacheDir, 'lending')
  assert.ok(
    lending.length > 0 && lending.length < recipe.sources.length,
    'lending worked out for the sources that lend (not the fixed-choice ones)',
  )

  const warm = counted(cacheDir)
  assertSameBuild(plain, await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { preparedCache: warm }))
  assert.deepEqual(
    warm.hits,
    recipe.sources.map((s) => s.name),
  )
  assert.deepEqual(warm.carded, [recipe.name], 'the same outputs: the card and audit read back')

  // one byte of one entry's payload flipped, another cut short: both are misses, prepared again and rewritten
  const [first, second] = names.map((n) => join(cacheDir, n))
  const bytes = await readFile(first!)
  bytes[bytes.length - 10]! ^= 1
  await writeFile(first!, bytes)
  await writeFile(second!, (await readFile(second!)).subarray(0, 200))
  const healed = counted(cacheDir)
  assertSameBuild(plain, await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { preparedCache: healed }))
  assert.equal(healed.hits.length, recipe.sources.length - 2)
  assert.deepEqual(await entries(cacheDir), names)
  const again = counted(cacheDir)
  await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { preparedCache: again })
  assert.equal(again.hits.length, recipe.sources.length, 'the rewritten entries are whole')
  assert.equal(again.lent.length, lending.length)
})

test('prepared sources read back, with the lending and the card worked out again over them, give the same bytes', async () => {
  const cacheDir = join(dir, 'c')
  await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { preparedCache: dirPreparedCache(cacheDir) })
  // the lending and the card go: a warm build ranks lenders and audits over the packed candidates, texts decoded on demand
  for (const kind of ['lending', 'card']) for (const name of await entries(cacheDir, kind)) await rm(join(cacheDir, name))
  const warm = counted(cacheDir)
  assertSameBuild(plain, await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { preparedCache: warm }))
  assert.equal(warm.hits.length, recipe.sources.length)
  assert.deepEqual([warm.lent, warm.carded], [[], []])
})

test('a source file with other bytes misses the cache, though its rows are the same', async () => {
  const cacheDir = join(dir, 'b')
  const hub = join(dir, 'hub')
  await cp(FIXTURE_HUB, hub, { recursive: true })
  await buildFromSources(recipe, createMirrorFetcher(hub), { preparedCache: dirPreparedCache(cacheDir) })
  const jc = recipe.sources.find((s) => s.name === 'jcommonsenseqa')!
  for (const path of Object.values(jc.files).flat()) await narrowInt64(join(hub, 'datasets', jc.repo, path))
  const cache = counted(cacheDir)
  const built = await buildFromSources(recipe, createMirrorFetcher(hub), { preparedCache: cache })
  assert.deepEqual(
    cache.hits,
    recipe.sources.map((s) => s.name).filter((n) => n !== 'jcommonsenseqa'),
  )
  assert.deepEqual(built.files, plain.files)
  const file = (b: BuiltDataset) => b.lock.sources.find((s) => s.name === 'jcommonsenseqa')!.files
  assert.notDeepEqual(
    file(built).map((f) => f.sha256),
    file(plain).map((f) => f.sha256),
  )
  assert.deepEqual(
    file(built).map((f) => f.rowsHash),
    file(plain).map((f) => f.rowsHash),
  )
})

test('the key changes with every input of preparing: file bytes, the builder, the source entry, the seed, the exclusions', () => {
  const spec = recipe.sources[0]!
  const files = ['a'.repeat(64), 'b'.repeat(64)]
  const base = preparedKey('x'.repeat(64), recipe, spec, files)
  const others = [
    preparedKey('y'.repeat(64), recipe, spec, files),
    preparedKey('x'.repeat(64), recipe, spec, ['a'.repeat(64), 'c'.repeat(64)]),
    preparedKey('x'.repeat(64), recipe, { ...spec, revision: 'other' }, files),
    preparedKey('x'.repeat(64), { ...recipe, seed: recipe.seed + 1 }, spec, files),
    preparedKey('x'.repeat(64), { ...recipe, exclude: { ...recipe.exclude, ids: [...recipe.exclude.ids, 'q'] } }, spec, files),
    preparedKey('x'.repeat(64), recipe, recipe.sources[1]!, files),
  ]
  assert.equal(new Set([base, ...others]).size, others.length + 1)
  assert.equal(preparedKey('x'.repeat(64), structuredClone(recipe), structuredClone(spec), [...files]), base)
  const drops = new Map([['a', new Map([['duplicate_row' as const, 1]])]])
  const v = { name: 'jev-bench-builder', version: '0.4.0' }
  const card = cardKey('x'.repeat(64), v, recipe, ['a', 'b', 'c'], drops)
  const cards = [
    cardKey('y'.repeat(64), v, recipe, ['a', 'b', 'c'], drops),
    // the version the card prints: a bump in package.json alone must miss the old card
    cardKey('x'.repeat(64), { ...v, version: '0.4.1' }, recipe, ['a', 'b', 'c'], drops),
    cardKey('x'.repeat(64), { ...v, name: 'other' }, recipe, ['a', 'b', 'c'], drops),
    cardKey('x'.repeat(64), v, { ...recipe, seed: recipe.seed + 1 }, ['a', 'b', 'c'], drops),
    cardKey('x'.repeat(64), v, recipe, ['a', 'b', 'd'], drops),
    cardKey('x'.repeat(64), v, recipe, ['ab', '', 'c'], drops),
    cardKey('x'.repeat(64), v, recipe, ['a', 'b', 'c'], new Map([['a', new Map([['duplicate_row' as const, 2]])]])),
  ]
  assert.equal(new Set([card, ...cards]).size, cards.length + 1, 'a card entry is keyed by every input the card has')
})

test('an entry is read back only whole, unaltered and for its own key', () => {
  const entry: PreparedEntry = {
    files: [{ rows: 2, rowsHash: 'f'.repeat(64) }],
    prepared: packPrepared({
      sides: { test: [], val: [] },
      lenders: { test: [], val: [] },
      drops: new Map([['empty_text', 1]]),
      excludedHits: new Set(['x']),
    })!,
  }
  const bytes = encodeEntry('k1', entry)
  const back = decodeEntry(bytes, 'k1') as PreparedEntry
  assert.deepEqual(back, entry)
  assert.ok(back.prepared.drops instanceof Map && back.prepared.texts instanceof Uint8Array)
  assert.equal(decodeEntry(bytes, 'k2'), null, 'another key')
  assert.equal(decodeEntry(bytes.subarray(0, bytes.length - 1), 'k1'), null, 'cut short')
  assert.equal(decodeEntry(bytes.subarray(0, 20), 'k1'), null, 'only a header')
  const flipped = Buffer.from(bytes)
  flipped[flipped.length - 3]! ^= 0x40
  assert.equal(decodeEntry(flipped, 'k1'), null, 'a byte changed')
  assert.equal(decodeEntry(Buffer.from('not an entry at all, just text'), 'k1'), null)
  // an entry of the layout before the packed candidates (v1), whole and for this key, is a miss all the same
  const header = 'jev-bench prepared source v2\n'
  assert.equal(bytes.toString('latin1', 0, header.length), header)
  const stale = Buffer.concat([Buffer.from(header.replace('v2', 'v1')), bytes.subarray(header.length)])
  assert.equal(decodeEntry(stale, 'k1'), null, 'the layout before')
})

test('a folder that cannot be written leaves the build uncached and whole', async () => {
  const blocked = join(dir, 'file')
  await writeFile(blocked, 'a file where the cache folder would be')
  const built = await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { preparedCache: dirPreparedCache(join(blocked, 'sub')) })
  assertSameBuild(plain, built)
})
