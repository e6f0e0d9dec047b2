/** Where the sources come from: the option group every command that reads them shares, declared once. */
import { stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { type BuiltDataset, buildFromSources, type SourceBuildOptions } from '../../build-io.ts'
import { JevError } from '../../errors.ts'
import { BOUND_SETTINGS, boundsFrom } from '../../fetch/bounds.ts'
import { createMirrorFetcher } from '../../fetch/mirror.ts'
import type { FileFetcher } from '../../fetch/types.ts'
import { dirPreparedCache, type PreparedCache } from '../../prepared-cache/cache.ts'
import { loadRecipe } from '../../recipe/load.ts'
import { type Lock, lockPathFor, readLock } from '../../recipe/lock.ts'
import type { Progress } from '../../util/progress.ts'
import { DEFAULT_RECIPE } from '../../version.ts'
import type { Io } from '../run.ts'
import { PARAMS, QUIET_OPTION, type Values } from './command.ts'

type BoundFlag = 'http-timeout' | 'min-rate' | 'rate-window' | 'max-retry-after' | 'file-deadline'
type BoundOption = { type: 'string'; arg: string; help: string; number: true }

/** The network bounds as options, from the one table in sources/bounds.ts. */
export const BOUND_FLAGS = Object.fromEntries(
  BOUND_SETTINGS.map((s) => [
    s.flag,
    {
      type: 'string',
      number: true,
      arg: s.unit === 's' ? 'S' : 'N',
      help: `${s.env}; default ${s.unit === 's' ? s.default / 1000 : s.default} ${s.unit}`,
    },
  ]),
) as Record<BoundFlag, BoundOption>

export const SOURCE_OPTIONS = {
  recipe: { type: 'string', arg: 'FILE', help: "the recipe (default: this package's recipes/jev-bench.json)" },
  lock: { type: 'string', arg: 'FILE', help: 'the lock (default: next to the recipe, <recipe>.lock.json)' },
  mirror: { type: 'string', arg: 'DIR', help: 'read a local folder in Hub layout (DIR/datasets/<owner>/<name>/<path>) instead of the Hub' },
  offline: {
    type: 'boolean',
    default: false,
    help: 'make no network request; only the Hugging Face cache (HF_HUB_OFFLINE=1 does the same)',
  },
  'cache-dir': {
    type: 'string',
    arg: 'DIR',
    help: 'the Hugging Face cache (default HF_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub or ~/.cache/huggingface/hub)',
  },
  ...QUIET_OPTION,
  ...BOUND_FLAGS,
} as const

/** The library's params of every command that reads the sources, besides its flags. */
export const SOURCE_PARAMS = { progress: PARAMS.progress }

export const PROGRESS_NOTE =
  'Progress is drawn on stderr when it is a terminal, unless --quiet, CI, or HF_HUB_DISABLE_PROGRESS_BARS=1 (ON, YES, TRUE).'

export const SOURCE_NOTES = [
  'Environment: HF_ENDPOINT (a Hub mirror endpoint), HF_TOKEN (sent to the Hub, never printed),',
  "  HF_HUB_OFFLINE (1, ON, YES or TRUE in any case: as --offline, as Python's huggingface_hub reads it), and the JEV_* bounds above.",
  '  JEV_PREPARED_CACHE: the folder of prepared sources (default XDG_CACHE_HOME/jev-bench/prepared or ~/.cache/jev-bench/prepared), 0 for none.',
  PROGRESS_NOTE,
] as const

/** The source options as parsed. */
export type SourceValues = Values<typeof SOURCE_OPTIONS>

/** HF_HUB_OFFLINE as Python's huggingface_hub reads it: 1, ON, YES or TRUE, in any case. */
export function offlineFromEnv(env: NodeJS.ProcessEnv): boolean {
  return ['1', 'ON', 'YES', 'TRUE'].includes((env.HF_HUB_OFFLINE ?? '').toUpperCase())
}

/** A folder named by an option must be one: said at once, naming it, not as the first file missing from it. */
export async function requireFolder(dir: string, option?: string): Promise<void> {
  const s = await stat(dir).catch(() => null)
  if (!s?.isDirectory())
    throw new JevError('IO', `${option ? `${option} ` : ''}${dir}: ${s ? 'is not a folder' : 'no such folder'}`, {
      file: dir,
      hint: `check the path${option ? ` given to ${option}` : ''}`,
    })
}

/**
 * `log` gets downloads, retries and waits for another build's cache lock, so a slow build says why (not with --quiet);
 * `progress` each download's bytes.
 */
export async function fetcherFor(
  values: SourceValues,
  env: NodeJS.ProcessEnv,
  log?: (line: string) => void,
  lock?: Lock | null,
  progress?: Progress,
): Promise<FileFetcher> {
  // Cached files are trusted only when `lock` vouches for their bytes; with `null` (a first build, --update-lock)
  // each is checked with the Hub, so a lock is never written from bytes it no longer serves.
  const bounds = boundsFrom(values, env) // checked with --mirror too: a bad value is an error wherever it is given
  if (values.mirror) {
    await requireFolder(values.mirror, '--mirror')
    return createMirrorFetcher(values.mirror)
  }
  // the Hub client's modules only where the Hub is used: a build from a mirror never loads them
  const { createHubFetcher, hubOptionsFromEnv, resolveCacheDir } = await import('../../fetch/hub.ts')
  return createHubFetcher({
    ...hubOptionsFromEnv(env),
    ...bounds,
    ...(lock === undefined
      ? {}
      : {
          vouched: (repo: string, commit: string, path: string) =>
            lock?.sources.flatMap((s) => (s.repo === repo && s.commit === commit ? s.files : [])).find((f) => f.path === path)?.sha256 ??
            lock?.contamination?.find((f) => f.repo === repo && f.commit === commit && f.path === path)?.sha256,
        }),
    ...(log && !values.quiet ? { log } : {}),
    ...(progress ? { progress } : {}),
    cacheDir: values['cache-dir'] ?? resolveCacheDir(env, homedir()),
    offline: values.offline || offlineFromEnv(env),
  })
}

/**
 * The cache of prepared sources, unless turned off: JEV_PREPARED_CACHE names its folder, or 0 (off, no, false) turns it off;
 * by default XDG_CACHE_HOME/jev-bench/prepared, else ~/.cache/jev-bench/prepared.
 */
export function preparedCacheFor(off: boolean, env: NodeJS.ProcessEnv): PreparedCache | undefined {
  const dir = preparedCacheDir(off, env)
  return dir === undefined ? undefined : dirPreparedCache(dir)
}

/** The folder preparedCacheFor uses, absolute, or undefined when it is off. */
export function preparedCacheDir(off: boolean, env: NodeJS.ProcessEnv): string | undefined {
  const setting = (env.JEV_PREPARED_CACHE ?? '').trim()
  if (off || /^(0|off|no|false)$/i.test(setting)) return undefined
  // 1, on, yes, true: the default place, not a folder of that name
  const dir = /^(1|on|yes|true)?$/i.test(setting) ? join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'jev-bench', 'prepared') : setting
  return resolve(dir)
}

