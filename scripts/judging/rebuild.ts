// Rebuilds a recipe in memory with the builder's own code, from a mirror, keeping each selected item's ranked
// lending candidates (what buildFromPrepared's memos hold): the lists the screening sheets show.
import { readFileSync } from 'node:fs'
import { groupOf } from '../../src/borrow/groups.ts'
import type { Borrowed } from '../../src/borrow/lend.ts'
import { WordVectors } from '../../src/borrow/vectors.ts'
import { type BuildResources, buildFromPrepared, type LendingMemos } from '../../src/build.ts'
import { fetchTraining, readTraining } from '../../src/contam/load.ts'
import { toJsonl } from '../../src/emit/jsonl.ts'
import { createMirrorFetcher } from '../../src/fetch/mirror.ts'
import { loadSource } from '../../src/load-sources.ts'
import { type PreparedSource, SourcePreparer } from '../../src/prepare/prepare.ts'
import { loadRecipe, recipeResource } from '../../src/recipe/load.ts'
import { lockedRevision, lockPathFor, readLock } from '../../src/recipe/lock.ts'
import type { Recipe, Split } from '../../src/recipe/schema.ts'
import { compareStrings, normalize } from '../../src/util/canonical.ts'

export interface CandidateItem {
  id: string
  split: Split
  source: string
  question: string
  context: string | null
  options: string[]
  answer: number
  candidates: (Borrowed & { norm: string })[]
}

/** What buildFromPrepared needs for a recipe, read from a mirror the way the build reads it (lock-trusted files, required training splits). */
export async function loadBuildInputs(
  recipePath: string,
  mirror: string,
): Promise<{ recipe: Recipe; prepared: PreparedSource[]; resources: BuildResources }> {
  const recipe = await loadRecipe(recipePath)
  const borrow = recipe.distractors.borrow
  if (!borrow.plausible.vectors) throw new Error(`${recipePath}: no plausible rule with word vectors`)
  const pinned = borrow.plausible.vectors
  const lock = await readLock(lockPathFor(recipePath))
  const fetcher = createMirrorFetcher(mirror)
  const trusted = new Set([
    ...(lock?.sources.flatMap((s) => s.files.map((f) => f.sha256)) ?? []),
    ...(lock?.contamination?.map((f) => f.sha256) ?? []),
  ])
  const prepared: PreparedSource[] = []
  for (const spec of recipe.sources) {
    const preparer = new SourcePreparer(spec, recipe)
    await loadSource(spec, lockedRevision(lock, spec), fetcher, { trusted, onQuestion: (q) => preparer.add(q) })
    prepared.push(preparer.finish())
  }
  // the plausible rule's related questions, read as the build reads them
  const { related } = await readTraining(recipe, await fetchTraining(recipe, fetcher, lock), fetcher, trusted)
  const vectors = WordVectors.parse(readFileSync(recipeResource(recipe, pinned.path)), pinned.path, pinned.sha256)
  return { recipe, prepared, resources: { vectors, related } }
}

/**
 * The recipe's selected items that can borrow, each with its ranked candidates (the recipe's screen, if any, left
 * out); `identical` says whether that rebuild is out/ (null for a screened recipe, whose out/ it cannot be).
 */
export async function rebuildWithCandidates(
  recipePath: string,
  mirror: string,
): Promise<{ items: CandidateItem[]; identical: boolean | null }> {
  const { recipe, prepared, resources } = await loadBuildInputs(recipePath, mirror)
  const borrow = recipe.distractors.borrow
  const plausible = borrow.plausible
  const unscreened = {
    ...recipe,
    distractors: { ...recipe.distractors, borrow: { ...borrow, plausible: { ...plausible, screened: undefined } } },
  }
  const memos: LendingMemos = new Map()
  const built = buildFromPrepared(unscreened, prepared, memos, resources)
  const out = recipeResource(recipe, '../out')
  const identical = plausible.screened
    ? null
    : (['test', 'val'] as const).every((s) => {
        try {
          return toJsonl(built.records[s]) === readFileSync(`${out}/${s}.jsonl`, 'utf8')
        } catch {
          return false
        }
      })
  const items: CandidateItem[] = []
  for (const split of ['test', 'val'] as const) {
    const chosen = new Set(built.records[split].map((r) => r.id))
    for (const p of prepared)
      for (const c of p.sides[split]) {
        if (!chosen.has(c.id)) continue
        const list = memos.get(`${p.spec.name}\u0000${split}\u0000${groupOf(p.spec, c)}`)?.get(c.id)
        if (!list) continue
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
  items.sort((a, b) => compareStrings(a.source, b.source) || compareStrings(a.split, b.split) || compareStrings(a.id, b.id))
  return { items, identical }
}
