/**
 * The cache of prepared sources (./cache.ts) as a wrapper around the build's stages: a source loaded and prepared
 * (on a hit the files are still read and hashed, as the key holds their sha256 and the lock check reads them, but
 * neither decoded nor prepared), the contamination check, the lending's per-item work (saved after a build and
 * given back to the next), and the card's audit.
 */
import type { BuildOutput, BuildResources, LendingMemos } from '../build.ts'
import type { FetchedTraining, TrainingLoad } from '../contam/load.ts'
import type { ContaminationResult } from '../contam/run.ts'
import type { Audit } from '../emit/audit.ts'
import type { SourceFile } from '../fetch/types.ts'
import type { LoadedSource } from '../load-sources.ts'
import type { DropCounts, PreparedSource } from '../prepare/prepare.ts'
import { sourceFiles } from '../recipe/load.ts'
import type { Recipe, SourceSpec } from '../recipe/schema.ts'
import { BUILDER } from '../version.ts'
import { builderId } from './builder-id.ts'
import { type CardEntry, cardKey, contaminationKey, lendingKey, type PreparedCache, type PreparedEntry, preparedKey } from './cache.ts'
import { packPrepared, unpackPrepared } from './store.ts'

/** A source as the build's first stage gives it: loaded (its files' rows counted and hashed) and prepared. */
export interface SourceLoad {
  loaded: LoadedSource
  prepared: PreparedSource
}

/**
 * The stages of a build whose work the prepared cache can stand in for. buildFromSources makes them plain, each
 * doing its work; cachedStages wraps each, so a build whose inputs an earlier one had takes that one's entry instead.
 */
export interface Stages {
  /** a source's files, decoded and prepared */
  prepare(spec: SourceSpec, files: Promise<SourceFile[]>): Promise<SourceLoad>
  /** the contamination check of the prepared sources against the fetched training files */
  contamination(prepared: readonly PreparedSource[], fetched: readonly FetchedTraining[]): Promise<ContaminationResult>
  /**
   * the pure middle; `training`, the sha256 of the training files the plausible rule reads, and `memos`, the items'
   * lending candidates worked out already, which it fills in as it works out more
   */
  middle(
    prepared: readonly PreparedSource[],
    resources: BuildResources,
    training: readonly string[],
    memos?: LendingMemos,
  ): Promise<BuildOutput>
  /** the distractor audit (`audit` works it out) and the card `render` makes of it, for these outputs and drop counts */
  card(
    outputs: readonly string[],
    drops: ReadonlyMap<string, DropCounts>,
    audit: () => Audit,
    render: (audit: Audit) => Promise<string>,
  ): Promise<CardEntry>
}

/** `plain`, each stage taken from the cache where an entry for exactly its inputs is there; `warn` hears of an entry not a build's. */
export async function cachedStages(cache: PreparedCache, recipe: Recipe, plain: Stages, warn: (line: string) => void): Promise<Stages> {
  const builder = await builderId()
  if (!builder) return plain
  const use = { cache, builder }
  /** source → its prepared entry's key, which the other entries build on */
  const keys = new Map<string, string>()
  return {
    async prepare(spec, fetching) {
      // the files are read and hashed whether or not the entry is there: the key holds their sha256
      const files = await fetching
      const got = await loadPrepared(spec, recipe, files, use, () => plain.prepare(spec, Promise.resolve(files)))
      keys.set(spec.name, got.key)
      return got
    },
    contamination: (prepared, fetched) => contaminationCached(use, recipe, keys, fetched, () => plain.contamination(prepared, fetched)),
    async middle(prepared, resources, training) {
      const lending = await readLendingMemos(cache, recipe, keys, training)
      const built = await plain.middle(prepared, resources, training, lending.memos)
      await writeLendingMemos(cache, recipe, keys, lending.memos, lending.sizes, training)
      return built
    },
    card: (outputs, drops, audit, render) =>
      cardCached(
        use,
        recipe,
        outputs,
        drops,
        () => plain.card(outputs, drops, audit, render),
        render,
        (what) =>
          warn(
            `prepared cache: ${what} holds a card that is not the one its audit gives (the cache folder was written by something other than a build); the card was rendered afresh`,
          ),
      ),
  }
}

/**
 * An entry takes ~0.7 kB a row (MMLU's 15 k questions: 10 MB), and is held twice while it is written;
 * past this a source is not cached, so an entry stays under ~150 MB (the synthetic ×10 and ×100 sources are not).
 */
const MAX_CACHED_ROWS = 100_000

export interface CacheUse {
  cache: PreparedCache
  /** the builder's identity (src/prepared-cache/builder-id.ts) */
  builder: string
}

export interface PreparedLoad extends SourceLoad {
  /** the prepared entry's key, which the lending's entries build on */
  key: string
}

/**
 * The source from the cache when an entry for exactly these files, recipe and builder is there;
 * otherwise `make` decodes and prepares it, and the result is stored for the next build.
 */
async function loadPrepared(
  spec: SourceSpec,
  recipe: Recipe,
  files: readonly SourceFile[],
  use: CacheUse,
  make: () => Promise<SourceLoad>,
): Promise<PreparedLoad> {
  const key = preparedKey(
    use.builder,
    recipe,
    spec,
    files.map((f) => f.sha256),
  )
  const hit = await use.cache.get('prepared', key, spec.name)
  if (hit) return { loaded: fromEntry(spec, files, hit), prepared: { spec, ...unpackPrepared(hit.prepared) }, key }
  const { loaded, prepared } = await make()
  const { spec: _, ...rest } = prepared
  const rows = loaded.files.reduce((n, f) => n + f.rows, 0)
  if (rows > MAX_CACHED_ROWS) return { loaded, prepared, key }
  const packed = packPrepared(rest)
  if (packed === null) return { loaded, prepared, key }
  await use.cache.put('prepared', key, spec.name, {
    files: loaded.files.map((f) => ({ rows: f.rows, rowsHash: f.rowsHash })),
    prepared: packed,
  })
  return { loaded, prepared, key }
}