/** `e`, naming the Hub cache entry it came from where it came from one (sources/hub-cache.ts's nameBadEntry; only a Hub fetcher has such entries). */
export async function namedBadEntry(e: unknown, fetcher: FileFetcher): Promise<unknown> {
  return fetcher.unvouched ? (await import('../../fetch/hub-cache.ts')).nameBadEntry(e, fetcher) : e
}

/** The recipe the options name, or the package's own. */
export function recipePathOf(values: Pick<SourceValues, 'recipe'>): string {
  return values.recipe ?? DEFAULT_RECIPE
}

/**
 * What a build from the command line passes to buildFromSources: the lock and its path, progress and the prepared cache;
 * `replaced`, the lock --update-lock rewrites, whose "Changes from" figures the new lock keeps.
 */
export function sourceBuildOptions(
  values: Pick<SourceValues, 'recipe' | 'lock'>,
  lock: Lock | null,
  io: Pick<Io, 'progress'>,
  preparedCache?: PreparedCache,
  replaced?: Lock | null,
): SourceBuildOptions {
  const pinned = replaced?.changesFrom
  return {
    lock,
    lockPath: values.lock ?? lockPathFor(recipePathOf(values)),
    ...(pinned ? { pinnedChanges: pinned } : {}),
    ...(io.progress ? { progress: io.progress } : {}),
    ...(preparedCache ? { preparedCache } : {}),
  }
}

/** The lock a rebuild needs, or LOCK with a hint that fits: there is none to check against yet. */
export async function requireLock(values: Pick<SourceValues, 'recipe' | 'lock'>): Promise<Lock> {
  const lockPath = values.lock ?? lockPathFor(recipePathOf(values))
  const lock = await readLock(lockPath)
  if (!lock)
    throw new JevError('LOCK', `no lock at ${lockPath}`, {
      file: lockPath,
      hint: 'build once (npm run build-dataset) to write it, or name it with --lock FILE',
    })
  return lock
}

/** The in-memory rebuild from the lock that verify-dataset and publish-dataset compare a folder with. */
export async function rebuildFromLock(
  values: SourceValues,
  env: NodeJS.ProcessEnv,
  io: Io,
  preparedCache?: PreparedCache,
): Promise<BuiltDataset> {
  const lock = await requireLock(values)
  const recipe = await loadRecipe(recipePathOf(values))
  const fetcher = await fetcherFor(values, env, io.err, lock, io.progress)
  // no cache of prepared sources: a verifying rebuild derives everything from the bytes again, independently of what a build left
  // (`preparedCache` only for verify-dataset's second rebuild, which asks whether the cache made a difference)
  const options = sourceBuildOptions(values, lock, io, preparedCache)
  const rebuilt = await buildFromSources(recipe, fetcher, options).catch(async (e: unknown) => {
    throw await namedBadEntry(e, fetcher)
  })
  for (const w of rebuilt.warnings) io.err(`warning: ${w}`)
  return rebuilt
}
