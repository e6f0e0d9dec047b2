// Compares two built folders record by record and prints, per source, what the card's "Changes from" section reports.
//   npm run compare-builds -- OLD_DIR NEW_DIR [--recipe FILE] [--check]
// Sources in the recipe's order (default recipes/jev-bench.json). With --check, exits 1 unless the recipe's
// changesFrom.bySource says exactly that (CI runs it on fresh builds of both versions).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { compareBuilds } from '../src/check/compare.ts'
import { recordLines } from '../src/emit/manifest.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { DataRecord, SPLITS, type Split } from '../src/recipe/schema.ts'

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { recipe: { type: 'string', default: 'recipes/jev-bench.json' }, check: { type: 'boolean', default: false } },
})
if (positionals.length !== 2) {
  console.error('usage: npm run compare-builds -- OLD_DIR NEW_DIR [--recipe FILE] [--check]')
  process.exit(2)
}
const recipe = await loadRecipe(values.recipe)
const read = (dir: string) =>
  Object.fromEntries(
    SPLITS.map((s) => [s, recordLines(readFileSync(join(dir, `${s}.jsonl`), 'utf8')).map((l) => DataRecord.parse(JSON.parse(l)))]),
  ) as Record<Split, DataRecord[]>
const changes = compareBuilds(
  read(positionals[0]!),
  read(positionals[1]!),
  recipe.sources.map((s) => s.name),
)
console.log(JSON.stringify(changes, null, 2))
if (values.check) {
  const stated = recipe.changesFrom?.bySource
  if (JSON.stringify(stated) !== JSON.stringify(changes)) {
    console.error(`${values.recipe}: changesFrom.bySource is ${JSON.stringify(stated)}, the builds give the figures above`)
    process.exit(1)
  }
  console.log(`ok: ${values.recipe} states these changes`)
}
