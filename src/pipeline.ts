import { type Audit, computeAudit } from './audit.ts'
import { buildFromPrepared } from './build.ts'
import { builderId } from './builder-id.ts'
import { normalize } from './canonical.ts'
import { unmatchedExclusions } from './exclusion-warnings.ts'
import { renderFigures } from './figures.ts'
import { toJsonl } from './jsonl.ts'
import { checkAgainstLock, type Lock, lockedRevision, lockedSize, makeLock } from './lock.ts'
import { buildManifest, type Manifest, manifestJson } from './manifest.ts'
import { assertReplaceable, makeOutParent, writeOutDir } from './out-dir.ts'
import { repairOutDir } from './out-repair.ts'
import { describeFile, MANIFEST_OUTPUTS, OUTPUTS, type OutputContent, type OutputSpec } from './outputs.ts'
import { Prefetcher } from './prefetch.ts'
import { cardCached, loadPrepared, readLendingMemos, writeLendingMemos } from './prepare-cached.ts'
import type { PreparedCache } from './prepared-cache.ts'
import { NO_PROGRESS, type Progress } from './progress.ts'
import { provenanceJsonl, provenanceLines } from './provenance.ts'
import { recipeHash } from './recipe.ts'
import type { Recipe, Split } from './schema.ts'
import { type DropCounts, type PreparedSource, SourcePreparer } from './select.ts'
import type { UpstreamQuestion } from './sources/adapter.ts'
import { fetchSource, idFromOf, type LoadedSource, loadSource } from './sources/load.ts'
import type { FileFetcher } from './sources/types.ts'
import { computeStats, type DatasetStats } from './stats.ts'
import { BUILDER } from './version.ts'

export interface BuiltDataset {
  /** file name → content, exactly as written to the output folder, in the order of OUTPUTS (src/outputs.ts) */
  files: Map<string, OutputContent>
  manifest: Manifest
  stats: DatasetStats
  drops: Map<string, DropCounts>
  sources: LoadedSource[]
  /** the lock this build's inputs make */
  lock: Lock
  /** e.g. source bytes that differ from the lock while their rows match */
  warnings: string[]
}

export interface BuildOptions {
  /** frozen: fetch the lock's commits and refuse rows that differ from it */
  lock?: Lock | null
  /** the stages, and each source's rows as they are decoded (default: none) */
  progress?: Progress
  /** the time limit of a decode of bytes the lock does not vouch for (default: by the file's size) */
  decodeTimeoutMs?: number
  /** prepared sources from earlier builds, keyed by their inputs (default: none) */
  preparedCache?: PreparedCache
}

