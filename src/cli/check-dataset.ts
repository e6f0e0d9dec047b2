import { checkDataset } from '../check.ts'
import { JevError } from '../errors.ts'
import { loadRecipe } from '../recipe.ts'
import { isMain, parseCli, runMain, stdio, type Io } from './run.ts'
import { join } from 'node:path'
import { refuseIrregular } from '../files.ts'
import { OUTPUT_FILES } from '../write.ts'

const USAGE = `usage: npm run check-dataset -- [DIR] [--recipe FILE]
  Checks a built folder (default out/) against the recipe's counts and the spec's invariants.`

export async function checkDatasetCli(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCli(argv, { recipe: { type: 'string', default: 'recipes/jev-bench.json' } }, USAGE, 1)
  if (values.help) {
    io.out(USAGE)
    return 0
  }
  // a FIFO in a file's place would block the check's read forever
  for (const name of OUTPUT_FILES) await refuseIrregular(join(positionals[0] ?? 'out', name))
  const dir = positionals[0] ?? 'out'
  const problems = await checkDataset(dir, await loadRecipe(values.recipe as string))
  if (problems.length === 0) {
    io.out(`ok: ${dir} meets the spec`)
    return 0
  }
  for (const p of problems.slice(0, 50)) io.err(p)
  if (problems.length > 50) io.err(`… and ${problems.length - 50} more`)
  throw new JevError('CHECK', `${dir}: ${problems.length} problem(s)`, { file: dir })
}

if (isMain(import.meta.url)) {
  await runMain(() => checkDatasetCli(process.argv.slice(2), stdio))
}
