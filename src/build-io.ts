import type { ZodType } from 'zod'
import type { UpstreamQuestion } from './adapt/adapter.ts'
import { Screen, ScreenedFile } from './borrow/screen.ts'
import { WordVectors } from './borrow/vectors.ts'
import { type BuildResources, buildFromPrepared } from './build.ts'
import { computesChanges, PreviousBuild, type PreviousRecipe } from './check/previous-build.ts'
import { checkTrainingAgainstLock, fetchTraining, lockEntries } from './contam/load.ts'
import { type ContaminationSummary, markOf, summarize } from './contam/report.ts'
import { type ContaminationResult, excludeFlagged, findContamination } from './contam/run.ts'
import { type Audit, computeAudit } from './emit/audit.ts'
import { CROISSANT_FILE, croissantJson, makesCroissant } from './emit/croissant.ts'
import { renderFigures } from './emit/figures.ts'
import { toJsonl } from './emit/jsonl.ts'
import { JudgedRates } from './emit/judged.ts'
import { buildManifest, type Manifest, manifestJson } from './emit/manifest.ts'
import { describeFile, MANIFEST_OUTPUTS, OUTPUTS, type OutputContent, type OutputSpec } from './emit/outputs.ts'
import { provenanceJsonl, provenanceLines } from './emit/provenance.ts'
import { computeStats, type DatasetStats } from './emit/stats.ts'
import { JevError } from './errors.ts'
import type { FileFetcher } from './fetch/types.ts'
import { fetchSource, idFromOf, type LoadedSource, loadSource } from './load-sources.ts'
import { unmatchedExclusions } from './prepare/exclusion-warnings.ts'
import { type DropCounts, type PreparedSource, SourcePreparer } from './prepare/prepare.ts'
import { builderId } from './prepared-cache/builder-id.ts'
import type { PreparedCache } from './prepared-cache/cache.ts'
import { cardCached, contaminationCached, loadPrepared, readLendingMemos, writeLendingMemos } from './prepared-cache/hook.ts'
import { pinnedResource, recipeHash } from './recipe/load.ts'
import { checkAgainstLock, type Lock, lockedRevision, makeLock } from './recipe/lock.ts'
import type { Recipe, Split } from './recipe/schema.ts'
import { canonicalJson, normalize } from './util/canonical.ts'
import { readRegular } from './util/files.ts'
import { sha256Hex } from './util/hash.ts'
import { NO_PROGRESS, type Progress } from './util/progress.ts'
import { BUILDER } from './version.ts'
import { assertReplaceable, makeOutParent, writeOutDir } from './write/out-dir.ts'
import { repairOutDir } from './write/out-repair.ts'

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

export interface SourceBuildOptions {
  /** frozen: fetch the lock's commits and refuse rows that differ from it */
  lock?: Lock | null
  /** the stages, and each source's rows as they are decoded (default: none) */
  progress?: Progress
  /** the time limit of a decode of bytes the lock does not vouch for (default: by the file's size) */
  decodeTimeoutMs?: number
  /** prepared sources from earlier builds, keyed by their inputs (default: none) */
  preparedCache?: PreparedCache
  /**
   * the recipe `changesFrom.recipe` names, with its own lock: when the recipe types no figures, its
   * records are built too, from the same inputs where it pins the same files, and compared (default: none)
   */
  previous?: PreviousRecipe
}

export { computesChanges, type PreviousRecipe }

