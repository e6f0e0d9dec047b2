import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { type BuiltDataset, buildFromSources } from '../src/build-io.ts'
import { matchManifest } from '../src/check/manifest-match.ts'
import { outputBytes } from '../src/emit/outputs.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE } from './helpers/cli.ts'

let built: BuiltDataset
let files: Map<string, Uint8Array>
before(async () => {
  const recipe = await loadRecipe(FIXTURE_RECIPE)
  built = await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), {
    lock: await readLock(FIXTURE_RECIPE.replace(/\.json$/, '.lock.json')),
  })
  files = new Map([...built.files].map(([k, v]) => [k, outputBytes(v)]))
})

test("a build's own files match its manifest", () => {
  const m = matchManifest(built.manifest, (p) => files.get(p))
  assert.deepEqual(m.unlisted, [])
  assert.deepEqual(
    m.outputs.map((o) => o.path),
    [
      'test.jsonl',
      'val.jsonl',
      'README.md',
      'provenance.jsonl',
      'option-counts.svg',
      'answer-positions.svg',
      'borrowed-options.svg',
      'croissant.json',
    ],
  )
  for (const o of m.outputs) assert.ok(o.sameContent && o.rowsMatch !== false, o.path)
  assert.equal(m.outputs.find((o) => o.path === 'README.md')!.rowsMatch, null, 'the card has no rows')
  assert.equal(m.datasetHashMatches(), true)
})

test('an optional output must be listed where it was made, and only there', () => {
  const manifest = { ...built.manifest, outputs: built.manifest.outputs.filter((o) => o.path !== 'croissant.json') }
  assert.deepEqual(matchManifest(manifest, (p) => files.get(p)).unlisted, ['croissant.json'])
  assert.deepEqual(matchManifest(manifest, (p) => (p === 'croissant.json' ? undefined : files.get(p))).unlisted, [])
})

test('a missing file, an edited one, a dropped line and an unlisted output are each found', () => {
  const edited = new Map(files)
  edited.delete('README.md')
  const val = Buffer.from(edited.get('val.jsonl')!).toString('utf8')
  edited.set('val.jsonl', Buffer.from(val.slice(val.indexOf('\n') + 1)))
  edited.set('provenance.jsonl', Buffer.from(` ${Buffer.from(files.get('provenance.jsonl')!).toString('utf8')}`))
  const manifest = { ...built.manifest, outputs: built.manifest.outputs.filter((o) => o.path !== 'test.jsonl') }
  const m = matchManifest(manifest, (p) => edited.get(p))
  assert.deepEqual(m.unlisted, ['test.jsonl'])
  const by = new Map(m.outputs.map((o) => [o.path, o]))
  assert.deepEqual(by.get('README.md'), { path: 'README.md', sha256: null, bytes: null, sameContent: false, rowsMatch: null })
  assert.equal(by.get('val.jsonl')!.sameContent, false)
  assert.equal(by.get('val.jsonl')!.rowsMatch, false)
  assert.equal(by.get('provenance.jsonl')!.sameContent, false)
  assert.equal(by.get('provenance.jsonl')!.rowsMatch, true, 'a changed byte, the same lines')
  assert.equal(m.datasetHashMatches(), false)
})
