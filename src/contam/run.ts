import type { TrainingQuestion } from '../borrow/related.ts'
import type { FileFetcher } from '../fetch/types.ts'
import { countDrop, type PreparedSource } from '../prepare/prepare.ts'
import type { Recipe } from '../recipe/schema.ts'
import { normalize } from '../util/canonical.ts'
import { ContaminationCheck, type Match } from './check.ts'
import { type FetchedTraining, readTraining, type TrainingLoad } from './load.ts'
import { languageOf, ngramOf } from './report.ts'

export interface ContaminationResult {
  loads: TrainingLoad[]
  /** flagged candidates by record id, over both sides of every checked source */
  matches: Map<string, Match>
  /** per source, each question of its required training files with its options, normalised, in file order (the plausible rule's related options) */
  optionSets: Map<string, TrainingQuestion[]>
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
  const optionSets = new Map<string, TrainingQuestion[]>()
  const loads = await readTraining(
    recipe,
    fetched,
    fetcher,
    (q, t, commit) => {
      // normalised once, for the check and the related options alike
      const normQuestion = normalize(q.question)
      const normOptions = q.options.map(normalize)
      const item = { id: q.id, question: q.question, context: q.context, options: q.options, answer: q.answer, normQuestion, normOptions }
      checkOf(t.source).scan(item, { repo: t.repo, commit, split: t.split, path: t.path, id: q.id })
      // the borrowing reads only files a build cannot do without: an optional one may be missing, and the records must not change with it
      if (t.optional) return
      let sets = optionSets.get(t.source)
      if (!sets) optionSets.set(t.source, (sets = []))
      sets.push({ question: normQuestion, options: normOptions, answer: q.answer })
    },
    trusted,
  )
  const matches = new Map<string, Match>()
  for (const p of prepared) for (const [id, m] of checks.get(p.spec.name)?.matches() ?? []) matches.set(id, m)
  return { loads, matches, optionSets }
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
