import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { compareBuildTexts } from '../check/compare.ts'
import type { SourceChanges } from '../emit/schema.ts'
import { JevError } from '../errors.ts'
import { loadRecipe } from '../recipe/load.ts'
import { lockPathFor, readLock, writeLock } from '../recipe/lock.ts'
import { SPLITS, type Split } from '../recipe/schema.ts'
import { DEFAULT_RECIPE } from '../version.ts'
import { defineCommand, JSON_OPTION } from './common/command.ts'
import type { Io } from './run.ts'

export const compareBuildsCommand = defineCommand({
  name: 'compare-builds',
  args: { synopsis: 'OLD_DIR NEW_DIR', max: 2, names: ['old', 'new'] },
  about: [
    'Compares builds of the previous and the new version record by record and gives, per source, the figures of the',
    'card\'s "Changes from" section: computed once, at release, pinned in the lock (--pin), proven in CI (--check).',
  ],
  options: {
    recipe: { type: 'string', arg: 'FILE', help: "the new version's recipe (default: this package's recipes/jev-bench.json)" },
    lock: { type: 'string', arg: 'FILE', help: 'its lock (default: next to the recipe, <recipe>.lock.json)' },
    pin: { type: 'boolean', default: false, help: "write the figures into the lock's changesFrom, where a build reads them" },
    check: {
      type: 'boolean',
      default: false,
      help: "fail unless the recipe's changesFrom.bySource, or else the lock's pinned figures, are exactly these",
    },
    ...JSON_OPTION,
  },
  notes: [
    'Exit status: 0 compared (and pinned or checked); 2 bad usage or a recipe without changesFrom; 5 a lock that pins other figures.',
  ],
  required: ['old', 'new'],
})

export const parseCompareBuilds = (argv: string[], io: Io) => compareBuildsCommand.parse(argv, io)

export interface BuildsCompared {
  /** per source, in the recipe's order */
  changes: Record<string, SourceChanges>
  /** the lock the figures were pinned in (--pin) */
  pinned?: string
  /** where the figures checked were stated (--check) */
  checked?: string
}

/** A folder's test.jsonl and val.jsonl, after checking that its manifest, where it has one, names `version`. */
async function readBuild(dir: string, version: string | undefined): Promise<Record<Split, string>> {
  const manifest = await readFile(join(dir, 'manifest.json'), 'utf8').catch(() => null)
  const built = manifest === null ? undefined : (JSON.parse(manifest) as { recipe?: { version?: string } }).recipe?.version
  if (version && built !== undefined && built !== version)
    throw new JevError('USAGE', `${dir} holds a build of ${built}, not of ${version}`, {
      file: dir,
      hint: "give the previous version's build first, then the new one's: compare-builds OLD_DIR NEW_DIR",
    })
  const read = (s: Split) =>
    readFile(join(dir, `${s}.jsonl`), 'utf8').catch((e: Error) => {
      throw new JevError('IO', `cannot read ${join(dir, `${s}.jsonl`)}: ${e.message}`, { file: dir })
    })
  return Object.fromEntries(await Promise.all(SPLITS.map(async (s) => [s, await read(s)]))) as Record<Split, string>
}

/** The comparison, for parsed options, then the pin or the check. */
export async function runCompareBuilds({
  values,
  positionals,
}: NonNullable<ReturnType<typeof parseCompareBuilds>>): Promise<BuildsCompared> {
  const [oldDir, newDir] = positionals
  if (!oldDir || !newDir) throw new JevError('USAGE', 'give two built folders: OLD_DIR NEW_DIR')
  if (values.check && values.pin) throw new JevError('USAGE', '--check and --pin together: pin the figures, or check them')
  const recipePath = values.recipe ?? DEFAULT_RECIPE
  const recipe = await loadRecipe(recipePath)
  const lockPath = values.lock ?? lockPathFor(recipePath)
  const from = recipe.changesFrom
  if ((values.check || values.pin) && !from)
    throw new JevError('RECIPE', `${recipePath}: no changesFrom, so there are no figures to ${values.pin ? 'pin' : 'check'}`, {
      file: recipePath,
      field: 'changesFrom',
    })
  const changes = compareBuildTexts(
    await readBuild(oldDir, from?.version),
    await readBuild(newDir, recipe.version),
    recipe.sources.map((s) => s.name),
  )
  if (values.pin) {
    if (from!.bySource)
      throw new JevError(
        'RECIPE',
        `${recipePath}: changesFrom.bySource types the figures already; the lock pins them only for a recipe that does not`,
        {
          file: recipePath,
          field: 'changesFrom.bySource',
        },
      )
    const lock = await readLock(lockPath)
    if (!lock)
      throw new JevError('LOCK', `no lock at ${lockPath}`, {
        file: lockPath,
        hint: 'build the recipe once without changesFrom (its records do not depend on it) to write one',
      })
    await writeLock(lockPath, { ...lock, changesFrom: { version: from!.version, bySource: changes } })
    return { changes, pinned: lockPath }
  }
  if (values.check) {
    const typed = from!.bySource
    const pinned = typed ? undefined : (await readLock(lockPath))?.changesFrom
    const where = typed ? `${recipePath}: changesFrom.bySource` : `${lockPath}: changesFrom`
    if (!typed && pinned?.version !== from!.version)
      throw new JevError('LOCK', `${where} pins no figures for ${from!.version}`, { file: lockPath, hint: 'pin them with --pin' })
    const stated = typed ?? pinned!.bySource
    if (JSON.stringify(stated) !== JSON.stringify(changes))
      throw new JevError(typed ? 'RECIPE' : 'LOCK', `${where} is ${JSON.stringify(stated)}, the builds give ${JSON.stringify(changes)}`, {
        file: typed ? recipePath : lockPath,
        hint: typed ? 'type the figures the builds give, or drop bySource and pin them' : 'pin the figures the builds give with --pin',
      })
    return { changes, checked: where }
  }
  return { changes }
}

/** compare-builds as a library function: `old` and `new`, the folders of the two builds. */
export const compareBuilds = compareBuildsCommand.library(runCompareBuilds)

export async function compareBuildsCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return compareBuildsCommand.main(argv, env, io, async ({ params }, io) => {
    const compared = await compareBuilds(params, io)
    io.out(JSON.stringify(compared.changes, null, 2))
    if (compared.pinned) io.out(`pinned the changes in ${compared.pinned}`)
    if (compared.checked) io.out(`ok: ${compared.checked} states these changes`)
    return { json: compared }
  })
}
