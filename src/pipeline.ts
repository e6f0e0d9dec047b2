import { buildFromPrepared } from './build.ts'
import { normalize } from './canonical.ts'
import { renderCard } from './card.ts'
import { checkAgainstLock, type Lock, lockedRevision, makeLock } from './lock.ts'
import { buildManifest, type Manifest, manifestJson } from './manifest.ts'
import { recipeHash } from './recipe.ts'
import type { Recipe, Split } from './schema.ts'
import { type DropCounts, type PreparedSource, prepareSource } from './select.ts'
import { loadSource, type LoadedSource } from './sources/load.ts'
import type { FileFetcher } from './sources/types.ts'
import { computeStats, type DatasetStats } from './stats.ts'
import { BUILDER } from './version.ts'
import { describeFile, repairOutDir, toJsonl, writeOutDir } from './write.ts'

export interface BuiltDataset {
  /** file name → content, exactly as written to the output folder */
  files: Map<string, string>
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
}

/** Everything but the writing: sources in, the four output files out. */
export async function buildDataset(recipe: Recipe, fetcher: FileFetcher, options: BuildOptions = {}): Promise<BuiltDataset> {
  const lock = options.lock ?? null
  const trusted = new Set(lock?.sources.flatMap((s) => s.files.map((f) => f.sha256)) ?? [])
  const sources: LoadedSource[] = []
  const prepared: PreparedSource[] = []
  // one source at a time, so its raw questions can go once they are candidates;
  // the next source is fetched and decoded (in the decoder's thread) meanwhile
  const load = (i: number) => {
    const spec = recipe.sources[i]!
    const p = loadSource(spec, lockedRevision(lock, spec), fetcher, trusted)
    p.catch(() => {}) // awaited below; a failure of the prefetch must not go unobserved meanwhile
    return p
  }
  const AHEAD = 1
  const pending = recipe.sources.slice(0, AHEAD).map((_, i) => load(i))
  for (let i = 0; i < recipe.sources.length; i++) {
    const { questions, ...loaded } = await pending[i]!
    // the settled promise would keep every raw question alive to the end
    pending[i] = undefined as never
    if (i + AHEAD < recipe.sources.length) pending.push(load(i + AHEAD))
    prepared.push(prepareSource(loaded.spec, questions, recipe))
    sources.push({ ...loaded, questions: [] })
  }
  const warnings = lock ? checkAgainstLock(lock, sources) : []
  // an exclusion entry that matches nothing is most likely a typo
  const hits = new Set(prepared.flatMap((p) => [...p.excludedHits]))
  for (const id of recipe.exclude.ids) if (!hits.has(id)) warnings.push(`exclusion list: no upstream question has the id ${id}`)
  for (const text of recipe.exclude.texts)
    if (!hits.has(normalize(text))) warnings.push(`exclusion list: no upstream question has the text ${JSON.stringify(text)}`)
  const { records, drops } = buildFromPrepared(recipe, prepared)
  const jsonl: Record<Split, string> = { test: toJsonl(records.test), val: toJsonl(records.val) }
  const stats = computeStats(records, recipe.sources.map((s) => s.name))
  const hash = recipeHash(recipe)
  const card = renderCard({
    recipe,
    recipeHash: hash,
    builderVersion: BUILDER.version,
    stats,
    drops,
    bytes: { test: Buffer.byteLength(jsonl.test), val: Buffer.byteLength(jsonl.val) },
  })
  const manifest = buildManifest({
    recipe: { name: recipe.name, version: recipe.version, hash, seed: recipe.seed },
    builder: BUILDER,
    sources,
    outputs: [
      { ...describeFile('test.jsonl', jsonl.test), rows: records.test.length },
      { ...describeFile('val.jsonl', jsonl.val), rows: records.val.length },
      describeFile('README.md', card),
    ],
    jsonl,
    stats,
    drops,
  })
  const files = new Map([
    ['test.jsonl', jsonl.test],
    ['val.jsonl', jsonl.val],
    ['README.md', card],
    ['manifest.json', manifestJson(manifest)],
  ])
  return { files, manifest, stats, drops, sources, lock: makeLock(recipe, hash, BUILDER, sources), warnings }
}

export async function buildToDir(recipe: Recipe, fetcher: FileFetcher, outDir: string, options: BuildOptions = {}): Promise<BuiltDataset> {
  // a swap a killed build left half done is put right first, whatever happens next
  await repairOutDir(outDir)
  const built = await buildDataset(recipe, fetcher, options)
  await writeOutDir(outDir, built.files)
  return built
}