/** Everything but the writing: sources in, the output files out. */
export async function buildFromSources(recipe: Recipe, fetcher: FileFetcher, options: SourceBuildOptions = {}): Promise<BuiltDataset> {
  const lock = options.lock ?? null
  const progress = options.progress ?? NO_PROGRESS
  const previous = options.previous && computesChanges(recipe) ? options.previous : null
  if (!previous && computesChanges(recipe))
    throw new JevError(
      'RECIPE',
      `changesFrom ${recipe.changesFrom!.version} gives no bySource figures, so the build needs that version's recipe (${recipe.changesFrom!.recipe}) to compute them`,
      { field: 'changesFrom.bySource' },
    )
  const prevLock = previous?.lock ?? null
  const trusted = new Set([
    ...[lock, prevLock].flatMap((l) => l?.sources.flatMap((s) => s.files.map((f) => f.sha256)) ?? []),
    ...(lock?.contamination?.map((f) => f.sha256) ?? []),
  ])
  const sources: LoadedSource[] = []
  let prepared: PreparedSource[] = []
  // every source's files download at once, while the sources are loaded one at a time, each question
  // prepared as its row is decoded, so neither a file's rows nor a source's raw questions are ever all held
  const downloads = recipe.sources.map((spec) => {
    // a lock that does not fit this source fails in its turn, not while the one before is loading
    const p = Promise.resolve().then(() => fetchSource(spec, lockedRevision(lock, spec), fetcher))
    p.catch(() => {}) // awaited in its turn; a failure meanwhile must not go unobserved
    return p
  })
  const cache = options.preparedCache
  const builder = cache ? await builderId() : null
  const use = cache && builder ? { cache, builder } : null
  /** source → its prepared entry's key, for the lending's entries */
  const keys = new Map<string, string>()
  // the previous recipe's build, for the "Changes from" figures; its sources share this build's reads where they can
  const before = previous ? new PreviousBuild(previous, lock, fetcher, trusted, progress, use) : null
  for (const [i, spec] of recipe.sources.entries()) {
    progress.stage(`loading and preparing sources (${i + 1} of ${recipe.sources.length}: ${spec.name})`)
    const fetching = downloads[i]!
    const load = (take: (q: UpstreamQuestion) => void, files = fetching) =>
      loadSource(spec, lockedRevision(lock, spec), fetcher, {
        trusted,
        onQuestion: take,
        prefetched: files,
        progress,
        ...(options.decodeTimeoutMs === undefined ? {} : { decodeTimeoutMs: options.decodeTimeoutMs }),
      })
    if (use) {
      // the files are read and hashed whether or not the entry is there: the key holds their sha256
      const files = await fetching
      // a decode takes the files' bytes over; the previous build needs only their hashes, or a fresh read
      before?.share(spec, { files: [...files], again: () => fetchSource(spec, lockedRevision(lock, spec), fetcher), load })
      const got = await loadPrepared(spec, recipe, files, use, (take) => load(take, Promise.resolve(files)))
      sources.push(got.loaded)
      prepared.push(got.prepared)
      keys.set(spec.name, got.key)
      continue
    }
    const preparer = new SourcePreparer(spec, recipe)
    const twin = before?.preparerFor(spec) ?? null
    const loaded = await load(
      twin
        ? (q) => {
            preparer.add(q)
            twin.add(q)
          }
        : (q) => preparer.add(q),
    )
    twin?.done(loaded)
    sources.push(loaded)
    prepared.push(preparer.finish())
  }
  const warnings = lock ? checkAgainstLock(lock, sources) : []
  // an exclusion entry that matches nothing is most likely a typo
  const hits = new Set(prepared.flatMap((p) => [...p.excludedHits]))
  warnings.push(...unmatchedExclusions(recipe.exclude, hits, normalize))
  let contamination: ContaminationResult | null = null
  if (recipe.contamination) {
    progress.stage('checking the candidates against the training splits')
    const fetched = await fetchTraining(recipe, fetcher, lock)
    const find = () => findContamination(recipe, prepared, fetched, fetcher, trusted)
    contamination = use ? await contaminationCached(use, recipe, keys, fetched, find) : await find()
    if (lock) warnings.push(...checkTrainingAgainstLock(lock, contamination.loads))
    if (recipe.contamination.exclude) prepared = excludeFlagged(prepared, contamination.matches)
  }
  progress.stage('selecting, borrowing distractors and reshaping')
  // the training files the plausible rule reads are part of what the lending works out
  const training = contamination?.loads.flatMap((l) => (l.checked && !l.entry.optional ? [l.file.sha256] : [])) ?? []
  const lending = use ? await readLendingMemos(use.cache, recipe, keys, training) : null
  const resources = await readResources(recipe)
  if (resources.screen) warnings.push(...screenFits(recipe, resources.screen, prepared))
  if (contamination) resources.related = contamination.optionSets
  const { records, drops, origins, levels } = buildFromPrepared(recipe, prepared, lending?.memos, resources)
  if (use && lending) await writeLendingMemos(use.cache, recipe, keys, lending.memos, lending.sizes, training)
  const jsonl: Record<Split, string> = { test: toJsonl(records.test), val: toJsonl(records.val) }
  const changes = before
    ? await before.changes(
        jsonl,
        recipe.sources.map((s) => s.name),
        warnings,
        await previousResources(before.previous.recipe, recipe, contamination),
        training,
      )
    : undefined
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
  const contaminationSummary: ContaminationSummary | undefined = contamination
    ? summarize(recipe, contamination.loads, provenance)
    : undefined
  const provenanceText = provenanceJsonl(provenance)
  const hash = recipeHash(recipe)
  const render = async (audit: Audit) => {
    // card.ts loads the YAML library: only where a card is rendered
    const { renderCard } = await import('./emit/card/card.ts')
    const bytes = { test: Buffer.byteLength(jsonl.test), val: Buffer.byteLength(jsonl.val) }
    return renderCard({
      recipe,
      recipeHash: hash,
      builderVersion: BUILDER.version,
      stats,
      drops,
      audit,
      bytes,
      ...(contaminationSummary ? { contamination: contaminationSummary } : {}),
      ...(changes ? { changes } : {}),
      ...(levels ? { levels } : {}),
      ...(resources.judged ? { judged: resources.judged } : {}),
    })
  }
  const makeCard = async () => {
    const audit = computeAudit(records, provenance, recipe)
    return { audit, card: await render(audit) }
  }
  // the card also says which training files were not got, which no output holds; computed figures are part of what it is made from
  const outputs = [
    jsonl.test,
    jsonl.val,
    provenanceText,
    ...(contaminationSummary ? [JSON.stringify(contaminationSummary)] : []),
    ...(changes ? [JSON.stringify(changes)] : []),
  ]
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
    // Croissant metadata, only when the recipe says who publishes it and when
    ...(makesCroissant(recipe) ? [[CROISSANT_FILE, { content: croissantJson({ recipe, files: jsonl }) }] as const] : []),
  ])
  /** an optional output the recipe does not ask for is neither written nor listed */
  const isMade = (o: OutputSpec) => !o.optional || content.has(o.name)
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
    outputs: MANIFEST_OUTPUTS.filter(isMade).map((o) => ({
      ...describeFile(o.name, contentOf(o)),
      ...(o.hasRows ? { rows: rowsOf(o) } : {}),
    })),
    jsonl,
    stats,
    drops,
    audit,
    ...(contaminationSummary ? { contamination: contaminationSummary } : {}),
    ...(levels ? { borrowingLevels: levels } : {}),
    ...(changes && recipe.changesFrom ? { changesFrom: { version: recipe.changesFrom.version, bySource: changes } } : {}),
  })
  const files = new Map(OUTPUTS.filter(isMade).map((o) => [o.name, o.kind === 'manifest' ? manifestJson(manifest) : contentOf(o)]))
  return {
    files,
    manifest,
    stats,
    drops,
    sources,
    lock: makeLock(recipe, hash, BUILDER, sources, contamination ? lockEntries(contamination.loads) : undefined),
    warnings,
  }
}

