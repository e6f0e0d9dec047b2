import type { UpstreamQuestion } from '../adapt/adapter.ts'
import { JevError } from '../errors.ts'
import { type Candidate, type DropReason, ineligibility, toCandidate } from '../prepare/eligibility.ts'
import type { Recipe, SourceSpec, Split } from '../recipe/schema.ts'
import { keyedHash, keyedUnit } from '../shape/rng.ts'
import { compareStrings, normalize } from '../util/canonical.ts'
import { sha256Hex } from '../util/hash.ts'

export type DropCounts = Map<DropReason, number>

export function countDrop(drops: DropCounts, reason: DropReason, n = 1): void {
  drops.set(reason, (drops.get(reason) ?? 0) + n)
}

/** A source's eligible, de-duplicated candidates per side, in selection order. */
export interface PreparedSource {
  spec: SourceSpec
  sides: Record<Split, Candidate[]>
  /**
   * Every eligible question on each side, duplicates included: what the
   * borrow pools are made of ("the options of every other eligible question
   * of the same group on the same side"). In no particular order.
   */
  lenders: Record<Split, readonly Candidate[]>
  drops: DropCounts
  /** exclusion-list entries (ids, or normalised texts) that matched a question of this source */
  excludedHits: ReadonlySet<string>
}

/** What an id stands for; the MMLU subject is not part of it (the same row filed under two subjects is one question). */
function sameContent(a: UpstreamQuestion, b: UpstreamQuestion): boolean {
  if (a.question !== b.question || a.context !== b.context || a.answer !== b.answer || a.options.length !== b.options.length) return false
  for (let i = 0; i < a.options.length; i++) if (a.options[i] !== b.options[i]) return false
  return true
}

/** Selection order of a side: a keyed hash of each candidate's identity, ties by id. */
function inSelectionOrder(side: readonly Candidate[], seed: number, source: string, split: Split): Candidate[] {
  return side
    .map((c) => ({ c, k: keyedHash(seed, 'select', `${source}\u0000${split}\u0000${c.identity}`) }))
    .sort((a, b) => compareStrings(a.k, b.k) || compareStrings(a.c.id, b.c.id))
    .map((x) => x.c)
}

/** Keeps the first candidate of each identity and of each question-plus-context text (and context, where asked). */
function dedupe(sorted: readonly Candidate[], drops: DropCounts): Candidate[] {
  const seen = new Set<string>()
  const out: Candidate[] = []
  for (const c of sorted) {
    if (seen.has(c.identity) || seen.has(c.textKey)) {
      countDrop(drops, 'duplicate_question')
      continue
    }
    if (c.contextKey !== undefined && seen.has(c.contextKey)) {
      countDrop(drops, 'duplicate_passage')
      continue
    }
    seen.add(c.identity)
    seen.add(c.textKey)
    if (c.contextKey !== undefined) seen.add(c.contextKey)
    out.push(c)
  }
  return out
}

/** Keys a context apart from identities and text keys, which hash other strings. */
function contextKeyOf(c: Candidate): string {
  return `passage:${sha256Hex(normalize(c.context ?? ''))}`
}

/**
 * Takes a source's questions one at a time, as its files are decoded, so
 * neither the decoded rows nor the raw questions have to be held at once.
 * Exact repeats of a row share an id and count once; of repeats filed under
 * several subjects, the first subject in code-unit order is kept, whatever
 * order the rows came in. The same id with other content, in any split, is an error.
 */
export class SourcePreparer {
  private readonly drops: DropCounts = new Map()
  /** upstream split → id → candidate */
  private readonly bySplit = new Map<string, Map<string, Candidate>>()

  constructor(
    readonly spec: SourceSpec,
    private readonly recipe: Recipe,
  ) {}

