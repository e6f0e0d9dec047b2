import { writeFileAtomic } from '../atomic.ts'
import { recipeJsonSchema } from '../recipe.ts'
import { defineCommand } from './common/command.ts'
import { runMain, stdio } from './run.ts'

export const recipeSchemaCommand = defineCommand({
  name: 'recipe-schema',
  args: { synopsis: '[FILE]', max: 1 },
  about: [
    "Writes the recipe's JSON Schema, generated from its zod schema, so editors can check recipes.",
    'FILE: where to write it (default recipes/recipe.schema.json).',
  ],
  options: {},
})

await runMain(() =>
  recipeSchemaCommand.main(process.argv.slice(2), process.env, stdio, async ({ positionals }, io) => {
    const target = positionals[0] ?? 'recipes/recipe.schema.json'
    await writeFileAtomic(target, `${JSON.stringify(recipeJsonSchema(), null, 2)}\n`)
    io.out(`wrote ${target}`)
    return { json: { wrote: target } }
  }),
)
