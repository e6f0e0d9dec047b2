// Compares two built folders record by record and prints, per source, what the card's "Changes from" section reports.
//   npm run compare-builds -- OLD_DIR NEW_DIR [--recipe FILE] [--check]
// Sources in the recipe's order (default recipes/jev-bench.json). With --check, exits 1 unless the recipe's
// changesFrom.bySource says exactly that (CI runs it on fresh builds of both versions). A recipe without typed
// figures has the build compute them with the same function (src/check/compare.ts), and its manifest records them.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { compareBuildTexts } from '../src/check/compare.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { SPLITS, type Split } from '../src/recipe/schema.ts'

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
  Object.fromEntries(SPLITS.map((s) => [s, readFileSync(join(dir, `${s}.jsonl`), 'utf8')])) as Record<Split, string>
const changes = compareBuildTexts(
  read(positionals[0]!),
  read(positionals[1]!),
  recipe.sources.map((s) => s.name),
)
console.log(JSON.stringify(changes, null, 2))
if (values.check) {
  // typed into the recipe, or computed by the build and recorded in its manifest
  const typed = recipe.changesFrom?.bySource
  const where = typed ? `${values.recipe}: changesFrom.bySource` : `${join(positionals[1]!, 'manifest.json')}: changesFrom.bySource`
  const stated = typed ?? JSON.parse(readFileSync(join(positionals[1]!, 'manifest.json'), 'utf8')).changesFrom?.bySource
  if (JSON.stringify(stated) !== JSON.stringify(changes)) {
    console.error(`${where} is ${JSON.stringify(stated)}, the builds give the figures above`)
    process.exit(1)
  }
  console.log(`ok: ${where} states these changes`)
}
