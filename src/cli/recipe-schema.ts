import { recipeJsonSchema } from '../recipe/load.ts'
import { writeFileAtomic } from '../util/atomic.ts'
import { defineCommand, JSON_OPTION } from './common/command.ts'
import type { Io } from './run.ts'

export const recipeSchemaCommand = defineCommand({
  name: 'recipe-schema',
  args: { synopsis: '[FILE]', max: 1 },
  about: [
    "Writes the recipe's JSON Schema, generated from its zod schema, so editors can check recipes.",
    'FILE: where to write it (default recipes/recipe.schema.json).',
  ],
  options: { ...JSON_OPTION },
})

/** Writes the schema; `io` gets the one line saying where. */
export function recipeSchemaCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return recipeSchemaCommand.main(argv, env, io, async ({ positionals }, io) => {
    const target = positionals[0] ?? 'recipes/recipe.schema.json'
    await writeFileAtomic(target, `${JSON.stringify(recipeJsonSchema(), null, 2)}\n`)
    io.out(`wrote ${target}`)
    return { json: { wrote: target } }
  })
}

// importing the module (a test, the README's flag check) writes nothing
