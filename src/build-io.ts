import type { ZodType } from 'zod'
import { Screen, ScreenedFile } from './borrow/screen.ts'
import { WordVectors } from './borrow/vectors.ts'
import { type BuildOutput, type BuildResources, buildFromPrepared } from './build.ts'
import { checkTrainingAgainstLock, fetchTraining, lockEntries } from './contam/load.ts'
import { type ContaminationSummary, markOf, summarize } from './contam/report.ts'
import { type ContaminationResult, excludeFlagged, findContamination } from './contam/run.ts'
import { type Audit, computeAudit } from './emit/audit.ts'
import { screeningFacts } from './emit/card/screening.ts'
import { CROISSANT_FILE, croissantJson, makesCroissant } from './emit/croissant.ts'
import { renderFigures } from './emit/figures.ts'
import { toJsonl } from './emit/jsonl.ts'
import { JudgedRates } from './emit/judged.ts'
import { buildManifest, datasetHash, type Manifest, manifestJson, recordLines } from './emit/manifest.ts'
import { describeFile, MANIFEST_OUTPUTS, OUTPUTS, type OutputContent, type OutputSpec } from './emit/outputs.ts'
import { provenanceJsonl, provenanceLines } from './emit/provenance.ts'
import { computeStats, type DatasetStats } from './emit/stats.ts'
import { JevError } from './errors.ts'
import type { FileFetcher, SourceFile } from './fetch/types.ts'
import { fetchSource, idFromOf, type LoadedSource, loadSource } from './load-sources.ts'
import { unmatchedExclusions } from './prepare/exclusion-warnings.ts'
import { type DropCounts, type PreparedSource, SourcePreparer } from './prepare/prepare.ts'
import type { PreparedCache } from './prepared-cache/cache.ts'
import { cachedStages, type Stages } from './prepared-cache/hook.ts'
import { pinnedResource, recipeHash } from './recipe/load.ts'
import { checkAgainstLock, type Lock, lockedRevision, makeLock, type PinnedChanges } from './recipe/lock.ts'
import type { Recipe, Split } from './recipe/schema.ts'
import { normalize } from './util/canonical.ts'
import { readRegular } from './util/files.ts'
import { sha256Hex } from './util/hash.ts'
import { NO_PROGRESS, type Progress } from './util/progress.ts'
import { BUILDER } from './version.ts'
import { assertReplaceable, makeOutParent, writeOutDir } from './write/out-dir.ts'
import { repairOutDir } from './write/out-repair.ts'

