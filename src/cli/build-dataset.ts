import { homedir } from 'node:os'
import { JevError } from '../errors.ts'
import { type Lock, lockPathFor, readLock, writeLock } from '../lock.ts'
import { loadRecipe } from '../recipe.ts'
import { buildToDir, type BuiltDataset } from '../pipeline.ts'
import { BOUND_OPTIONS, BOUNDS_USAGE, boundsFrom } from '../sources/bounds.ts'
import { nameBadEntry } from '../sources/hub-cache.ts'
import { createHubFetcher, hubOptionsFromEnv, resolveCacheDir } from '../sources/hub.ts'
import { createMirrorFetcher } from '../sources/mirror.ts'
import type { FileFetcher } from '../sources/types.ts'
import { isMain, parseCli, runMain, stdio, type Io } from './run.ts'

const USAGE = `usage: npm run build-dataset -- [--recipe FILE] [--lock FILE] [--update-lock] [--mirror DIR] [--out DIR] [--offline] [--cache-dir DIR] [--quiet] [--debug]
  --recipe FILE    recipe to build (default recipes/jev-bench.json)
  --lock FILE      lock file (default: next to the recipe, <recipe>.lock.json)
  --update-lock    re-resolve revisions and rewrite the lock instead of checking against it
  --mirror DIR     read a local folder in Hub layout (DIR/datasets/<owner>/<name>/<path>) instead of the Hub
  --out DIR        output folder (default out); replaced whole, so only a new or empty one, or one a build wrote
  --offline        make no network request; use only the Hugging Face cache (HF_HUB_OFFLINE=1 does the same)
  --cache-dir DIR  Hugging Face cache (default HF_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub or ~/.cache/huggingface/hub)
Environment: HF_ENDPOINT (a Hub mirror endpoint), HF_TOKEN (sent to the Hub, never printed),
  HF_HUB_OFFLINE (1, ON, YES or TRUE in any case: as --offline, as Python's huggingface_hub reads it).`

/** HF_HUB_OFFLINE as Python's huggingface_hub reads it: 1, ON, YES or TRUE, in any case. */
export function offlineFromEnv(env: NodeJS.ProcessEnv): boolean {
  return ['1', 'ON', 'YES', 'TRUE'].includes((env.HF_HUB_OFFLINE ?? '').toUpperCase())
}

/** `log` gets downloads, retries and waits for another build's cache lock, so a slow build says why (not with --quiet). */
export function fetcherFor(values: { mirror?: string; offline?: boolean; 'cache-dir'?: string; quiet?: boolean }, env: NodeJS.ProcessEnv, log?: (line: string) => void, lock?: Lock | null): FileFetcher {
  // Cached files are trusted only when `lock` vouches for their bytes; with `null` (a first build, --update-lock)
  // each is checked with the Hub, so a lock is never written from bytes it no longer serves.
  const bounds = boundsFrom(values, env) // checked with --mirror too: a bad value is an error wherever it is given
  if (values.mirror) return createMirrorFetcher(values.mirror)
  return createHubFetcher({
    ...hubOptionsFromEnv(env),
    ...bounds,
    ...(lock === undefined ? {} : { vouched: (repo: string, commit: string, path: string) =>
      lock?.sources.flatMap((s) => (s.repo === repo && s.commit === commit ? s.files : [])).find((f) => f.path === path)?.sha256 }),
    ...(log && !values.quiet ? { log } : {}),
    cacheDir: values['cache-dir'] ?? resolveCacheDir(env, homedir()),
    offline: (values.offline ?? false) || offlineFromEnv(env),
  })
}

export function summary(built: BuiltDataset, outDir: string): string[] {
  const lines = [`built ${outDir}/`, '', 'source            test    val']
  for (const [source, c] of Object.entries(built.stats.bySource)) lines.push(`${source.padEnd(16)} ${String(c.test).padStart(5)} ${String(c.val).padStart(6)}`)
  lines.push(`${'total'.padEnd(16)} ${String(built.stats.total.test).padStart(5)} ${String(built.stats.total.val).padStart(6)}`, '', 'dropped:')
  for (const [source, drops] of built.drops)
    for (const [reason, n] of [...drops].sort(([a], [b]) => (a < b ? -1 : 1))) lines.push(`  ${source}: ${reason} ${n}`)
  lines.push('')
  for (const o of built.manifest.outputs) lines.push(`${o.path.padEnd(16)} sha256 ${o.sha256}  ${o.bytes} bytes`)
  lines.push(`dataset hash ${built.manifest.datasetHash}`)
  return lines
}

/** Options every command that builds shares. */
export const SOURCE_OPTIONS = {
  recipe: { type: 'string', default: 'recipes/jev-bench.json' },
  lock: { type: 'string' },
  mirror: { type: 'string' },
  offline: { type: 'boolean', default: false },
  'cache-dir': { type: 'string' },
  quiet: { type: 'boolean', default: false },
  ...BOUND_OPTIONS,
} as const

export const BUILD_OPTIONS = { ...SOURCE_OPTIONS, out: { type: 'string', default: 'out' }, 'update-lock': { type: 'boolean', default: false } } as const
export const parseBuild = (argv: string[], io: Io) => parseCli(argv, BUILD_OPTIONS, USAGE, 0, io, BOUNDS_USAGE)

export interface BuildRun {
  built: BuiltDataset
  out: string
  lockPath: string
  /** true when there was no lock to check against (or --update-lock) and this build wrote it */
  wroteLock: boolean
}

/** The build itself, for parsed options: warnings on `io.err`, nothing on `io.out`. */
export async function runBuild(values: NonNullable<ReturnType<typeof parseBuild>>['values'], env: NodeJS.ProcessEnv, io: Io): Promise<BuildRun> {
  const recipePath = values.recipe as string
  const lockPath = (values.lock as string | undefined) ?? lockPathFor(recipePath)
  const recipe = await loadRecipe(recipePath)
  if (values['update-lock'] && values.offline && !values.mirror)
    throw new JevError('USAGE', '--update-lock checks every cached file with the Hub before it rewrites the lock, which --offline forbids; drop one of them')
  const lock = values['update-lock'] ? null : await readLock(lockPath)
  const fetcher = fetcherFor(values as never, env, io.err, lock)
  const built = await buildToDir(recipe, fetcher, values.out as string, { lock }).catch((e: unknown) => {
    throw nameBadEntry(e, fetcher)
  })
  for (const w of built.warnings) io.err(`warning: ${w}`)
  if (lock && lock.recipe.hash !== built.lock.recipe.hash)
    io.err(`warning: the recipe changed since ${lockPath} was written; --update-lock records it`)
  // the lock before any output: a reader that stops early (| head) must not cost it
  if (!lock) await writeLock(lockPath, built.lock)
  return { built, out: values.out as string, lockPath, wroteLock: !lock }
}

export async function buildDatasetCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const parsed = parseBuild(argv, io)
  if (!parsed) return 0
  const { built, out, lockPath, wroteLock } = await runBuild(parsed.values, env, io)
  for (const line of summary(built, out)) io.out(line)
  if (wroteLock) io.out(`wrote ${lockPath}`)
  return 0
}

if (isMain(import.meta.url)) {
  await runMain(() => buildDatasetCli(process.argv.slice(2), process.env, stdio))
}