/** A source as loadSource gives it: the files as read this run, their rows' counts and hashes from the entry. */
function fromEntry(spec: SourceSpec, files: readonly SourceFile[], hit: PreparedEntry): LoadedSource {
  return {
    spec,
    commit: files[files.length - 1]!.commit,
    files: sourceFiles(spec).map((job, k) => ({
      split: job.split,
      path: job.path,
      size: files[k]!.size,
      sha256: files[k]!.sha256,
      ...hit.files[k]!,
    })),
    questions: [],
  }
}

const memoSize = (memos: LendingMemos, source: string) => {
  let n = 0
  for (const [group, memo] of memos) if (group.startsWith(`${source}\u0000`)) n += memo.size
  return n
}

/** What earlier builds of these prepared sources under this recipe worked out for the lending, with how much it was per source. */
async function readLendingMemos(
  cache: PreparedCache,
  recipe: Recipe,
  keys: ReadonlyMap<string, string>,
  training: readonly string[] = [],
): Promise<{ memos: LendingMemos; sizes: Map<string, number> }> {
  const memos: LendingMemos = new Map()
  const sizes = new Map<string, number>()
  for (const [source, key] of keys) {
    const got = await cache.get('lending', lendingKey(key, recipe, training), source)
    for (const [group, memo] of got ?? []) if (group.startsWith(`${source}\u0000`)) memos.set(group, memo)
    sizes.set(source, memoSize(memos, source))
  }
  return { memos, sizes }
}

/** Stores each source's part of the memos, where this build worked out more than it was given. */
async function writeLendingMemos(
  cache: PreparedCache,
  recipe: Recipe,
  keys: ReadonlyMap<string, string>,
  memos: LendingMemos,
  sizes: ReadonlyMap<string, number>,
  training: readonly string[] = [],
): Promise<void> {
  for (const [source, key] of keys) {
    if (memoSize(memos, source) === (sizes.get(source) ?? 0)) continue
    const mine = new Map([...memos].filter(([group]) => group.startsWith(`${source}\u0000`)))
    await cache.put('lending', lendingKey(key, recipe, training), source, mine)
  }
}

/**
 * The card and audit of these outputs under this recipe. The audit (it tokenizes every record's texts) comes
 * from an earlier build that made the same bytes, or is made now and stored; the card is rendered from it
 * either way, so a warm build's card is exactly what a cold one's would be for that audit, and a stored card
 * text that is not is reported through `onForeign` (someone wrote the cache folder) and not used.
 */
async function cardCached(
  use: CacheUse,
  recipe: Recipe,
  outputs: readonly string[],
  drops: ReadonlyMap<string, DropCounts>,
  make: () => Promise<CardEntry>,
  render: (audit: CardEntry['audit']) => Promise<string>,
  onForeign: (what: string) => void,
): Promise<CardEntry> {
  const key = cardKey(use.builder, BUILDER, recipe, outputs, drops)
  const hit = await use.cache.get('card', key, recipe.name)
  if (hit) {
    const card = await render(hit.audit)
    if (card !== hit.card) onForeign(`the card entry ${key.slice(0, 12)}… of ${recipe.name}`)
    return { audit: hit.audit, card }
  }
  const made = await make()
  await use.cache.put('card', key, recipe.name, made)
  return made
}

/**
 * The contamination check over these prepared sources (`keys`, in the recipe's order) and fetched training
 * files, from an earlier build that read the same bytes, or made now by `find` and stored.
 */
async function contaminationCached(
  use: CacheUse,
  recipe: Recipe,
  keys: ReadonlyMap<string, string>,
  fetched: readonly FetchedTraining[],
  find: () => Promise<ContaminationResult>,
): Promise<ContaminationResult> {
  const key = contaminationKey(
    recipe,
    [...keys.values()],
    fetched.map((f) => ('file' in f ? f.file.sha256 : null)),
  )
  const hit = await use.cache.get('contamination', key, recipe.name)
  const loads = hit ? fromContaminationEntry(fetched, hit.files) : null
  if (hit && loads) return { loads, matches: hit.matches, related: hit.related }
  const found = await find()
  await use.cache.put('contamination', key, recipe.name, {
    files: found.loads.map((l) => (l.checked ? { rows: l.file.rows, rowsHash: l.file.rowsHash } : null)),
    matches: found.matches,
    related: found.related,
  })
  return found
}

/** The training files as a decode would have reported them, or null where the entry does not fit them. */
function fromContaminationEntry(fetched: readonly FetchedTraining[], files: readonly ({ rows: number; rowsHash: string } | null)[]) {
  if (files.length !== fetched.length) return null
  const loads: TrainingLoad[] = []
  for (const [k, f] of fetched.entries()) {
    const got = files[k]
    if (!('file' in f)) {
      if (got !== null) return null
      loads.push(f)
      continue
    }
    if (!got) return null
    const { entry, file } = f
    loads.push({
      entry,
      checked: true,
      commit: file.commit,
      file: { split: entry.split, path: entry.path, size: file.size, sha256: file.sha256, rows: got.rows, rowsHash: got.rowsHash },
    })
  }
  return loads
}
