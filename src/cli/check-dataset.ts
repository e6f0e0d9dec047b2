import { checkDataset, readDataset } from '../check.ts'
import { checkUpstream } from '../check-upstream.ts'
import { JevError } from '../errors.ts'
import { lockPathFor, readLock } from '../lock.ts'
import { loadRecipe } from '../recipe.ts'
import { fetcherFor, SOURCE_OPTIONS } from './build-dataset.ts'
import { isMain, parseCli, runMain, stdio, type Io } from './run.ts'
import { join } from 'node:path'
import { refuseIrregular } from '../files.ts'
import { OUTPUT_FILES } from '../outputs.ts'

const USAGE = `usage: npm run check-dataset -- [DIR] [--recipe FILE] [--upstream [--lock FILE] [--mirror DIR | --offline] [--cache-dir DIR] [--quiet]] [--debug]
  Checks a built folder (default out/) against the recipe's counts, the spec's invariants and its own card, manifest and provenance.
  --upstream       also read the recipe's sources (at the lock's commits) and prove provenance.jsonl against the upstream rows:
                   every choice is the named row's option, no borrowed option is its lender's right answer or from the other side
  --lock, --mirror, --offline, --cache-dir   where the sources come from, as for build-dataset`

export const CHECK_OPTIONS = { ...SOURCE_OPTIONS, upstream: { type: 'boolean', default: false } } as const
export const parseCheck = (argv: string[], io: Io) => parseCli(argv, CHECK_OPTIONS, USAGE, 1, io)

/** The check itself, for parsed options: the problems found (none: the folder meets the spec). */
export async function runCheck(parsed: NonNullable<ReturnType<typeof parseCheck>>, env: NodeJS.ProcessEnv, io: Io): Promise<{ dir: string; problems: string[] }> {
  const { values, positionals } = parsed
  // a FIFO in a file's place would block the check's read forever
  for (const name of OUTPUT_FILES) await refuseIrregular(join(positionals[0] ?? 'out', name))
  const dir = positionals[0] ?? 'out'
  const recipePath = values.recipe as string
  const recipe = await loadRecipe(recipePath)
  const problems = await checkDataset(dir, recipe)
  if (problems.length === 0 && values.upstream) {
    const { records, provenance } = await readDataset(dir)
    if (!provenance) throw new JevError('CHECK', `${dir}: no readable provenance.jsonl to check against the sources`, { file: dir })
    const lock = await readLock((values.lock as string | undefined) ?? lockPathFor(recipePath))
    problems.push(...(await checkUpstream(records, provenance, recipe, fetcherFor(values as never, env, io.err), lock)))
  }
  return { dir, problems }
}

export async function checkDatasetCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const parsed = parseCheck(argv, io)
  if (!parsed) return 0
  const { dir, problems } = await runCheck(parsed, env, io)
  const values = parsed.values
  if (problems.length === 0) {
    io.out(`ok: ${dir} meets the spec${values.upstream ? ', and provenance.jsonl matches the upstream rows' : ''}`)
    return 0
  }
  for (const p of problems.slice(0, 50)) io.err(p)
  if (problems.length > 50) io.err(`… and ${problems.length - 50} more`)
  throw new JevError('CHECK', `${dir}: ${problems.length} problem(s)`, { file: dir })
}

if (isMain(import.meta.url)) {
  await runMain(() => checkDatasetCli(process.argv.slice(2), process.env, stdio))
}