/** The files the recipe pins besides its sources, checked against their sha256 (the judged rates only for the card). */
async function readResources(recipe: Recipe, forCard = true): Promise<BuildResources> {
  const borrow = recipe.distractors.borrow
  const pinned = borrow.rule === 'similar' ? borrow.plausible?.vectors : undefined
  const out: BuildResources = {}
  if (pinned) out.vectors = WordVectors.parse(await readPinned(recipe, pinned, 'word vectors'), pinned.path, pinned.sha256)
  const screened = borrow.rule === 'similar' ? borrow.plausible?.screened : undefined
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
  if (forCard && recipe.judged)
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
 * nothing, and the quota error that followed would not say why); one that names some others is a warning.
 */
function screenFits(recipe: Recipe, screen: Screen, prepared: readonly PreparedSource[]): string[] {
  const borrow = recipe.distractors.borrow
  const file = (borrow.rule === 'similar' && borrow.plausible?.screened?.path) || 'the screened file'
  const ids = new Set(prepared.flatMap((p) => [...p.sides.test, ...p.sides.val].map((c) => c.id)))
  const strangers = screen.strangers(ids)
  if (strangers.length === 0) return []
  if (strangers.length === screen.size)
    throw new JevError('RECIPE', `${file} screens none of the recipe's items (${screen.size} ids, e.g. ${strangers[0]})`, {
      file,
      field: 'distractors.borrow.plausible.screened',
      hint: 'the screen was made for other sources or another recipe: draw it anew with npm run screen',
    })
  return [
    `${file}: ${strangers.length} of its ${screen.size} items are on no side of this recipe (e.g. ${strangers[0]}); they lend nothing`,
  ]
}

/**
 * What the previous recipe's build reads besides its sources: the files it pins, and this build's training
 * options where its plausible rule reads them (both recipes must name the same training files).
 */
async function previousResources(previous: Recipe, recipe: Recipe, contamination: ContaminationResult | null): Promise<BuildResources> {
  const out = await readResources(previous, false)
  const borrow = previous.distractors.borrow
  if (borrow.rule !== 'similar' || !borrow.plausible?.related) return out
  if (!contamination || canonicalJson(previous.contamination?.against) !== canonicalJson(recipe.contamination?.against))
    throw new JevError(
      'RECIPE',
      `${previous.name} ${previous.version} reads other training files than this recipe's contamination.against, and its build (for the "Changes from" figures) needs them`,
      { field: 'changesFrom' },
    )
  out.related = contamination.optionSets
  return out
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
