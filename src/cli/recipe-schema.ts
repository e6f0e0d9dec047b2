import { writeFileAtomic } from '../write.ts'
import { recipeJsonSchema } from '../recipe.ts'
import { runMain } from './run.ts'

/** Writes recipes/recipe.schema.json from the zod schema, so editors can check recipes. */
await runMain(async () => {
  const target = process.argv[2] ?? 'recipes/recipe.schema.json'
  await writeFileAtomic(target, `${JSON.stringify(recipeJsonSchema(), null, 2)}\n`)
  process.stdout.write(`wrote ${target}\n`)
})
