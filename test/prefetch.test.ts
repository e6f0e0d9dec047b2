import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildDataset } from '../src/build-io.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { Prefetcher } from '../src/fetch/prefetch.ts'
import type { FileFetcher } from '../src/fetch/types.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import { NO_PROGRESS } from '../src/util/progress.ts'

/** A Prefetcher over `sizes` whose downloads are their index, with the order they were started in. */
function over(sizes: (number | undefined)[], budget: number) {
  const started: number[] = []
  const p = new Prefetcher({
    count: sizes.length,
    sizeOf: (i) => sizes[i],
    budget,
    start: async (i) => {
      started.push(i)
      return i
    },
  })
  return { p, started }
}

test('downloads start one ahead always, and further while the sizes started and not yet taken fit the budget', async () => {
  const { p, started } = over([1, 2, 3, 4, 1], 5)
  assert.equal(await p.take(0), 0)
  // 1 is always started; then 2 + 3 = 5 fits; + 4 would not
  assert.deepEqual(started, [0, 1, 2])
  assert.equal(await p.take(1), 1)
  // ahead of 1: source 2 (3 bytes); source 3 (4) would make 7
  assert.deepEqual(started, [0, 1, 2])
  assert.equal(await p.take(2), 2)
  // the next one goes whatever its size; then 4 + 1 = 5 fits
  assert.deepEqual(started, [0, 1, 2, 3, 4])
  assert.equal(await p.take(3), 3)
  assert.equal(await p.take(4), 4)
  assert.equal(p.take(5), undefined)
  assert.deepEqual(started, [0, 1, 2, 3, 4], 'each download started once')
})

test('the next source is fetched ahead whatever its size, and none after it while it is over the budget', () => {
  const { p, started } = over([1, 10, 1, 1], 5)
  void p.take(0)
  assert.deepEqual(started, [0, 1])
  void p.take(1)
  assert.deepEqual(started, [0, 1, 2, 3], 'once it is taken, the rest fit')
})

test('a source of unknown size (no lock) stops the prefetching at the next source', () => {
  const { p, started } = over([1, undefined, 1, 1], 100)
  void p.take(0)
  assert.deepEqual(started, [0, 1], 'the next one always; one of unknown size stops what comes after')
  void p.take(1)
  assert.deepEqual(started, [0, 1, 2, 3], 'once it is taken, the rest fit')
  const none = over([undefined, undefined, undefined], 100)
  void none.p.take(0)
  assert.deepEqual(none.started, [0, 1])
})

test("a build with the lock requests every source's files before it loads the second source; without one, one source ahead", async () => {
  const recipe = await loadRecipe('test/fixtures/recipe.json')
  const lock = (await readLock('test/fixtures/recipe.lock.json'))!
  const run = async (withLock: boolean) => {
    const events: string[] = []
    const mirror = createMirrorFetcher('test/fixtures/hub')
    const fetcher: FileFetcher = {
      kind: mirror.kind,
      fetchFile: (repo, revision, path) => {
        events.push(`fetch ${repo} ${path}`)
        return mirror.fetchFile(repo, revision, path)
      },
    }
    const progress = { ...NO_PROGRESS, stage: (text: string) => events.push(text) }
    await buildDataset(recipe, fetcher, { lock: withLock ? lock : null, progress })
    // the first fetch of each source's repo, against the stage each source's loading begins
    const loading = (i: number) =>
      events.indexOf(`loading and preparing sources (${i + 1} of ${recipe.sources.length}: ${recipe.sources[i]!.name})`)
    const firstFetch = (i: number) => {
      const s = recipe.sources[i]!
      const files = new Set(
        Object.values(s.files)
          .flat()
          .map((path) => `fetch ${s.repo} ${path}`),
      )
      return events.findIndex((e) => files.has(e))
    }
    return { loading, firstFetch }
  }
  assert.ok(recipe.sources.length >= 3)
  const locked = await run(true)
  for (let i = 0; i < recipe.sources.length; i++)
    assert.ok(
      locked.firstFetch(i) >= 0 && locked.firstFetch(i) < locked.loading(1),
      `with the lock: source ${i} requested before the second loads`,
    )
  const first = await run(false)
  for (let i = 2; i < recipe.sources.length; i++)
    assert.ok(first.firstFetch(i) > first.loading(i - 1), `without a lock: source ${i} requested only once source ${i - 1} is loading`)
})
