import { screeningNeeded, uncoveredItems } from './borrow/coverage.ts'
import { groupOf, groupsOf } from './borrow/groups.ts'
import { type Borrowed, type Lending, similarLending } from './borrow/lend.ts'
import { dealLongest, type LengthItem, longestCredit } from './borrow/length-cue.ts'
import { negationTest } from './borrow/negation.ts'
import { RelatedOptions, type TrainingQuestion } from './borrow/related.ts'
import type { Screen } from './borrow/screen.ts'
import type { WordVectors } from './borrow/vectors.ts'
import type { JudgedRates } from './emit/judged.ts'
import type { DataRecord } from './emit/schema.ts'
import { JevError } from './errors.ts'
import type { Candidate, DropReason } from './prepare/eligibility.ts'
import { countDrop, type DropCounts, type PreparedSource } from './prepare/prepare.ts'
import type { Recipe, Split } from './recipe/schema.ts'
import { assignQuotas } from './select/quota.ts'
import { selectSplit } from './select/select.ts'
import { dealPositions } from './shape/deal.ts'
import { allDistinct, type Origin, reshape } from './shape/reshape.ts'
import { keyedHash } from './shape/rng.ts'
import { compareStrings } from './util/canonical.ts'

export interface BuildOutput {
  records: Record<Split, DataRecord[]>
  /** per source, per reason; sources in recipe order */
  drops: Map<string, DropCounts>
  /** record id → the upstream file it was read from and where each choice came from */
  origins: Map<string, { file: string; choices: Origin[] }>
}

const MAX_ROUNDS = 20

function groupKey(source: string, split: Split, group: string): string {
  return `${source}\u0000${split}\u0000${group}`
}

/** What the recipe pins besides its sources, read at the edge: the plausible rule's word vectors and screen, the card's judged rates, the training splits' questions. */
export interface BuildResources {
  vectors?: WordVectors
  /** the reviewers' screening of the plausible rule's candidates */
  screen?: Screen
  /** the blind hand-judged rates the card states (not read by the middle) */
  judged?: JudgedRates
  /** per source, its required training files' questions, normalised: `readTraining`'s `related` (src/contam/load.ts) */
  related?: ReadonlyMap<string, readonly TrainingQuestion[]>
}

/** Per group's side (`source\0split\0group`), each item's lending candidates by id: what similarLending works out and can be given back. */
export type LendingMemos = Map<string, Map<string, Borrowed[]>>

/**
 * The pure middle of the builder: prepared sources in, records out. Nothing here depends on row order, the
 * clock or the locale. `memos` holds what an earlier build of the same sources and recipe worked out, and
 * receives what this one works out.
 */
