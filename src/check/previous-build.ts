/**
 * The previous recipe's build, made in the same run for the card's "Changes from" figures: its sources
 * read under its own lock, each in the same pass as this build's source that reads the same questions,
 * its records selected by the same code, and compared with this build's by compareBuildTexts.
 */

import type { UpstreamQuestion } from '../adapt/adapter.ts'
import { type BuildResources, buildFromPrepared } from '../build.ts'
import { toJsonl } from '../emit/jsonl.ts'
import type { FileFetcher, SourceFile } from '../fetch/types.ts'
import { fetchSource, type LoadedSource, loadSource } from '../load-sources.ts'
import { type PreparedSource, SourcePreparer } from '../prepare/prepare.ts'
import { type PreviousEntry, previousKey } from '../prepared-cache/cache.ts'
import { type CacheUse, loadPrepared, readLendingMemos, writeLendingMemos } from '../prepared-cache/hook.ts'
import { checkAgainstLock, type Lock, lockedRevision } from '../recipe/lock.ts'
import type { Recipe, SourceChanges, SourceSpec, Split } from '../recipe/schema.ts'
import { canonicalJson } from '../util/canonical.ts'
import type { Progress } from '../util/progress.ts'
import { compareBuildTexts } from './compare.ts'

export interface PreviousRecipe {
  recipe: Recipe
  /** that recipe's own lock; null builds it unfrozen */
  lock: Lock | null
}

/** The recipe asks the build to compute its "Changes from" figures. */
export const computesChanges = (recipe: Recipe): boolean => recipe.changesFrom !== undefined && recipe.changesFrom.bySource === undefined

/** What makes a source's questions: the same name, repo, commit, files and reading give the same ones. */
function questionsKey(spec: SourceSpec, commit: string): string {
  const { name, repo, config, files, adapter, mapping, card } = spec
  return canonicalJson({ name, repo, commit, config, files, adapter, mapping, card })
}

interface Shared {
  /** the files as this build fetched them (their bytes may be gone, their sha256 stays) */
  files: readonly SourceFile[]
  /** a fresh read of them, for a decode */
  again: () => Promise<SourceFile[]>
  load: (take: (q: UpstreamQuestion) => void, files: Promise<SourceFile[]>) => Promise<LoadedSource>
}

export class PreviousBuild {
  readonly #loaded = new Map<string, LoadedSource>()
  readonly #prepared = new Map<string, PreparedSource>()
  readonly #keys = new Map<string, string>()
  readonly #shared = new Map<string, Shared>()

  constructor(
    readonly previous: PreviousRecipe,
    private readonly lock: Lock | null,
    private readonly fetcher: FileFetcher,
    private readonly trusted: ReadonlySet<string>,
    private readonly progress: Progress,
    private readonly use: CacheUse | null,
  ) {}

  /** The previous recipe's source that reads the same questions as `spec` (at this build's commit), if any. */
  twinOf(spec: SourceSpec): SourceSpec | undefined {
    const key = questionsKey(spec, lockedRevision(this.lock, spec))
    return this.previous.recipe.sources.find((p) => questionsKey(p, lockedRevision(this.previous.lock, p)) === key)
  }

  /** Without the cache: a preparer of the twin, fed each question of `spec` as this build reads it. */
  preparerFor(spec: SourceSpec): { add(q: UpstreamQuestion): void; done(loaded: LoadedSource): void } | null {
    const twin = this.twinOf(spec)
    if (!twin) return null
    const preparer = new SourcePreparer(twin, this.previous.recipe)
    return {
      add: (q) => preparer.add(q),
      done: (loaded) => {
        this.#loaded.set(twin.name, loaded)
        this.#prepared.set(twin.name, preparer.finish())
      },
    }
  }

  /** With the cache: the twin of `spec` takes its files from this build (read again only on a miss). */
  share(spec: SourceSpec, shared: Shared): void {
    const twin = this.twinOf(spec)
    if (twin) this.#shared.set(twin.name, shared)
  }