/** Everything but the writing: sources in, the output files out. */
export async function buildDataset(recipe: Recipe, fetcher: FileFetcher, options: BuildOptions = {}): Promise<BuiltDataset> {
  const lock = options.lock ?? null
  const progress = options.progress ?? NO_PROGRESS
  const trusted = new Set(lock?.sources.flatMap((s) => s.files.map((f) => f.sha256)) ?? [])
  const sources: LoadedSource[] = []
  const prepared: PreparedSource[] = []
  // one source at a time, each question prepared as its row is decoded, so
  // neither a file's rows nor a source's raw questions are ever all held;
  // the next sources' files download meanwhile (src/prefetch.ts)
  const downloads = new Prefetcher({
    count: recipe.sources.length,
    sizeOf: (i) => lockedSize(lock, recipe.sources[i]!),
    start: (i) => {
      const spec = recipe.sources[i]!
      // a lock that does not fit this source fails in its turn, not while the one before is loading
      const p = Promise.resolve().then(() => fetchSource(spec, lockedRevision(lock, spec), fetcher))
      p.catch(() => {}) // awaited in its turn; a failure meanwhile must not go unobserved
      return p
    },
  })
  // the first source's requests go out before the rest of the set-up
  let first = downloads.take(0)
  const cache = options.preparedCache
  const builder = cache ? await builderId() : null
  const use = cache && builder ? { cache, builder } : null
  /** source → its prepared entry's key, for the lending's entries */
  const keys = new Map<string, string>()
  for (const [i, spec] of recipe.sources.entries()) {
    progress.stage(`loading and preparing sources (${i + 1} of ${recipe.sources.length}: ${spec.name})`)
    const fetching = i === 0 ? first : downloads.take(i)
    first = undefined // its files are the loading's to hold, and let go
    const load = (take: (q: UpstreamQuestion) => void, files = fetching) =>
      loadSource(spec, lockedRevision(lock, spec), fetcher, {
        trusted,
        onQuestion: take,
        ...(files ? { prefetched: files } : {}),
        progress,
        ...(options.decodeTimeoutMs === undefined ? {} : { decodeTimeoutMs: options.decodeTimeoutMs }),
      })
    if (use) {
      // the files are read and hashed whether or not the entry is there: the key holds their sha256
      const files = await fetching!
      const got = await loadPrepared(spec, recipe, files, use, (take) => load(take, Promise.resolve(files)))
      sources.push(got.loaded)
      prepared.push(got.prepared)
      keys.set(spec.name, got.key)
      continue
    }
    const preparer = new SourcePreparer(spec, recipe)
    sources.push(await load((q) => preparer.add(q)))
    prepared.push(preparer.finish())
  }
  const warnings = lock ? checkAgainstLock(lock, sources) : []
  // an exclusion entry that matches nothing is most likely a typo
  const hits = new Set(prepared.flatMap((p) => [...p.excludedHits]))
  warnings.push(...unmatchedExclusions(recipe.exclude, hits, normalize))
  progress.stage('selecting, borrowing distractors and reshaping')
  const lending = use ? await readLendingMemos(use.cache, recipe, keys) : null
  const { records, drops, origins } = buildFromPrepared(recipe, prepared, lending?.memos)
  if (use && lending) await writeLendingMemos(use.cache, recipe, keys, lending.memos, lending.sizes)
  const jsonl: Record<Split, string> = { test: toJsonl(records.test), val: toJsonl(records.val) }
  const stats = computeStats(
    records,
    recipe.sources.map((s) => s.name),
  )
  const upstream = new Map(sources.map((s) => [s.spec.name, { repo: s.spec.repo, commit: s.commit, idFrom: idFromOf(s.spec) }]))
  const provenance = provenanceLines(records, origins, (source) => upstream.get(source)!)
  const provenanceText = provenanceJsonl(provenance)
  const hash = recipeHash(recipe)
  const render = async (audit: Audit) => {
    // card.ts loads the YAML library: only where a card is rendered
    const { renderCard } = await import('./card.ts')
    const bytes = { test: Buffer.byteLength(jsonl.test), val: Buffer.byteLength(jsonl.val) }
    return renderCard({ recipe, recipeHash: hash, builderVersion: BUILDER.version, stats, drops, audit, bytes })
  }
  const makeCard = async () => {
    const audit = computeAudit(records, provenance, recipe)
    return { audit, card: await render(audit) }
  }
  const outputs = [jsonl.test, jsonl.val, provenanceText]
  const foreign = (what: string) =>
    warnings.push(
      `prepared cache: ${what} holds a card that is not the one its audit gives (the cache folder was written by something other than a build); the card was rendered afresh`,
    )
  const { audit, card } = use ? await cardCached(use, recipe, outputs, drops, makeCard, render, foreign) : await makeCard()
  // every output of the registry (src/outputs.ts) but the manifest, which describes them
  const content = new Map<string, { content: OutputContent; rows?: number }>([
    ['test.jsonl', { content: jsonl.test, rows: records.test.length }],
    ['val.jsonl', { content: jsonl.val, rows: records.val.length }],
    ['provenance.jsonl', { content: provenanceText, rows: provenance.length }],
    ['README.md', { content: card }],
    // the card's figures, from the same stats and audit as its tables
    ...renderFigures(stats, audit).map((f): [string, { content: OutputContent }] => [f.name, { content: f.svg }]),
  ])
  const made = (o: OutputSpec) => {
    const c = content.get(o.name)
    if (!c) throw new Error(`the build makes no content for the output ${o.name}`)
    return c
  }
  const contentOf = (o: OutputSpec) => made(o).content
  const rowsOf = (o: OutputSpec) => made(o).rows ?? 0
  const manifest = buildManifest({
    recipe: { name: recipe.name, version: recipe.version, hash, seed: recipe.seed },
    builder: BUILDER,
    sources,
    outputs: MANIFEST_OUTPUTS.map((o) => ({ ...describeFile(o.name, contentOf(o)), ...(o.hasRows ? { rows: rowsOf(o) } : {}) })),
    jsonl,
    stats,
    drops,
    audit,
  })
  const files = new Map(OUTPUTS.map((o) => [o.name, o.kind === 'manifest' ? manifestJson(manifest) : contentOf(o)]))
  return { files, manifest, stats, drops, sources, lock: makeLock(recipe, hash, BUILDER, sources), warnings }
}

export async function buildToDir(recipe: Recipe, fetcher: FileFetcher, outDir: string, options: BuildOptions = {}): Promise<BuiltDataset> {
  // a swap a killed build left half done is put right first, whatever happens next
  await repairOutDir(outDir)
  // before the work, so a wrong --out costs nothing
  await assertReplaceable(outDir)
  const undo = await makeOutParent(outDir)
  let built: BuiltDataset
  try {
    built = await buildDataset(recipe, fetcher, options)
    options.progress?.stage(`writing ${outDir}/`)
    await writeOutDir(outDir, built.files)
  } catch (e) {
    await undo()
    throw e
  }
  return built
}