export interface BuiltDataset {
  /** file name → content, exactly as written to the output folder, in the order of OUTPUTS (src/emit/outputs.ts) */
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

export interface SourceBuildOptions {
  /** frozen: fetch the lock's commits and refuse rows that differ from it */
  lock?: Lock | null
  /** the stages, and each source's rows as they are decoded (default: none) */
  progress?: Progress
  /** the time limit of a decode of bytes the lock does not vouch for (default: by the file's size) */
  decodeTimeoutMs?: number
  /** prepared sources from earlier builds, keyed by their inputs (default: none) */
  preparedCache?: PreparedCache
  /** the "Changes from" figures pinned in the lock (default: `lock`'s; --update-lock passes those of the lock it replaces) */
  pinnedChanges?: PinnedChanges
  /** the lock's file, for the error that says it pins no figures (default: "the recipe's lock") */
  lockPath?: string
}

/**
 * The "Changes from" figures where the recipe types none: the lock's, pinned at release by compare-builds --pin
 * from builds of both versions (no build makes another version). A recipe with neither is refused before any work.
 */
export function pinnedChangesFor(recipe: Recipe, pinned: PinnedChanges | undefined, lockPath?: string): PinnedChanges | undefined {
  const c = recipe.changesFrom
  if (!c || c.bySource) return undefined
  if (pinned?.version === c.version) return pinned
  const lock = lockPath ?? "the recipe's lock"
  throw new JevError(
    'LOCK',
    `changesFrom ${c.version}: the recipe types no figures and ${lock} pins ${pinned ? `those of ${pinned.version}, not` : 'none for'} ${c.version}`,
    {
      ...(lockPath ? { file: lockPath } : {}),
      field: 'changesFrom',
      hint: `pin them once: npm run compare-builds -- PREVIOUS_DIR NEW_DIR --pin (builds of ${c.version} and of this recipe without changesFrom; --recipe FILE for another recipe)`,
    },
  )
}

/** What one build reads from, set up once for its stages. */
interface Run {
  recipe: Recipe
  /** its content hash, which the card, the manifest and the lock state */
  hash: string
  fetcher: FileFetcher
  lock: Lock | null
  progress: Progress
  /** the sha256 of the files the lock vouches for (decoded on the main thread) */
  trusted: ReadonlySet<string>
  decodeTimeoutMs: number | undefined
  /** every warning, in the order the stages give them */
  warnings: string[]
}

/**
 * Everything but the writing: sources in, the output files out, in named stages: load, contamination, resources,
 * the pure middle, render, manifest. The prepared cache wraps the stages it can stand in for (./prepared-cache/hook.ts).
 */
export async function buildFromSources(recipe: Recipe, fetcher: FileFetcher, options: SourceBuildOptions = {}): Promise<BuiltDataset> {
  const lock = options.lock ?? null
  // a lock's figures are this recipe's only where it was written for a recipe of this name (a variant's lock is its own)
  const locked = lock?.recipe.name === recipe.name ? lock.changesFrom : undefined
  const pinned = pinnedChangesFor(recipe, options.pinnedChanges ?? locked, options.lockPath)
  const run: Run = {
    recipe,
    hash: recipeHash(recipe),
    fetcher,
    lock,
    progress: options.progress ?? NO_PROGRESS,
    trusted: new Set([
      ...(lock?.sources.flatMap((s) => s.files.map((f) => f.sha256)) ?? []),
      ...(lock?.contamination?.map((f) => f.sha256) ?? []),
    ]),
    decodeTimeoutMs: options.decodeTimeoutMs,
    warnings: [],
  }
  // every source's files download at once, before the cache's builder identity is worked out
  const downloads = startDownloads(run)
  const plain = plainStages(run)
  const cache = options.preparedCache
  const stages = cache ? await cachedStages(cache, recipe, plain, (w) => run.warnings.push(w)) : plain
  const sources = await loadStage(run, stages, downloads)
  const contamination = await contaminationStage(run, stages, sources.prepared)
  const resources = await resourcesStage(run, contamination)
  run.progress.stage('selecting, borrowing distractors and reshaping')
  const built = await stages.middle(contamination.prepared, resources, contamination.training)
  const rendered = await renderStage(run, stages, sources.loaded, built, contamination.result, resources, pinned)
  return manifestStage(run, sources.loaded, rendered, contamination.result, pinned)
}

/** The plain stages: each does its work (the prepared cache wraps them). */
function plainStages(run: Run): Stages {
  const { recipe, fetcher, lock, trusted, progress } = run
  return {
    async prepare(spec, files) {
      // each question is prepared as its row is decoded, so neither a file's rows nor a source's raw questions are ever all held
      const preparer = new SourcePreparer(spec, recipe)
      const loaded = await loadSource(spec, lockedRevision(lock, spec), fetcher, {
        trusted,
        onQuestion: (q) => preparer.add(q),
        prefetched: files,
        progress,
        ...(run.decodeTimeoutMs === undefined ? {} : { decodeTimeoutMs: run.decodeTimeoutMs }),
      })
      return { loaded, prepared: preparer.finish() }
    },
    contamination: (prepared, fetched) => findContamination(recipe, prepared, fetched, fetcher, trusted),
    middle: async (prepared, resources, _training, memos) => buildFromPrepared(recipe, prepared, memos, resources),
    async card(_outputs, _drops, audit, render) {
      const made = audit()
      return { audit: made, card: await render(made) }
    },
  }
}

/** Every source's files, downloading at once; each awaited in its turn. */
function startDownloads({ recipe, lock, fetcher }: Run): Promise<SourceFile[]>[] {
  return recipe.sources.map((spec) => {
    // a lock that does not fit this source fails in its turn, not while the one before is loading
    const p = Promise.resolve().then(() => fetchSource(spec, lockedRevision(lock, spec), fetcher))
    p.catch(() => {}) // awaited in its turn; a failure meanwhile must not go unobserved
    return p
  })
}

/** Load: the sources one at a time in recipe order, checked against the lock; exclusion entries that match nothing warned of. */
async function loadStage(
  run: Run,
  stages: Stages,
  downloads: readonly Promise<SourceFile[]>[],
): Promise<{ loaded: LoadedSource[]; prepared: PreparedSource[] }> {
  const { recipe, lock, progress, warnings } = run
  const loaded: LoadedSource[] = []
  const prepared: PreparedSource[] = []
  for (const [i, spec] of recipe.sources.entries()) {
    progress.stage(`loading and preparing sources (${i + 1} of ${recipe.sources.length}: ${spec.name})`)
    const got = await stages.prepare(spec, downloads[i]!)
    loaded.push(got.loaded)
    prepared.push(got.prepared)
  }
  if (lock) warnings.push(...checkAgainstLock(lock, loaded))
  // an exclusion entry that matches nothing is most likely a typo
  const hits = new Set(prepared.flatMap((p) => [...p.excludedHits]))
  warnings.push(...unmatchedExclusions(recipe.exclude, hits, normalize))
  return { loaded, prepared }
}

/**
 * Contamination: with a `contamination` section, the candidates checked against the training splits (and flagged
 * ones dropped where the recipe says so); `training`, the sha256 of the required files the plausible rule reads.
 */
async function contaminationStage(
  run: Run,
  stages: Stages,
  prepared: PreparedSource[],
): Promise<{ result: ContaminationResult | null; prepared: PreparedSource[]; training: string[] }> {
  const { recipe, lock } = run
  if (!recipe.contamination) return { result: null, prepared, training: [] }
  run.progress.stage('checking the candidates against the training splits')
  const result = await stages.contamination(prepared, await fetchTraining(recipe, run.fetcher, lock))
  if (lock) run.warnings.push(...checkTrainingAgainstLock(lock, result.loads))
  return {
    result,
    prepared: recipe.contamination.exclude ? excludeFlagged(prepared, result.matches) : prepared,
    training: result.loads.flatMap((l) => (l.checked && !l.entry.optional ? [l.file.sha256] : [])),
  }
}

/** Resources: what the recipe pins besides its sources, and the training splits' questions the borrowing reads. */
async function resourcesStage(
  run: Run,
  { result, prepared }: { result: ContaminationResult | null; prepared: readonly PreparedSource[] },
): Promise<BuildResources> {
  const resources = await readResources(run.recipe)
  if (resources.screen) run.warnings.push(...screenFits(run.recipe, resources.screen, prepared))
  if (result) resources.related = result.related
  return resources
}

interface Rendered {
  jsonl: Record<Split, string>
  stats: DatasetStats
  drops: Map<string, DropCounts>
  audit: Audit
  contamination: ContaminationSummary | undefined
  /** every output of the registry (src/emit/outputs.ts) but the manifest, which describes them */
  content: Map<string, { content: OutputContent; rows?: number }>
}

/** Render: the records and everything said of them as the outputs' text: JSONL, provenance, stats, audit, card, figures, Croissant. */
async function renderStage(
  run: Run,
  stages: Stages,
  sources: readonly LoadedSource[],
  { records, drops, origins }: BuildOutput,
  contamination: ContaminationResult | null,
  resources: BuildResources,
  pinned: PinnedChanges | undefined,
): Promise<Rendered> {
  const { recipe } = run
  const jsonl: Record<Split, string> = { test: toJsonl(records.test), val: toJsonl(records.val) }
  const changes = pinned?.bySource
  const stats = computeStats(
    records,
    recipe.sources.map((s) => s.name),
  )
  const upstream = new Map(sources.map((s) => [s.spec.name, { repo: s.spec.repo, commit: s.commit, idFrom: idFromOf(s.spec) }]))
  const specOf = new Map(recipe.sources.map((s) => [s.name, s]))
  const matches = contamination?.matches
  const provenance = provenanceLines(
    records,
    origins,
    (source) => upstream.get(source)!,
    matches ? (r) => markOf(matches.get(r.id), specOf.get(r.source)!) : undefined,
  )
  const summary = contamination ? summarize(recipe, contamination.loads, provenance) : undefined
  const provenanceText = provenanceJsonl(provenance)
  const judged = judgedFor(recipe, resources.judged, jsonl, run.warnings)
  const screened = recipe.distractors.borrow.plausible.screened
  const screening =
    resources.screen && screened ? screeningFacts(resources.screen.file, screened.path, screened.allowUnscreened === true, origins) : null
  const render = async (audit: Audit) => {
    // card.ts loads the YAML library: only where a card is rendered
    const { renderCard } = await import('./emit/card/card.ts')
    const bytes = { test: Buffer.byteLength(jsonl.test), val: Buffer.byteLength(jsonl.val) }
    return renderCard({
      recipe,
      recipeHash: run.hash,
      builderVersion: BUILDER.version,
      stats,
      drops,
      audit,
      bytes,
      ...(summary ? { contamination: summary } : {}),
      ...(changes ? { changes } : {}),
      ...(judged ? { judged } : {}),
      ...(screening ? { screening } : {}),
    })
  }
  // the card also says which training files were not got, which no output holds; pinned figures are part of what it is made from
  const outputs = [
    jsonl.test,
    jsonl.val,
    provenanceText,
    ...(summary ? [JSON.stringify(summary)] : []),
    ...(changes ? [JSON.stringify(changes)] : []),
  ]
  const { audit, card } = await stages.card(outputs, drops, () => computeAudit(records, provenance, recipe), render)
  const content = new Map<string, { content: OutputContent; rows?: number }>([
    ['test.jsonl', { content: jsonl.test, rows: records.test.length }],
    ['val.jsonl', { content: jsonl.val, rows: records.val.length }],
    ['provenance.jsonl', { content: provenanceText, rows: provenance.length }],
    ['README.md', { content: card }],
    // the card's figures, from the same stats and audit as its tables
    ...renderFigures(stats, audit).map((f): [string, { content: OutputContent }] => [f.name, { content: f.svg }]),
    // Croissant metadata, only when the recipe says who publishes it and when
    ...(makesCroissant(recipe) ? [[CROISSANT_FILE, { content: croissantJson({ recipe, files: jsonl }) }] as const] : []),
  ])
  return { jsonl, stats, drops, audit, contamination: summary, content }
}

/** Manifest: the outputs described, the manifest written last, and the lock this build's inputs make. */
function manifestStage(
  run: Run,
  sources: LoadedSource[],
  { jsonl, stats, drops, audit, contamination, content }: Rendered,
  result: ContaminationResult | null,
  pinned: PinnedChanges | undefined,
): BuiltDataset {
  const { recipe, hash } = run
  /** an optional output the recipe does not ask for is neither written nor listed */
  const isMade = (o: OutputSpec) => !o.optional || content.has(o.name)
  const made = (o: OutputSpec) => {
    const c = content.get(o.name)
    if (!c) throw new Error(`the build makes no content for the output ${o.name}`)
    return c
  }
  const manifest = buildManifest({
    recipe: { name: recipe.name, version: recipe.version, hash, seed: recipe.seed },
    builder: BUILDER,
    sources,
    outputs: MANIFEST_OUTPUTS.filter(isMade).map((o) => ({
      ...describeFile(o.name, made(o).content),
      ...(o.hasRows ? { rows: made(o).rows ?? 0 } : {}),
    })),
    jsonl,
    stats,
    drops,
    audit,
    ...(contamination ? { contamination } : {}),
    // the plausible rule's threshold level per split, which 1.2.0's fallbacks made 1 or more: always its own now
    borrowingLevels: { test: 0, val: 0 },
    ...(pinned ? { changesFrom: pinned } : {}),
  })
  const files = new Map(OUTPUTS.filter(isMade).map((o) => [o.name, o.kind === 'manifest' ? manifestJson(manifest) : made(o).content]))
  return {
    files,
    manifest,
    stats,
    drops,
    sources,
    lock: makeLock(recipe, hash, BUILDER, sources, result ? lockEntries(result.loads) : undefined, pinned),
    warnings: run.warnings,
  }
}

/** The judged rates a card may state: only those judged on these very records (a variant's are not the published version's). */
function judgedFor(
  recipe: Recipe,
  judged: JudgedRates | undefined,
  jsonl: Record<Split, string>,
  warnings: string[],
): JudgedRates | undefined {
  if (!judged) return undefined
  const records = datasetHash({ test: recordLines(jsonl.test), val: recordLines(jsonl.val) })
  if (judged.datasetHash === records) return judged
  warnings.push(
    `${recipe.judged?.path}: judged on other records (dataset ${judged.datasetHash.slice(0, 12)}…, this build ${records.slice(0, 12)}…), so the card states no judged rates; judge this build with jev judge`,
  )
  return undefined
}

/** The files the recipe pins besides its sources, checked against their sha256. */
async function readResources(recipe: Recipe): Promise<BuildResources> {
  const borrow = recipe.distractors.borrow
  const pinned = borrow.plausible.vectors
  const out: BuildResources = {}
  if (pinned) out.vectors = WordVectors.parse(await readPinned(recipe, pinned, 'word vectors'), pinned.path, pinned.sha256)
  const screened = borrow.plausible.screened
  if (screened)
    out.screen = new Screen(
      parsePinnedJson(
        await readPinned(recipe, screened, 'screened candidates'),
        screened.path,
        ScreenedFile,
        'distractors.borrow.plausible.screened',
        'a screened-candidates file',
      ),
    )
  if (recipe.judged)
    out.judged = parsePinnedJson(
      await readPinned(recipe, recipe.judged, 'judged rates'),
      recipe.judged.path,
      JudgedRates,
      'judged',
      'a judged-rates file',
    )
  return out
}

/**
 * Whether the screen is about this recipe's items: one that names none of them is refused (every item would lend
 * nothing, and the quota error that followed would not say why), unless the recipe lets items borrow unscreened;
 * one that names some others is a warning.
 */
function screenFits(recipe: Recipe, screen: Screen, prepared: readonly PreparedSource[]): string[] {
  const borrow = recipe.distractors.borrow
  const file = borrow.plausible.screened?.path ?? 'the screened file'
  const ids = new Set(prepared.flatMap((p) => [...p.sides.test, ...p.sides.val].map((c) => c.id)))
  const strangers = screen.strangers(ids)
  if (strangers.length === 0) return []
  if (strangers.length === screen.size && borrow.plausible.screened?.allowUnscreened)
    return [`${file} screens none of the recipe's items (${screen.size} ids, e.g. ${strangers[0]}); every option is lent unscreened`]
  if (strangers.length === screen.size)
    throw new JevError('RECIPE', `${file} screens none of the recipe's items (${screen.size} ids, e.g. ${strangers[0]})`, {
      file,
      field: 'distractors.borrow.plausible.screened',
      hint: 'the marks were made for other sources or another recipe: screen this one with jev screen',
    })
  return [
    `${file}: ${strangers.length} of its ${screen.size} items are on no side of this recipe (e.g. ${strangers[0]}); they lend nothing`,
  ]
}

/** A file the recipe pins by sha256, next to it. */
async function readPinned(recipe: Recipe, pinned: { path: string; sha256: string }, what: string): Promise<Buffer> {
  const file = pinnedResource(recipe, pinned.path, what)
  let bytes: Buffer
  try {
    bytes = await readRegular(file)
  } catch (e) {
    throw new JevError('IO', `cannot read the recipe's ${what} ${file}: ${(e as Error).message}`, { file }, { cause: e })
  }
  if (sha256Hex(bytes) !== pinned.sha256)
    throw new JevError('LOCK', `${file}: sha256 is ${sha256Hex(bytes)}, the recipe pins ${pinned.sha256}`, {
      file,
      hint: 'the file changed since the recipe pinned it; put its new sha256 in the recipe only if the change is meant',
    })
  return bytes
}

/** A JSON file the recipe pins, checked against its schema; an error names the file, the recipe's field and the place. */
function parsePinnedJson<T>(bytes: Buffer, file: string, schema: ZodType<T>, field: string, what: string): T {
  let json: unknown
  try {
    json = JSON.parse(bytes.toString('utf8'))
  } catch (e) {
    throw new JevError('RECIPE', `${file}: not JSON: ${(e as Error).message}`, { file, field })
  }
  const r = schema.safeParse(json)
  if (!r.success) {
    const issue = r.error.issues[0]
    throw new JevError('RECIPE', `${file}: not ${what}: at $.${issue?.path.join('.')}: ${issue?.message}`, { file, field })
  }
  return r.data
}

export async function buildToDir(
  recipe: Recipe,
  fetcher: FileFetcher,
  outDir: string,
  options: SourceBuildOptions = {},
): Promise<BuiltDataset> {
  // a swap a killed build left half done is put right first, whatever happens next
  await repairOutDir(outDir)
  // before the work, so a wrong --out costs nothing
  await assertReplaceable(outDir)
  const undo = await makeOutParent(outDir)
  let built: BuiltDataset
  try {
    built = await buildFromSources(recipe, fetcher, options)
    options.progress?.stage(`writing ${outDir}/`)
    await writeOutDir(outDir, built.files)
  } catch (e) {
    await undo()
    throw e
  }
  return built
}
