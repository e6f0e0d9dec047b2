/**
 * What a recipe's build would consider lending: its sources loaded and prepared as the build does (lock-trusted
 * bytes, contamination's exclusions and training options, the pinned word vectors), then the build run in memory
 * with the recipe's screen left out, keeping each selected item's ranked candidates. These are the lists a
 * screening reviewer marks.
 */
import { groupOf } from '../borrow/groups.ts'
import { WordVectors } from '../borrow/vectors.ts'
import { type BuildResources, buildFromPrepared, type LendingMemos } from '../build.ts'
import { fetchTraining } from '../contam/load.ts'
import { excludeFlagged, findContamination } from '../contam/run.ts'
import { JevError } from '../errors.ts'
import type { FileFetcher } from '../fetch/types.ts'
import { loadSource } from '../load-sources.ts'
import { type PreparedSource, SourcePreparer } from '../prepare/prepare.ts'
import { recipeResource } from '../recipe/load.ts'
import { type Lock, lockedRevision } from '../recipe/lock.ts'
import type { Recipe } from '../recipe/schema.ts'
import { compareStrings, normalize } from '../util/canonical.ts'
import { readRegular } from '../util/files.ts'
import { NO_PROGRESS, type Progress } from '../util/progress.ts'
import type { ScreenItem } from './screen-sheets.ts'

export interface BuildInputs {
  recipe: Recipe
  prepared: PreparedSource[]
  resources: BuildResources
}

/** The recipe's sources prepared and its pinned inputs read, as buildFromSources reads them (no cache). */
export async function readBuildInputs(
  recipe: Recipe,
  fetcher: FileFetcher,
  lock: Lock | null,
  progress: Progress = NO_PROGRESS,
): Promise<BuildInputs> {
  const trusted = new Set([
    ...(lock?.sources.flatMap((s) => s.files.map((f) => f.sha256)) ?? []),
    ...(lock?.contamination?.map((f) => f.sha256) ?? []),
  ])
  let prepared: PreparedSource[] = []
  for (const [i, spec] of recipe.sources.entries()) {
    progress.stage(`loading and preparing sources (${i + 1} of ${recipe.sources.length}: ${spec.name})`)
    const preparer = new SourcePreparer(spec, recipe)
    await loadSource(spec, lockedRevision(lock, spec), fetcher, { trusted, onQuestion: (q) => preparer.add(q), progress })
    prepared.push(preparer.finish())
  }
  const resources: BuildResources = {}
  if (recipe.contamination) {
    progress.stage('reading the training splits')
    const found = await findContamination(recipe, prepared, await fetchTraining(recipe, fetcher, lock), fetcher, trusted)
    if (recipe.contamination.exclude) prepared = excludeFlagged(prepared, found.matches)
    resources.related = found.related
  }
  const pinned = recipe.distractors.borrow.plausible?.vectors
  if (pinned) {
    const file = recipeResource(recipe, pinned.path)
    const bytes = await readRegular(file).catch((e: unknown) => {
      throw new JevError('IO', `cannot read the recipe's word vectors ${file}: ${(e as Error).message}`, { file })
    })
    resources.vectors = WordVectors.parse(bytes, file, pinned.sha256)
  }
  return { recipe, prepared, resources }
}

/**
 * Every selected item the build would let borrow, with its ranked candidates (none screened out), in source,
 * split and id order. RECIPE for a recipe without the plausible rule, which no reviewer screens.
 */
export function candidateItems({ recipe, prepared, resources }: BuildInputs): ScreenItem[] {
  const borrow = recipe.distractors.borrow
  const plausible = borrow.plausible
  if (!plausible)
    throw new JevError(
      'RECIPE',
      'the recipe has no plausible rule (distractors.borrow.plausible): there is nothing for reviewers to screen',
      {
        field: 'distractors.borrow.plausible',
      },
    )
  const unscreened: Recipe = {
    ...recipe,
    distractors: { ...recipe.distractors, borrow: { ...borrow, plausible: { ...plausible, screened: undefined } } },
  }
  const memos: LendingMemos = new Map()
  const { screen: _, ...rest } = resources
  const built = buildFromPrepared(unscreened, prepared, memos, rest)
  const items: ScreenItem[] = []
  for (const split of ['test', 'val'] as const) {
    const chosen = new Set(built.records[split].map((r) => r.id))
    for (const p of prepared)
      for (const c of p.sides[split]) {
        if (!chosen.has(c.id)) continue
        const list = memos.get(`${p.spec.name}\u0000${split}\u0000${groupOf(p.spec, c)}`)?.get(c.id)
        if (!list?.length) continue
        items.push({
          id: c.id,
          split,
          source: p.spec.name,
          question: c.question,
          context: c.context,
          options: c.options,
          answer: c.answer,
          candidates: list.map((b) => ({ ...b, norm: normalize(b.text) })),
        })
      }
  }
  return items.sort((a, b) => compareStrings(a.source, b.source) || compareStrings(a.split, b.split) || compareStrings(a.id, b.id))
}
