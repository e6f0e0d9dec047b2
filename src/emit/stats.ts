import type { Split } from '../recipe/schema.ts'
import { N_CHOICES, SPLITS } from '../recipe/schema.ts'
import { compareStrings } from '../util/canonical.ts'
import type { DataRecord } from './schema.ts'

/** Figures the card and the manifest report, computed from the records themselves. */
export interface DatasetStats {
  /** source → split → count; sources in first-seen order of `sourceOrder` */
  bySource: Record<string, Record<Split, number>>
  byChoices: Record<Split, Record<string, number>>
  /** answer position (0-based) → count, per split */
  answerPositions: Record<Split, number[]>
  /** expected count per position if the right answer were placed uniformly */
  expectedPositions: Record<Split, number[]>
  chanceFloor: Record<Split, number>
  total: Record<Split, number>
}

export function computeStats(records: Record<Split, readonly DataRecord[]>, sourceOrder: readonly string[]): DatasetStats {
  const sources = [...sourceOrder]
  for (const split of SPLITS) for (const r of records[split]) if (!sources.includes(r.source)) sources.push(r.source)
  const extra = sources.slice(sourceOrder.length).sort(compareStrings)
  const bySource: DatasetStats['bySource'] = {}
  for (const s of [...sourceOrder, ...extra]) bySource[s] = { test: 0, val: 0 }
  const empty = () => Object.fromEntries(N_CHOICES.map((n) => [String(n), 0])) as Record<string, number>
  const stats: DatasetStats = {
    bySource,
    byChoices: { test: empty(), val: empty() },
    answerPositions: { test: Array(8).fill(0), val: Array(8).fill(0) },
    expectedPositions: { test: Array(8).fill(0), val: Array(8).fill(0) },
    chanceFloor: { test: 0, val: 0 },
    total: { test: records.test.length, val: records.val.length },
  }
  for (const split of SPLITS) {
    let inv = 0
    for (const r of records[split]) {
      bySource[r.source]![split]++
      stats.byChoices[split][String(r.n_choices)] = (stats.byChoices[split][String(r.n_choices)] ?? 0) + 1
      stats.answerPositions[split][r.answer_idx]!++
      for (let p = 0; p < r.n_choices; p++) stats.expectedPositions[split][p]! += 1 / r.n_choices
      inv += 1 / r.n_choices
    }
    stats.chanceFloor[split] = records[split].length ? inv / records[split].length : 0
  }
  return stats
}