  /** Builds the previous recipe's records (or takes them from the cache) and compares this build's with them. */
  async changes(
    jsonl: Record<Split, string>,
    order: readonly string[],
    warnings: string[],
    resources: BuildResources = {},
    training: readonly string[] = [],
  ): Promise<Record<string, SourceChanges>> {
    // both texts are toJsonl's, so their lines need no schema check
    const then = await this.#records(resources, training)
    warnings.push(...then.warnings)
    return compareBuildTexts(then, jsonl, order, true)
  }

  async #records(resources: BuildResources, training: readonly string[]): Promise<PreviousEntry> {
    const { recipe, lock } = this.previous
    const use = this.use
    if (!use) {
      for (const spec of recipe.sources) if (!this.#prepared.has(spec.name)) await this.#loadAlone(spec, null)
      return this.#build(null, resources, training)
    }
    const files = new Map<string, readonly SourceFile[]>()
    for (const spec of recipe.sources)
      files.set(spec.name, this.#shared.get(spec.name)?.files ?? (await fetchSource(spec, lockedRevision(lock, spec), this.fetcher)))
    const sums = recipe.sources.map((s) => files.get(s.name)!.map((f) => f.sha256))
    const key = previousKey(use.builder, recipe, lock, sums, training)
    const hit = await use.cache.get('previous', key, recipe.name)
    if (hit) return hit
    for (const spec of recipe.sources) {
      const shared = this.#shared.get(spec.name)
      if (shared) {
        const was = await loadPrepared(spec, recipe, shared.files, use, (take) => shared.load(take, shared.again()))
        this.#keep(spec, was.loaded, was.prepared, was.key)
      } else await this.#loadAlone(spec, files.get(spec.name)!)
    }
    const built = await this.#build(use, resources, training)
    await use.cache.put('previous', key, recipe.name, built)
    return built
  }

  #keep(spec: SourceSpec, loaded: LoadedSource, prepared: PreparedSource, key?: string): void {
    this.#loaded.set(spec.name, loaded)
    this.#prepared.set(spec.name, prepared)
    if (key) this.#keys.set(spec.name, key)
  }

  /** A source of the previous recipe that no source of this build shares, under that recipe's lock. */
  async #loadAlone(spec: SourceSpec, fetched: readonly SourceFile[] | null): Promise<void> {
    const { recipe, lock } = this.previous
    this.progress.stage(`loading and preparing ${recipe.name} ${recipe.version}'s ${spec.name}, for the "Changes from" figures`)
    const revision = lockedRevision(lock, spec)
    const files = fetched ? [...fetched] : await fetchSource(spec, revision, this.fetcher)
    const load = (take: (q: UpstreamQuestion) => void) =>
      loadSource(spec, revision, this.fetcher, {
        trusted: this.trusted,
        onQuestion: take,
        prefetched: Promise.resolve(files),
        progress: this.progress,
      })
    if (this.use) {
      const was = await loadPrepared(spec, recipe, files, this.use, load)
      return this.#keep(spec, was.loaded, was.prepared, was.key)
    }
    const preparer = new SourcePreparer(spec, recipe)
    const loaded = await load((q) => preparer.add(q))
    this.#keep(spec, loaded, preparer.finish())
  }

  async #build(use: CacheUse | null, resources: BuildResources, training: readonly string[]): Promise<PreviousEntry> {
    const { recipe, lock } = this.previous
    const sources = recipe.sources.map((s) => this.#loaded.get(s.name)!)
    const warnings = lock ? checkAgainstLock(lock, sources).map((w) => `${recipe.name} ${recipe.version}: ${w}`) : []
    const lending = use ? await readLendingMemos(use.cache, recipe, this.#keys, training) : null
    const built = buildFromPrepared(
      recipe,
      recipe.sources.map((s) => this.#prepared.get(s.name)!),
      lending?.memos,
      resources,
    )
    if (use && lending) await writeLendingMemos(use.cache, recipe, this.#keys, lending.memos, lending.sizes, training)
    return { test: toJsonl(built.records.test), val: toJsonl(built.records.val), warnings }
  }
}