  add(q: UpstreamQuestion): void {
    let here: Map<string, Candidate> | undefined
    for (const [split, byId] of this.bySplit) {
      const held = byId.get(q.id)
      if (held && !sameContent(held, q))
        throw new JevError('DATA', `${q.source}: ${held.file} row ${held.row} and ${q.file} row ${q.row} share the id ${q.id} but differ`, {
          source: q.source,
          file: q.file,
          row: q.row,
          field: 'id',
          id: q.id,
          otherFile: held.file,
          otherRow: held.row,
        })
      if (split === q.upstreamSplit) here = byId
    }
    if (!here) this.bySplit.set(q.upstreamSplit, (here = new Map()))
    const held = here.get(q.id)
    if (!held) {
      here.set(q.id, toCandidate(q))
      return
    }
    countDrop(this.drops, 'duplicate_row')
    if (compareStrings(q.subject ?? '', held.subject ?? '') < 0) held.subject = q.subject
    // the provenance names one file: the first in code-unit order, whatever order the files came in
    if (compareStrings(q.file, held.file) < 0) {
      held.file = q.file
      held.row = q.row
    }
  }

  /** The source's sides in selection order; the preparer is spent. */
  finish(): PreparedSource {
    const { spec, recipe, drops } = this
    const excludedIds = new Set(recipe.exclude.ids)
    const excludedTexts = new Set(recipe.exclude.texts.map(normalize))
    const excludedHits = new Set<string>()
    const eligible: Candidate[] = []
    // splits in code-unit order, so nothing below depends on which file came first
    const splits = [...this.bySplit.keys()].sort(compareStrings)
    for (const split of splits)
      for (const c of this.bySplit.get(split)!.values()) {
        const reason = ineligibility(c, excludedIds, excludedTexts)
        if (reason === null) {
          eligible.push(c)
          continue
        }
        countDrop(drops, reason)
        if (reason === 'excluded')
          for (const key of [c.id, c.normQuestion]) if (excludedIds.has(key) || excludedTexts.has(key)) excludedHits.add(key)
      }
    const sides: Record<Split, Candidate[]> = { test: [], val: [] }
    if (spec.test.from !== spec.val.from) {
      // a val question must not appear anywhere in the upstream test split (eligible or not);
      // the val side's keys are the smaller set to hold
      const valKeys = new Set<string>()
      for (const c of eligible) if (c.upstreamSplit === spec.val.from) valKeys.add(c.identity).add(c.textKey)
      const inTest = new Set<string>()
      for (const c of this.bySplit.get(spec.test.from)?.values() ?? []) {
        if (valKeys.has(c.identity)) inTest.add(c.identity)
        if (valKeys.has(c.textKey)) inTest.add(c.textKey)
      }
      for (const c of eligible) {
        if (c.upstreamSplit === spec.test.from) sides.test.push(c)
        else if (c.upstreamSplit !== spec.val.from) continue
        else if (inTest.has(c.identity) || inTest.has(c.textKey)) countDrop(drops, 'in_test_split')
        else sides.val.push(c)
      }
    } else {
      for (const c of eligible) if (c.upstreamSplit === spec.test.from) sides[sideOf(spec, recipe.seed, c)].push(c)
    }
    this.bySplit.clear()
    if (spec.onePerContext) for (const c of [...sides.test, ...sides.val]) c.contextKey = contextKeyOf(c)
    const lenders = { test: sides.test, val: sides.val }
    for (const split of ['test', 'val'] as const)
      sides[split] = dedupe(inSelectionOrder(sides[split], recipe.seed, spec.name, split), drops)
    return { spec, sides, lenders, drops, excludedHits }
  }
}

/**
 * The side a question of a source whose two sides come from one upstream
 * split goes to: a keyed hash of its text, in the ratio of the two counts, so
 * repeats land together.
 */
export function sideOf(spec: SourceSpec, seed: number, c: Pick<Candidate, 'textKey'>): Split {
  const ratio = spec.test.count / (spec.test.count + spec.val.count || 1)
  return keyedUnit(seed, 'side', `${spec.name}\u0000${c.textKey}`) < ratio ? 'test' : 'val'
}

export function prepareSource(spec: SourceSpec, questions: Iterable<UpstreamQuestion>, recipe: Recipe): PreparedSource {
  const preparer = new SourcePreparer(spec, recipe)
  for (const q of questions) preparer.add(q)
  return preparer.finish()
}
