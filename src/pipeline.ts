import { computeAudit } from './audit.ts'
import { buildFromPrepared } from './build.ts'
import { builderId } from './builder-id.ts'
import { normalize } from './canonical.ts'
import { renderCard } from './card.ts'
import { renderFigures } from './figures.ts'
import { toJsonl } from './jsonl.ts'
import { checkAgainstLock, type Lock, lockedRevision, makeLock } from './lock.ts'
import { buildManifest, type Manifest, manifestJson } from './manifest.ts'
import { assertReplaceable, makeOutParent, writeOutDir } from './out-dir.ts'
import { repairOutDir } from './out-repair.ts'
import { describeFile, MANIFEST_OUTPUTS, OUTPUTS, type OutputContent, type OutputSpec } from './outputs.ts'
import { type PreparedCache, type PreparedEntry, preparedKey } from './prepared-cache.ts'
import { NO_PROGRESS, type Progress } from './progress.ts'
import { provenanceJsonl, provenanceLines } from './provenance.ts'
import { recipeHash, sourceFiles } from './recipe.ts'
import type { Recipe, SourceSpec, Split } from './schema.ts'
import { type DropCounts, type PreparedSource, SourcePreparer } from './select.ts'
import { fetchSource, idFromOf, type LoadedSource, loadSource } from './sources/load.ts'
import type { FileFetcher, SourceFile } from './sources/types.ts'
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
  /** prepared sources from earlier builds, keyed by their inputs (default: none) */
  preparedCache?: PreparedCache
}

/** Everything but the writing: sources in, the four output files out. */
export async function buildDataset(recipe: Recipe, fetcher: FileFetcher, options: BuildOptions = {}): Promise<BuiltDataset> {
  const lock = options.lock ?? null
  const progress = options.progress ?? NO_PROGRESS
  const trusted = new Set(lock?.sources.flatMap((s) => s.files.map((f) => f.sha256)) ?? [])
  const sources: LoadedSource[] = []
  const prepared: PreparedSource[] = []
  // one source at a time, each question prepared as its row is decoded, so
  // neither a file's rows nor a source's raw questions are ever all held;
  // the next source's files download meanwhile
  const fetchAt = (i: number) => {
    const spec = recipe.sources[i]
    if (!spec) return undefined
    // a lock that does not fit this source fails in its turn, not while the one before is loading
    const p = Promise.resolve().then(() => fetchSource(spec, lockedRevision(lock, spec), fetcher))
    p.catch(() => {}) // awaited in its turn; a failure meanwhile must not go unobserved
    return p
  }
  let next = fetchAt(0)
  const cache = options.preparedCache
  const builder = cache ? await builderId() : null
  for (const [i, spec] of recipe.sources.entries()) {
    progress.stage(`loading and preparing sources (${i + 1} of ${recipe.sources.length}: ${spec.name})`)
    const fetching = next
    next = fetchAt(i + 1)
    const files = cache && builder ? await fetching! : null
    // the key holds the sha256 of the bytes just read, so a hit still proves they are the ones the lock names
    const key =
      files && builder
        ? preparedKey(
            builder,
            recipe,
            spec,
            files.map((f) => f.sha256),
          )
        : null
    const hit = key ? await cache!.get(key, spec.name) : null
    if (hit && files) {
      sources.push(fromCache(spec, files, hit))
      prepared.push({ spec, ...hit.prepared })
      continue
    }
    const preparer = new SourcePreparer(spec, recipe)
    const loading = loadSource(
      spec,
      lockedRevision(lock, spec),
      fetcher,
      trusted,
      (q) => preparer.add(q),
      files ? Promise.resolve(files) : fetching,
      progress,
    )
    const loaded = await loading
    const done = preparer.finish()
    sources.push(loaded)
    prepared.push(done)
    if (key) await cache!.put(key, spec.name, toEntry(loaded, done))
  }
  const warnings = lock ? checkAgainstLock(lock, sources) : []
  // an exclusion entry that matches nothing is most likely a typo
  const hits = new Set(prepared.flatMap((p) => [...p.excludedHits]))
  for (const id of recipe.exclude.ids) if (!hits.has(id)) warnings.push(`exclusion list: no upstream question has the id ${id}`)
  for (const text of recipe.exclude.texts)
    if (!hits.has(normalize(text))) warnings.push(`exclusion list: no upstream question has the text ${JSON.stringify(text)}`)
  progress.stage('selecting, borrowing distractors and reshaping')
  const { records, drops, origins } = buildFromPrepared(recipe, prepared)
  const jsonl: Record<Split, string> = { test: toJsonl(records.test), val: toJsonl(records.val) }
  const stats = computeStats(
    records,
    recipe.sources.map((s) => s.name),
  )
  const upstream = new Map(sources.map((s) => [s.spec.name, { repo: s.spec.repo, commit: s.commit, idFrom: idFromOf(s.spec) }]))
  const provenance = provenanceLines(records, origins, (source) => upstream.get(source)!)
  const provenanceText = provenanceJsonl(provenance)
  const audit = computeAudit(records, provenance, recipe)
  const hash = recipeHash(recipe)
  const card = renderCard({
    recipe,
    recipeHash: hash,
    builderVersion: BUILDER.version,
    stats,
    drops,
    audit,
    bytes: { test: Buffer.byteLength(jsonl.test), val: Buffer.byteLength(jsonl.val) },
  })
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

/** A source as loadSource would have given it, its rows' counts and hashes from the cache entry. */
function fromCache(spec: SourceSpec, files: readonly SourceFile[], hit: PreparedEntry): LoadedSource {
  const jobs = sourceFiles(spec)
  return {
    spec,
    commit: files[files.length - 1]!.commit,
    files: jobs.map((job, k) => ({ split: job.split, path: job.path, size: files[k]!.size, sha256: files[k]!.sha256, ...hit.files[k]! })),
    questions: [],
  }
}

function toEntry(loaded: LoadedSource, done: PreparedSource): PreparedEntry {
  const { spec: _, ...prepared } = done
  return { files: loaded.files.map((f) => ({ rows: f.rows, rowsHash: f.rowsHash })), prepared }
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