export function buildFromPrepared(
  recipe: Recipe,
  prepared: readonly PreparedSource[],
  memos: LendingMemos = new Map(),
  resources: BuildResources = {},
): BuildOutput {
  const plausible = recipe.distractors.borrow.plausible
  if (plausible.vectors && !resources.vectors)
    throw new JevError('RECIPE', 'the recipe names word vectors (distractors.borrow.plausible.vectors) that were not read', {
      field: 'distractors.borrow.plausible.vectors',
    })
  if (plausible.screened && !resources.screen)
    throw new JevError('RECIPE', 'the recipe names screened candidates (distractors.borrow.plausible.screened) that were not read', {
      field: 'distractors.borrow.plausible.screened',
    })
  if (plausible.related && !recipe.contamination)
    throw new JevError(
      'RECIPE',
      'distractors.borrow.plausible.related reads the training splits of `contamination`, which the recipe does not have',
      { field: 'distractors.borrow.plausible.related' },
    )
  // items no mark covers lend nothing, unless the recipe lets them borrow unscreened
  const screen = resources.screen && plausible.screened?.allowUnscreened ? resources.screen.opened() : resources.screen
  const lendingOf = lendings(recipe, prepared, memos, { ...resources, screen })
  const isNegative = negationTest(recipe)
  // a negative question is never grown: an off-topic option would be a right answer there
  const held = (p: PreparedSource, c: Candidate) => p.spec.fixedChoices !== undefined || isNegative(p.spec, c.normQuestion)

  const rejected = new Set<string>()
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const taken = new Set<string>()
    const skipped = new Map<string, DropCounts>()
    const records: Record<Split, DataRecord[]> = { test: [], val: [] }
    const origins: BuildOutput['origins'] = new Map()
    const failed: Candidate[] = []
    for (const split of ['test', 'val'] as const) {
      const selected = selectSplit(prepared, split, taken, rejected, skipped)
      const items = prepared.flatMap((p) =>
        selected.get(p.spec.name)!.map((c) => ({ p, c, lending: lendingOf.get(groupKey(p.spec.name, split, groupOf(p.spec, c))) })),
      )
      const deal = (capacityOf: (p: PreparedSource, c: Candidate, lending: Lending | undefined) => number) =>
        assignQuotas(
          items.map(({ p, c, lending }) => ({
            id: c.id,
            key: c.identity,
            group: `${p.spec.name}/${groupOf(p.spec, c)}`,
            capacity: capacityOf(p, c, lending),
            fixed: p.spec.fixedChoices,
          })),
          recipe.quotas[split],
          recipe.seed,
          split,
        )
      const own = (c: Candidate) => Math.min(8, c.options.length)
      let counts: Map<string, number>
      try {
        counts = deal((p, c, lending) => (held(p, c) ? own(c) : (lending?.capacity(c) ?? own(c))))
      } catch (e) {
        // a table the screen cannot meet because it does not cover the selected items: say so, not that the groups are
        // short; but only where screening them could meet it, that is, where it is met once they may borrow unscreened
        if (e instanceof JevError && e.code === 'QUOTA' && screen && !plausible.screened?.allowUnscreened) {
          const open = lendings(recipe, prepared, new Map(), { ...resources, screen: undefined })
          const openCapacity = (p: PreparedSource, c: Candidate) =>
            open.get(groupKey(p.spec.name, split, groupOf(p.spec, c)))?.capacity(c) ?? 0
          const uncovered = uncoveredItems(
            items.map(({ p, c }) => ({ c, held: held(p, c), unscreenedCapacity: () => openCapacity(p, c) })),
            screen,
          )
          const unscreened = new Set(uncovered)
          const screeningMeetsIt = () => {
            try {
              deal((p, c, lending) => (held(p, c) ? own(c) : unscreened.has(c.id) ? openCapacity(p, c) : (lending?.capacity(c) ?? own(c))))
              return true
            } catch (again) {
              if (again instanceof JevError && again.code === 'QUOTA') return false
              throw again
            }
          }
          if (uncovered.length && screeningMeetsIt()) throw screeningNeeded(split, uncovered, items.length)
        }
        throw e
      }
      const dealt =
        recipe.placement === 'dealt'
          ? dealPositions(
              items
                .filter(({ p }) => p.spec.shuffle)
                .map(({ p, c }) => ({ id: c.id, identity: c.identity, source: p.spec.name, n: counts.get(c.id)! })),
              recipe.seed,
              split,
            )
          : undefined
      const lengthened = lengthDeal(items, counts, recipe.seed, split)
      for (const { p, c, lending } of items) {
        const n = counts.get(c.id)!
        const longest = lengthened === null ? undefined : lengthened.has(c.id) ? 'keep' : 'lengthen'
        const {
          choices,
          answer,
          origins: from,
        } = reshape(c, n, lending, recipe.seed, !p.spec.shuffle, { place: dealt?.get(c.id), longest })
        if (!allDistinct(choices)) failed.push(c)
        origins.set(c.id, { file: c.file, choices: from })
        records[split].push({
          id: c.id,
          source: c.source,
          question: c.question,
          context: c.context,
          choices,
          answer_idx: answer,
          n_choices: choices.length,
        })
      }
      records[split] = orderRecords(records[split], recipe.seed, split)
    }
    if (failed.length === 0) {
      const drops = new Map(prepared.map((p) => [p.spec.name, new Map(p.drops)]))
      for (const [source, counts] of skipped) for (const [reason, n] of counts) countDrop(drops.get(source)!, reason, n)
      for (const id of rejected) countDrop(drops.get(sourceOf(prepared, id))!, 'final_not_distinct')
      return { records, drops, origins }
    }
    for (const c of failed) rejected.add(c.id)
  }
  throw new JevError('QUOTA', `items kept failing the distinctness check after ${MAX_ROUNDS} rounds`, {})
}

