import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { type BuiltDataset, buildToDir } from '../build-io.ts'
import { outputBytes } from '../emit/outputs.ts'
import { isJevError, JevError } from '../errors.ts'
import { loadRecipe } from '../recipe/load.ts'
import { lockPathFor, readLock, writeLock } from '../recipe/lock.ts'
import { sha256Hex } from '../util/hash.ts'
import { DEFAULT_RECIPE } from '../version.ts'
import { defineCommand, JSON_OPTION } from './common/command.ts'
import {
  fetcherFor,
  namedBadEntry,
  preparedCacheFor,
  recipePathOf,
  SOURCE_NOTES,
  SOURCE_OPTIONS,
  SOURCE_PARAMS,
  sourceBuildOptions,
} from './common/source-options.ts'
import type { Io } from './run.ts'

export const buildCommand = defineCommand({
  name: 'build-dataset',
  about: ["Builds the output folder from the recipe's sources, checked against the lock (written when there is none)."],
  options: {
    ...SOURCE_OPTIONS,
    out: {
      type: 'string',
      arg: 'DIR',
      default: 'out',
      help: 'output folder; replaced whole, so only a new or empty one, or one a build wrote',
    },
    'update-lock': { type: 'boolean', default: false, help: 're-resolve revisions and rewrite the lock instead of checking against it' },
    'no-prepared-cache': {
      type: 'boolean',
      default: false,
      help: 'neither read nor write the cache of prepared sources (JEV_PREPARED_CACHE=0 does the same)',
    },
    ...JSON_OPTION,
  },
  notes: SOURCE_NOTES,
  params: SOURCE_PARAMS,
})

export const parseBuild = (argv: string[], io: Io) => buildCommand.parse(argv, io)
type BuildValues = NonNullable<ReturnType<typeof parseBuild>>['values']

/** The --json summary: the text summary's figures under the same names. */
export interface BuildSummary {
  built: string
  counts: Record<string, { test: number; val: number }>
  dropped: Record<string, Record<string, number>>
  outputs: { path: string; sha256: string; bytes: number }[]
  datasetHash: string
  warnings: string[]
  wroteLock: string | null
  seconds: number
}

export function summary(built: BuiltDataset, outDir: string): string[] {
  const lines = [`built ${outDir}/`, '', 'source            test    val']
  for (const [source, c] of Object.entries(built.stats.bySource))
    lines.push(`${source.padEnd(16)} ${String(c.test).padStart(5)} ${String(c.val).padStart(6)}`)
  lines.push(
    `${'total'.padEnd(16)} ${String(built.stats.total.test).padStart(5)} ${String(built.stats.total.val).padStart(6)}`,
    '',
    'dropped:',
  )
  for (const [source, drops] of built.drops) for (const [reason, n] of sortedDrops(drops)) lines.push(`  ${source}: ${reason} ${n}`)
  lines.push('')
  // the figures' names are longer than the data files': one column for all
  const files = writtenFiles(built)
  const width = Math.max(16, ...files.map((o) => o.path.length))
  for (const o of files) lines.push(`${o.path.padEnd(width)} sha256 ${o.sha256}  ${o.bytes} bytes`)
  lines.push(`dataset hash ${built.manifest.datasetHash}`)
  return lines
}

/** Every file the build wrote: the manifest's outputs, then manifest.json itself, which cannot list its own hash. */
export function writtenFiles(built: BuiltDataset): { path: string; sha256: string; bytes: number }[] {
  const listed = built.manifest.outputs.map((o) => ({ path: o.path, sha256: o.sha256, bytes: o.bytes }))
  const manifest = built.files.get('manifest.json')
  if (manifest === undefined) return listed
  const bytes = outputBytes(manifest)
  return [...listed, { path: 'manifest.json', sha256: sha256Hex(bytes), bytes: bytes.byteLength }]
}

const sortedDrops = (drops: Map<string, number> | Record<string, number>) =>
  [...(drops instanceof Map ? drops : Object.entries(drops))].sort(([a], [b]) => (a < b ? -1 : 1))

