import { compareStrings } from './canonical.ts'
import { type DataRecord, SPLITS, type Split } from './schema.ts'

/** Per source, how a build's records relate to the previous version's. */
export interface SourceChanges {
  /** same id in the same split, the same record byte for byte */
  kept: number
  /** same id in the same split, other choices or answer position */
  optionsChanged: number
  /** records of this build whose question was not in that split before */
  replaced: number
}

/**
 * Compares two builds record by record, keyed by split and id. Sources in
 * `order` (the recipe's) first, any others after them in code-unit order.
 */
export function compareBuilds(
  before: Record<Split, readonly DataRecord[]>,
  after: Record<Split, readonly DataRecord[]>,
  order: readonly string[] = [],
): Record<string, SourceChanges> {
  const out: Record<string, SourceChanges> = {}
  const seen = [...new Set(SPLITS.flatMap((s) => after[s].map((r) => r.source)))]
  const sources = [...order.filter((s) => seen.includes(s)), ...seen.filter((s) => !order.includes(s)).sort(compareStrings)]
  for (const s of sources) out[s] = { kept: 0, optionsChanged: 0, replaced: 0 }
  for (const split of SPLITS) {
    const old = new Map(before[split].map((r) => [r.id, r]))
    for (const r of after[split]) {
      const o = old.get(r.id)
      const c = out[r.source]!
      if (!o) c.replaced++
      else if (JSON.stringify(o) === JSON.stringify(r)) c.kept++
      else c.optionsChanged++
    }
  }
  return out
}
