import { canonicalJson, compareStrings, normalize } from './canonical.ts'
import { type Candidate, type DropReason, ineligibility, toCandidate } from './eligibility.ts'
import { JevError } from './errors.ts'
import { keyedHash, keyedUnit } from './rng.ts'
import type { Recipe, SourceSpec, Split } from './schema.ts'
import type { UpstreamQuestion } from './sources/adapter.ts'

export type DropCounts = Map<DropReason, number>

export function countDrop(drops: DropCounts, reason: DropReason, n = 1): void {
  drops.set(reason, (drops.get(reason) ?? 0) + n)
}

/** A source's eligible, de-duplicated candidates per side, in selection order. */
export interface PreparedSource {
  spec: SourceSpec
  sides: Record<Split, Candidate[]>
  drops: DropCounts
  /** exclusion-list entries (ids, or normalised texts) that matched a question of this source */
  excludedHits: ReadonlySet<string>
}

/** What an id stands for; the MMLU subject is not part of it (the same row filed under two subjects is one question). */
function sameContent(a: UpstreamQuestion, b: UpstreamQuestion): boolean {
  const pick = (q: UpstreamQuestion) => canonicalJson([q.question, q.context, q.options, q.answer])
  return pick(a) === pick(b)
}

/**
 * Exact repeats of a row share an id and count once; of repeats filed under
 * several subjects, the first subject in code-unit order is kept, whatever
 * order the rows came in. The same id with other content, in any split, is an error.
 */
function collapseRepeats(questions: readonly UpstreamQuestion[], drops: DropCounts): UpstreamQuestion[] {
  const firstById = new Map<string, UpstreamQuestion>()
  const kept = new Map<string, UpstreamQuestion>()
  for (const q of questions) {
    const first = firstById.get(q.id)
    if (!first) firstById.set(q.id, q)
    else if (!sameContent(first, q))
      throw new JevError(
        'DATA',
        `${q.source}: ${first.file} row ${first.row} and ${q.file} row ${q.row} share the id ${q.id} but differ`,
        { source: q.source, file: q.file, row: q.row, field: 'id', id: q.id, otherFile: first.file, otherRow: first.row },
      )
    const key = `${q.split}\u0000${q.id}`
    const held = kept.get(key)
    if (!held) {
      kept.set(key, q)
      continue
    }
    countDrop(drops, 'duplicate_row')
    if (compareStrings(q.subject ?? '', held.subject ?? '') < 0) kept.set(key, q)
  }
  return [...kept.values()]
}

/** Selection order of a candidate on a side: a keyed hash of its identity, ties by id. */
function bySelectionOrder(seed: number, source: string, split: Split) {
  const keys = new Map<Candidate, string>()
  const key = (c: Candidate) => {
    let k = keys.get(c)
    if (k === undefined) keys.set(c, (k = keyedHash(seed, 'select', `${source}\u0000${split}\u0000${c.identity}`)))
    return k
  }
  return (a: Candidate, b: Candidate) => compareStrings(key(a), key(b)) || compareStrings(a.id, b.id)
}

/** Keeps the first candidate of each identity and of each question-plus-context text. */
function dedupe(sorted: readonly Candidate[], drops: DropCounts): Candidate[] {
  const seen = new Set<string>()
  const out: Candidate[] = []
  for (const c of sorted) {
    if (seen.has(c.identity) || seen.has(c.textKey)) {
      countDrop(drops, 'duplicate_question')
      continue
    }
    seen.add(c.identity)
    seen.add(c.textKey)
    out.push(c)
  }
  return out
}

export function prepareSource(spec: SourceSpec, questions: readonly UpstreamQuestion[], recipe: Recipe): PreparedSource {
  const drops: DropCounts = new Map()
  const excludedIds = new Set(recipe.exclude.ids)
  const excludedTexts = new Set(recipe.exclude.texts.map(normalize))
  const all = collapseRepeats(questions, drops).map(toCandidate)
  const excludedHits = new Set<string>()
  const eligible = all.filter((c) => {
    const reason = ineligibility(c, excludedIds, excludedTexts)
    if (reason) countDrop(drops, reason)
    if (reason === 'excluded') for (const key of [c.id, c.normQuestion]) if (excludedIds.has(key) || excludedTexts.has(key)) excludedHits.add(key)
    return reason === null
  })
  const sides: Record<Split, Candidate[]> = { test: [], val: [] }
  if (spec.test.from !== spec.val.from) {
    // a val question must not appear anywhere in the upstream test split
    const inTest = new Set(all.filter((c) => c.split === spec.test.from).flatMap((c) => [c.identity, c.textKey]))
    for (const c of eligible) {
      if (c.split === spec.test.from) sides.test.push(c)
      else if (c.split !== spec.val.from) continue
      else if (inTest.has(c.identity) || inTest.has(c.textKey)) countDrop(drops, 'in_test_split')
      else sides.val.push(c)
    }
  } else {
    // one upstream split feeds both: a keyed hash of the text decides, so repeats land together
    const ratio = spec.test.count / (spec.test.count + spec.val.count || 1)
    for (const c of eligible) {
      if (c.split !== spec.test.from) continue
      sides[keyedUnit(recipe.seed, 'side', `${spec.name}\u0000${c.textKey}`) < ratio ? 'test' : 'val'].push(c)
    }
  }
  for (const split of ['test', 'val'] as const) {
    sides[split] = dedupe(sides[split].sort(bySelectionOrder(recipe.seed, spec.name, split)), drops)
  }
  return { spec, sides, drops, excludedHits }
}

/**
 * Takes each source's count from its side in selection order, skipping
 * candidates already taken (by identity or text) or known to fail.
 */
export function selectSplit(
  prepared: readonly PreparedSource[],
  split: Split,
  taken: Set<string>,
  rejected: ReadonlySet<string>,
  skipped: Map<string, DropCounts> = new Map(),
): Map<string, Candidate[]> {
  const out = new Map<string, Candidate[]>()
  for (const { spec, sides } of prepared) {
    const want = spec[split].count
    const chosen: Candidate[] = []
    for (const c of sides[split]) {
      if (chosen.length === want) break
      if (rejected.has(c.id)) continue
      if (taken.has(c.identity) || taken.has(c.textKey)) {
        // taken already by another source or by the test split
        if (!skipped.has(spec.name)) skipped.set(spec.name, new Map())
        countDrop(skipped.get(spec.name)!, 'duplicate_question')
        continue
      }
      taken.add(c.identity)
      taken.add(c.textKey)
      chosen.push(c)
    }
    if (chosen.length < want)
      throw new JevError(
        'QUOTA',
        `${spec.name}: only ${chosen.length} eligible questions on the ${split} side (from upstream "${spec[split].from}"), the recipe asks for ${want}`,
        { source: spec.name, group: spec.name },
      )
    out.set(spec.name, chosen)
  }
  return out
}