/**
 * Amendment 1.2's length rule over a split's grown items (./borrow/length-cue.ts): which of those
 * that have a choice keep their right answer the longest; null where no lending has the rule.
 */
function lengthDeal(
  items: readonly { c: Candidate; lending: Lending | undefined }[],
  counts: ReadonlyMap<string, number>,
  seed: number,
  split: Split,
): Set<string> | null {
  const dealt: LengthItem[] = []
  for (const { c, lending } of items) {
    const n = counts.get(c.id)!
    const k = n - c.options.length
    if (!lending?.canLengthen || k <= 0) continue
    // every grown item counts towards its option count's budget; only those whose right answer is the longest spend it
    const right = longestCredit(c.options, c.answer) > 0
    const kept = right ? lending.borrow(c, k, 'keep') : []
    const credit = right ? longestCredit([...c.options, ...kept.map((b) => b.text)], c.answer) : 0
    dealt.push({ id: c.id, identity: c.identity, n, credit, choice: credit > 0 && lending.canLengthen(c, k) })
  }
  return items.some(({ lending }) => lending?.canLengthen) ? dealLongest(dealt, seed, split) : null
}

/** What each group's side can lend, by the recipe's rule. */
function lendings(
  recipe: Recipe,
  prepared: readonly PreparedSource[],
  memos: LendingMemos,
  resources: BuildResources,
): Map<string, Lending> {
  const out = new Map<string, Lending>()
  const rule = recipe.distractors.borrow
  const isNegative = negationTest(recipe)
  for (const p of prepared) {
    // never grown: nothing to lend
    if (p.spec.fixedChoices !== undefined) continue
    // the training splits' ties, one per source for both its sides
    const sets = rule.plausible.related ? resources.related?.get(p.spec.name) : undefined
    const related = sets ? new RelatedOptions(sets) : undefined
    for (const split of ['test', 'val'] as const) {
      const relatedMin = related && p.spec.language ? Math.round(1024 * (rule.plausible.related?.min[p.spec.language] ?? 0)) : 0
      for (const [g, side] of groupsOf(p.spec, p.lenders[split])) {
        const key = groupKey(p.spec.name, split, g)
        let memo = memos.get(key)
        if (!memo) memos.set(key, (memo = new Map()))
        out.set(
          key,
          similarLending(side, {
            rules: rule,
            maxChars: recipe.borrowMaxChars,
            tieKey: (c) => parseInt(keyedHash(recipe.seed, 'lend', `${p.spec.name}\u0000${split}\u0000${c.identity}`).slice(0, 8), 16),
            ...(resources.vectors && { vectors: resources.vectors }),
            ...(resources.screen && rule.plausible.screened && { screen: resources.screen }),
            ...(related && { related, relatedMin }),
            cueKey: (c) =>
              BigInt(`0x${keyedHash(recipe.seed, 'length-cue', `${p.spec.name}\u0000${split}\u0000${c.identity}`).slice(0, 13)}`),
            isNegative: (c) => isNegative(p.spec, c.normQuestion),
            memo,
          }),
        )
      }
    }
  }
  return out
}

function sourceOf(prepared: readonly PreparedSource[], id: string): string {
  return prepared.find((p) => id.startsWith(`${p.spec.name}-`))!.spec.name
}

/** Output order is a keyed hash of the id, so any first N lines are a mixed sample. */
export function orderRecords(records: readonly DataRecord[], seed: number, split: Split): DataRecord[] {
  return records
    .map((r) => ({ r, k: keyedHash(seed, 'order', `${split}\u0000${r.id}`) }))
    .sort((a, b) => compareStrings(a.k, b.k) || compareStrings(a.r.id, b.r.id))
    .map((x) => x.r)
}

export type { DropReason }
