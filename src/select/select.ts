import { JevError } from '../errors.ts'
import type { Candidate } from '../prepare/eligibility.ts'
import { countDrop, type DropCounts, type PreparedSource } from '../prepare/prepare.ts'
import type { Split } from '../recipe/schema.ts'

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
      const clash =
        taken.has(c.identity) || taken.has(c.textKey)
          ? 'duplicate_question'
          : c.contextKey !== undefined && taken.has(c.contextKey)
            ? 'duplicate_passage'
            : null
      if (clash) {
        // taken already by another source or by the test split
        if (!skipped.has(spec.name)) skipped.set(spec.name, new Map())
        countDrop(skipped.get(spec.name)!, clash)
        continue
      }
      taken.add(c.identity)
      taken.add(c.textKey)
      if (c.contextKey !== undefined) taken.add(c.contextKey)
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
