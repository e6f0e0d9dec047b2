import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Screen, ScreenedFile } from '../src/borrow/screen.ts'
import { buildRecords } from '../src/build.ts'
import { isJevError } from '../src/errors.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadSources } from '../src/load-sources.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { Distractors, type Recipe } from '../src/recipe/schema.ts'
import { normalize } from '../src/util/canonical.ts'

const base = await loadRecipe('test/fixtures/recipe.json')
const questions = new Map((await loadSources(base, createMirrorFetcher('test/fixtures/hub'))).map((l) => [l.spec.name, l.questions]))

/** The fixture recipe under the plausible rule, with the given thresholds and fallbacks. */
// tables the fixture's few questions can meet under the plausible rule, but not when only one-word items may grow
const quotas = {
  test: { '2': 16, '3': 10, '4': 22, '5': 20, '6': 4, '7': 1, '8': 1 },
  val: { '2': 9, '3': 4, '4': 12, '5': 5, '6': 1, '7': 1, '8': 0 },
}
const plausible = (over: Record<string, unknown>): Recipe => ({
  ...base,
  quotas,
  distractors: Distractors.parse({ borrow: { rule: 'similar', plausible: { lenders: 200, ...over } } }),
})

test('a split whose quota table the plausible thresholds cannot meet uses the first fallback that can, and says which', () => {
  // no English item whose longest option has more than one word may grow: too few can
  const strict = plausible({ maxWords: 1 })
  assert.throws(
    () => buildRecords(strict, questions),
    (e: unknown) => isJevError(e) && e.code === 'QUOTA',
  )
  const eased = plausible({ maxWords: 1, fallback: [{ maxWords: 2 }, { maxWords: 50 }] })
  const built = buildRecords(eased, questions)
  assert.ok(built.levels && built.levels.test >= 1, JSON.stringify(built.levels))
  // the level is part of the recipe's meaning: the same recipe gives the same records
  assert.deepEqual(buildRecords(eased, questions).records, built.records)
  // with thresholds that can meet the table, no fallback is used
  assert.deepEqual(buildRecords(plausible({ maxWords: 50, fallback: [{ maxWords: 1 }] }), questions).levels, { test: 0, val: 0 })
})

test('a screened recipe lends only what the screen accepts for each item, and needs the screen read', () => {
  const open = plausible({ maxWords: 50 })
  const built = buildRecords(open, questions)
  // accept, for each grown item, what the open build lent it: a screen the quota table can still meet
  const items: Record<string, { shown: string[]; marks: string }> = {}
  for (const split of ['test', 'val'] as const)
    for (const r of built.records[split]) {
      const lent = built.origins.get(r.id)!.choices.flatMap((o, i) => (o.from === 'borrowed' ? [normalize(r.choices[i]!)] : []))
      if (lent.length) items[r.id] = { shown: lent, marks: 'a'.repeat(lent.length) }
    }
  assert.ok(Object.keys(items).length > 0)
  const screenedRecipe = plausible({ maxWords: 50, screened: { path: 'screened.json', sha256: '0'.repeat(64) } })
  assert.throws(
    () => buildRecords(screenedRecipe, questions),
    (e: unknown) => isJevError(e) && e.code === 'RECIPE' && /screened/.test(e.message),
  )
  const screen = new Screen(ScreenedFile.parse({ protocol: 'test', items }))
  const screened = buildRecords(screenedRecipe, questions, { screen })
  let lent = 0
  for (const split of ['test', 'val'] as const)
    for (const r of screened.records[split])
      screened.origins.get(r.id)!.choices.forEach((o, i) => {
        if (o.from !== 'borrowed') return
        lent++
        assert.ok(screen.accepts(r.id, normalize(r.choices[i]!)), `${r.id}: ${r.choices[i]}`)
      })
  assert.ok(lent > 0)
})
