import { JevError } from '../errors.ts'
import { lockPathFor, readLock } from '../lock.ts'
import { buildDataset } from '../pipeline.ts'
import { loadRecipe } from '../recipe.ts'
import { BOUNDS_USAGE } from '../sources/bounds.ts'
import { nameBadEntry } from '../sources/hub-cache.ts'
import { formatVerify, verifyDataset, type VerifyResult } from '../verify.ts'
import { fetcherFor, SOURCE_OPTIONS } from './build-dataset.ts'
import { type Io, isMain, parseCli, runMain, stdio } from './run.ts'

const USAGE = `usage: npm run verify-dataset -- [--out DIR] [--recipe FILE] [--lock FILE] [--mirror DIR] [--offline] [--cache-dir DIR] [--json] [--quiet] [--debug]
  Rebuilds from the lock in memory and compares with the output folder (default out/) byte for byte.
  Exit 0 when identical; otherwise prints a record-level diff and "cause: out-edited | sources-changed | recipe-changed | builder-changed".
  --recipe, --lock, --mirror, --offline, --cache-dir: where the rebuild reads its sources, as for build-dataset; --json: the result as JSON.
  HF_HUB_OFFLINE=1 (or ON, YES, TRUE) does what --offline does.`

export const VERIFY_OPTIONS = { ...SOURCE_OPTIONS, out: { type: 'string', default: 'out' }, json: { type: 'boolean', default: false } } as const
export const parseVerify = (argv: string[], io: Io) => parseCli(argv, VERIFY_OPTIONS, USAGE, 0, io, BOUNDS_USAGE)

/** The rebuild and comparison, for parsed options: warnings on `io.err`, the result returned. */
export async function runVerify(values: NonNullable<ReturnType<typeof parseVerify>>['values'], env: NodeJS.ProcessEnv, io: Io): Promise<{ outDir: string; result: VerifyResult }> {
  const recipePath = values.recipe as string
  const lockPath = (values.lock as string | undefined) ?? lockPathFor(recipePath)
  const lock = await readLock(lockPath)
  if (!lock) throw new JevError('LOCK', `no lock at ${lockPath}: build once to write it`, { file: lockPath })
  const recipe = await loadRecipe(recipePath)
  const fetcher = fetcherFor(values as never, env, io.err, lock)
  const rebuilt = await buildDataset(recipe, fetcher, { lock }).catch((e: unknown) => {
    throw nameBadEntry(e, fetcher)
  })
  for (const w of rebuilt.warnings) io.err(`warning: ${w}`)
  const outDir = (values.out as string).replace(/\/+$/, '')
  return { outDir, result: await verifyDataset(outDir, rebuilt) }
}

export async function verifyDatasetCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const parsed = parseVerify(argv, io)
  if (!parsed) return 0
  const { outDir, result } = await runVerify(parsed.values, env, io)
  if (parsed.values.json) io.out(JSON.stringify(result))
  else for (const line of formatVerify(outDir, result)) (result.identical ? io.out : io.err)(line)
  if (result.identical) return 0
  throw new JevError('VERIFY', `${outDir}/ differs from a rebuild (cause: ${result.cause})`, { file: outDir })
}

if (isMain(import.meta.url)) {
  await runMain(() => verifyDatasetCli(process.argv.slice(2), process.env, stdio))
}
