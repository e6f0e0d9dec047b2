import type { FileFetcher } from '../fetch/types.ts'
import { countDrop, type PreparedSource } from '../prepare/prepare.ts'
import type { Recipe } from '../recipe/schema.ts'
import { ContaminationCheck, type Match } from './check.ts'
import { type FetchedTraining, readTraining, type TrainingSplits } from './load.ts'
import { languageOf, ngramOf } from './report.ts'

/** The training splits as read (./load.ts), and the candidates they flag by record id, over both sides of every checked source. */
export interface ContaminationResult extends TrainingSplits {
  matches: Map<string, Match>
}

/**
 * Checks every candidate of every source the recipe's `contamination` lists against that source's
 * training files, decoded one after another; the items' n-grams are held, the training rows are not.
 */
export async function findContamination(
  recipe: Recipe,
  prepared: readonly PreparedSource[],
  fetched: readonly FetchedTraining[],
  fetcher: FileFetcher,
  trusted: ReadonlySet<string>,
): Promise<ContaminationResult> {
  const c = recipe.contamination!
  // a source's check is made when its first training row comes: one whose files were all not got costs nothing
  const checks = new Map<string, ContaminationCheck>()
  const checkOf = (source: string) => {
    let check = checks.get(source)
    if (!check) {
      const p = prepared.find((x) => x.spec.name === source)!
      const language = languageOf(p.spec)
      checks.set(source, (check = new ContaminationCheck([...p.sides.test, ...p.sides.val], language, ngramOf(c, language))))
    }
    return check
  }
  const { loads, related } = await readTraining(recipe, fetched, fetcher, trusted, (q, t, commit) =>
    checkOf(t.source).scan(q, { repo: t.repo, commit, split: t.split, path: t.path, id: q.id }),
  )
  const matches = new Map<string, Match>()
  for (const p of prepared) for (const [id, m] of checks.get(p.spec.name)?.matches() ?? []) matches.set(id, m)
  return { loads, matches, related }
}

/**
 * The sources with flagged candidates taken off their sides and counted as `contaminated`. They still lend
 * wrong options to grown items (the lenders are left as they are, so the lending's cache stays valid): a
 * distractor taken from a question seen in training does not give that question away.
 */
export function excludeFlagged(prepared: readonly PreparedSource[], matches: ReadonlyMap<string, Match>): PreparedSource[] {
  return prepared.map((p) => {
    const drops = new Map(p.drops)
    const keep = (side: readonly PreparedSource['sides']['test'][number][]) =>
      side.filter((cand) => {
        if (!matches.has(cand.id)) return true
        countDrop(drops, 'contaminated')
        return false
      })
    return { ...p, drops, sides: { test: keep(p.sides.test), val: keep(p.sides.val) } }
  })
}
