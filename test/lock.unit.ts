import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildFromSources } from '../src/build-io.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import { rejectsWith } from './helpers/errors.ts'

const HUB = 'test/fixtures/hub'
const recipe = await loadRecipe('test/fixtures/recipe.json')
const lock = (await readLock('test/fixtures/recipe.lock.json'))!

test("a recipe that pins another revision than the lock's is refused, naming both", async () => {
  const moved = structuredClone(recipe)
  const arc = moved.sources.find((s) => s.name === 'arc_easy')!
  arc.revision = 'a'.repeat(40)
  const e = await rejectsWith(buildFromSources(moved, createMirrorFetcher(HUB), { lock }), 'LOCK', { oneLine: true })
  assert.match(
    e.message,
    new RegExp(
      `source arc_easy: the recipe asks for allenai/ai2_arc@${'a'.repeat(40)} but the lock has allenai/ai2_arc@[0-9a-f]{40}; run with --update-lock`,
    ),
  )
})

test('a lock that lists a file the recipe does not read is refused', async () => {
  const extra = structuredClone(lock)
  const boolq = extra.sources.find((s) => s.name === 'boolq')!
  boolq.files.push({ ...boolq.files[0]!, path: 'data/train-00000-of-00001.parquet', split: 'train' })
  const e = await rejectsWith(buildFromSources(recipe, createMirrorFetcher(HUB), { lock: extra }), 'LOCK', { oneLine: true })
  assert.match(e.message, /boolq: the lock lists 2 files, the recipe 1; run with --update-lock/)
})

test('a source missing from the lock is refused', async () => {
  const fewer = structuredClone(lock)
  fewer.sources = fewer.sources.filter((s) => s.name !== 'mmlu')
  const e = await rejectsWith(buildFromSources(recipe, createMirrorFetcher(HUB), { lock: fewer }), 'LOCK')
  assert.match(e.message, /source mmlu is not in the lock/)
})
