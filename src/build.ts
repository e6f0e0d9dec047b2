import { compareStrings } from './canonical.ts'
import type { Candidate, DropReason } from './eligibility.ts'
import { JevError } from './errors.ts'
import { buildPools, capacity, groupOf, type Pool } from './pool.ts'
import { assignQuotas } from './quota.ts'
import { allDistinct, reshape } from './reshape.ts'
import { keyedHash } from './rng.ts'
import type { DataRecord, Recipe, Split } from './schema.ts'
import { countDrop, type DropCounts, type PreparedSource, prepareSource, selectSplit } from './select.ts'
import type { UpstreamQuestion } from './sources/adapter.ts'

export interface BuildOutput {
  records: Record<Split, DataRecord[]>
  /** per source, per reason; sources in recipe order */
  drops: Map<string, DropCounts>
}

const MAX_ROUNDS = 20

function poolKey(source: string, split: Split, group: string): string {
  return `${source}\u0000${split}\u0000${group}`
}

/**
 * The pure middle of the builder: upstream questions in, records out.
 * Nothing here depends on row order, the clock or the locale.
 */
export function buildRecords(recipe: Recipe, questionsBySource: ReadonlyMap<string, readonly UpstreamQuestion[]>): BuildOutput {
  return buildFromPrepared(
    recipe,
    recipe.sources.map((spec) => prepareSource(spec, questionsBySource.get(spec.name) ?? [], recipe)),
  )
}

/** The same, from sources already prepared (so their raw questions can be let go early). */
export function buildFromPrepared(recipe: Recipe, prepared: readonly PreparedSource[]): BuildOutput {
  const pools = new Map<string, Pool>()
  for (const p of prepared)
    for (const split of ['test', 'val'] as const)
      for (const [g, pool] of buildPools(p.spec, p.lenders[split], recipe.borrowMaxChars)) pools.set(poolKey(p.spec.name, split, g), pool)

  const rejected = new Set<string>()
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const taken = new Set<string>()
    const skipped = new Map<string, DropCounts>()
    const records: Record<Split, DataRecord[]> = { test: [], val: [] }
    const failed: Candidate[] = []
    for (const split of ['test', 'val'] as const) {
      const selected = selectSplit(prepared, split, taken, rejected, skipped)
      const items = prepared.flatMap((p) =>
        selected.get(p.spec.name)!.map((c) => ({ p, c, pool: pools.get(poolKey(p.spec.name, split, groupOf(p.spec, c))) })),
      )
      const counts = assignQuotas(
        items.map(({ p, c, pool }) => ({
          id: c.id,
          key: c.identity,
          group: `${p.spec.name}/${groupOf(p.spec, c)}`,
          capacity: capacity(c, pool),
          fixed: p.spec.fixedChoices,
        })),
        recipe.quotas[split],
        recipe.seed,
        split,
      )
      for (const { p, c, pool } of items) {
        const { choices, answer } = reshape(c, counts.get(c.id)!, pool, recipe.seed, !p.spec.shuffle)
        if (!allDistinct(choices)) failed.push(c)
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
      return { records, drops }
    }
    for (const c of failed) rejected.add(c.id)
  }
  throw new JevError('QUOTA', `items kept failing the distinctness check after ${MAX_ROUNDS} rounds`, {})
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
