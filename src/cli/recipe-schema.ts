import { writeFileAtomic } from '../atomic.ts'
import { recipeJsonSchema } from '../recipe.ts'
import { parseCli, runMain, stdio } from './run.ts'

const USAGE = `usage: npm run recipe-schema -- [FILE] [--debug]
  Writes the recipe's JSON Schema, generated from its zod schema, so editors can check recipes.
  FILE  where to write it (default recipes/recipe.schema.json)`

/** Writes recipes/recipe.schema.json from the zod schema, so editors can check recipes. */
await runMain(async () => {
  const parsed = parseCli(process.argv.slice(2), {}, USAGE, 1)
  if (!parsed) return 0
  const { positionals } = parsed
  const target = positionals[0] ?? 'recipes/recipe.schema.json'
  await writeFileAtomic(target, `${JSON.stringify(recipeJsonSchema(), null, 2)}\n`)
  stdio.out(`wrote ${target}`)
})