export function summaryJson(run: BuildRun, seconds: number): BuildSummary {
  const { built } = run
  return {
    built: `${run.out}/`,
    counts: { ...built.stats.bySource, total: built.stats.total },
    dropped: Object.fromEntries([...built.drops].map(([source, d]) => [source, Object.fromEntries(sortedDrops(d))])),
    outputs: writtenFiles(built),
    datasetHash: built.manifest.datasetHash,
    warnings: run.warnings,
    wroteLock: run.wroteLock ? run.lockPath : null,
    seconds,
  }
}

export interface BuildRun {
  built: BuiltDataset
  out: string
  lockPath: string
  /** true when there was no lock to check against (or --update-lock) and this build wrote it */
  wroteLock: boolean
  /** every warning printed, as printed (without "warning: ") */
  warnings: string[]
}

/** A SCREEN error's hint, naming the recipe to screen; the published one is screened as a variant of its own. */
function screeningHint(e: unknown, recipePath: string): unknown {
  if (!isJevError(e) || e.code !== 'SCREEN') return e
  e.context.hint =
    resolve(recipePath) === resolve(DEFAULT_RECIPE)
      ? 'the published marks cover what its own seed selects: make a variant (a copy with its own name, version and marks file; README, "Your own variant") and screen it with jev screen --recipe COPY'
      : String(e.context.hint).replace('--recipe FILE', `--recipe ${recipePath}`)
  return e
}

/** The build itself, for parsed options: warnings on `io.err`, nothing on `io.out`. */
export async function runBuild(values: BuildValues, env: NodeJS.ProcessEnv, io: Io): Promise<BuildRun> {
  const lockPath = values.lock ?? lockPathFor(recipePathOf(values))
  const recipe = await loadRecipe(recipePathOf(values))
  if (values['update-lock'] && values.offline && !values.mirror)
    throw new JevError(
      'USAGE',
      '--update-lock checks every cached file with the Hub before it rewrites the lock, which --offline forbids; drop one of them',
    )
  const lock = values['update-lock'] ? null : await readLock(lockPath)
  // the lock --update-lock rewrites keeps its pinned "Changes from" figures; a damaged one has none to keep
  const replaced = values['update-lock'] ? await readLock(lockPath).catch(() => null) : null
  // figures pinned for another recipe's name are not this one's to keep
  const kept = replaced?.recipe.name === recipe.name ? replaced : null
  const fetcher = await fetcherFor(values, env, io.err, lock, io.progress)
  const preparedCache = preparedCacheFor(values['no-prepared-cache'], env)
  const options = sourceBuildOptions(values, lock, io, preparedCache, kept)
  const built = await buildToDir(recipe, fetcher, values.out, options).catch(async (e: unknown) => {
    throw screeningHint(await namedBadEntry(e, fetcher), recipePathOf(values))
  })
  const warnings = [...built.warnings]
  if (lock && lock.recipe.hash !== built.lock.recipe.hash)
    warnings.push(`the recipe changed since ${lockPath} was written; --update-lock records it`)
  for (const w of warnings) io.err(`warning: ${w}`)
  // the lock before any output: a reader that stops early (| head) must not cost it
  if (!lock) await writeLock(lockPath, built.lock)
  return { built, out: values.out, lockPath, wroteLock: !lock, warnings }
}

/** build-dataset as a library function: one params object (the flags in camelCase). */
export const buildDataset = buildCommand.library(({ values, env, io }) => runBuild(values, env, io))

export async function buildDatasetCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return buildCommand.main(argv, env, io, async ({ params }, io) => {
    const started = performance.now()
    const run = await buildDataset(params, io)
    io.progress?.end() // the summary on a clean screen
    for (const line of summary(run.built, run.out)) io.out(line)
    if (run.wroteLock) io.out(`wrote ${run.lockPath}`)
    return { json: summaryJson(run, Math.round(performance.now() - started) / 1000) }
  })
}
