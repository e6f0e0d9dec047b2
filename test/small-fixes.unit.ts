/**
 * Small things a re-test found: an exclusion list's unmatched entries are summarised, not
 * printed whole; publish-dataset's help names every file it uploads.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildFromSources } from '../src/build-io.ts'
import { publishDatasetCli } from '../src/cli/publish-dataset.ts'
import { runCli } from '../src/cli/run.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { PUBLISHED_FILES } from '../src/publish/files.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE, ROOT } from './helpers/cli.ts'

test('10,000 unmatched exclusion texts give a few lines naming some and counting all, not megabytes', async () => {
  const recipe = await loadRecipe(FIXTURE_RECIPE)
  const lock = (await readLock(`${ROOT}/test/fixtures/recipe.lock.json`))!
  const texts = Array.from({ length: 10_000 }, (_, i) => `Nobody asked question ${i} ${'padding '.repeat(120)}?`)
  const ids = ['arc_easy-NO_SUCH_ID', 'arc_easy-NOR_THIS']
  const built = await buildFromSources({ ...recipe, exclude: { ids, texts } }, createMirrorFetcher(FIXTURE_HUB), { lock })
  const w = built.warnings.filter((x) => x.startsWith('exclusion list'))
  assert.ok(w.length <= 8, `${w.length} lines`)
  assert.ok(w.join('\n').length < 4000, `${w.join('\n').length} characters`)
  assert.ok(w.includes('exclusion list: no upstream question has the id arc_easy-NO_SUCH_ID'), w.join('\n'))
  assert.ok(
    w.some((x) => /^exclusion list: 10000 texts match no upstream question; the first 5:/.test(x)),
    w.join('\n'),
  )
  assert.ok(w.some((x) => x.includes('"Nobody asked question 0 padding')))
})

test('publish-dataset --help names every file it uploads', async () => {
  const c = collectIo()
  assert.equal(await runCli(() => publishDatasetCli(['--help'], {}, c.io), c.io, false), 0)
  const help = c.out.join('\n')
  assert.match(help, new RegExp(`the ${PUBLISHED_FILES.length} files`))
  for (const f of PUBLISHED_FILES) assert.ok(help.includes(f), f)
})
