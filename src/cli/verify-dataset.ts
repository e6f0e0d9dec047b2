import { compareWithRebuild, formatVerify, type VerifyResult } from '../check/verify.ts'
import { blameCache } from '../check/verify-cache.ts'
import { JevError } from '../errors.ts'
import { dirPreparedCache } from '../prepared-cache/cache.ts'
import { defineCommand, JSON_OPTION } from './common/command.ts'
import { preparedCacheDir, rebuildFromLock, requireFolder, SOURCE_NOTES, SOURCE_OPTIONS, SOURCE_PARAMS } from './common/source-options.ts'
import type { Io } from './run.ts'

export const verifyCommand = defineCommand({
  name: 'verify-dataset',
  about: [
    'Rebuilds from the lock in memory and compares with the output folder byte for byte.',
    'Exit 0 when identical; otherwise a record-level diff and "cause: out-edited | sources-changed | recipe-changed | builder-changed | prepared-cache".',
  ],
  options: { out: { type: 'string', arg: 'DIR', default: 'out', help: 'the folder to verify' }, ...SOURCE_OPTIONS, ...JSON_OPTION },
  notes: SOURCE_NOTES,
  params: SOURCE_PARAMS,
})

export const parseVerify = (argv: string[], io: Io) => verifyCommand.parse(argv, io)

/** The rebuild and comparison, for parsed options: warnings on `io.err`, the result returned. */
export async function runVerify(
  values: NonNullable<ReturnType<typeof parseVerify>>['values'],
  env: NodeJS.ProcessEnv,
  io: Io,
): Promise<{ outDir: string; result: VerifyResult }> {
  const outDir = values.out.replace(/(.)\/+$/, '$1')
  // a folder that is not there is a mistyped path (IO, as check-dataset and diff-dataset say), not a build with every file deleted
  await requireFolder(outDir, '--out')
  const rebuilt = await rebuildFromLock(values, env, io)
  io.progress?.stage(`comparing with ${outDir}/`)
  const result = await compareWithRebuild(outDir, rebuilt)
  const cacheDir = preparedCacheDir(false, env)
  if (result.identical || result.cause !== 'builder-changed' || cacheDir === undefined) return { outDir, result }
  // same inputs, other output: the cache of prepared sources is the one input the manifest does not record
  const printed = new Set(rebuilt.warnings.map((w) => `warning: ${w}`))
  const quiet: Io = { ...io, err: (line) => void (printed.has(line) || io.err(line)) }
  const cached = await rebuildFromLock(values, env, quiet, dirPreparedCache(cacheDir))
  const outIsCached = (await compareWithRebuild(outDir, cached)).identical
  return { outDir, result: blameCache(result, rebuilt, cached, outIsCached, cacheDir, outDir) }
}

/** verify-dataset as a library function: the folder compared with a rebuild from the lock. */
export const verifyDataset = verifyCommand.library(({ values, env, io }) => runVerify(values, env, io))

export async function verifyDatasetCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return verifyCommand.main(argv, env, io, async ({ params }, io) => {
    const { outDir, result } = await verifyDataset(params, io)
    io.progress?.end()
    for (const line of formatVerify(outDir, result)) (result.identical ? io.out : io.err)(line)
    const fail = result.identical
      ? undefined
      : new JevError('VERIFY', `${outDir}/ differs from a rebuild (cause: ${result.cause})`, { file: outDir })
    return { json: { out: `${outDir}/`, ...result }, ...(fail ? { fail } : {}) }
  })
}
