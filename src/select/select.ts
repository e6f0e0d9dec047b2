import { JevError } from '../errors.ts'
import type { Candidate } from '../prepare/eligibility.ts'
import { countDrop, type DropCounts, type PreparedSource } from '../prepare/prepare.ts'
import type { Split } from '../recipe/schema.ts'
import { compareStrings, normalize } from '../util/canonical.ts'

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
    const strata = spec.balanceSides === 'answer' && spec.test.from === spec.val.from ? answerQuotas(sides, want) : null
    for (const c of sides[split]) {
      if (chosen.length === want) break
      if (rejected.has(c.id)) continue
      const stratum = strata?.get(answerOf(c))
      if (stratum && stratum.taken === stratum.want) continue
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
      if (stratum) stratum.taken++
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

const answerOf = (c: Candidate) => normalize(c.options[c.answer] ?? '')

/**
 * How many of a split's `want` items each right answer gets when the sides are
 * balanced by answer: its share among both sides' eligible questions, by largest
 * remainder (ties by the answer's text), so test and val have the same share of
 * each answer within one item.
 */
export function answerQuotas(sides: Record<Split, readonly Candidate[]>, want: number): Map<string, { want: number; taken: number }> {
  const counts = new Map<string, number>()
  for (const c of [...sides.test, ...sides.val]) counts.set(answerOf(c), (counts.get(answerOf(c)) ?? 0) + 1)
  const total = sides.test.length + sides.val.length
  const rows = [...counts.entries()]
    .sort((a, b) => compareStrings(a[0], b[0]))
    .map(([answer, n]) => ({ answer, exact: total ? (n * want) / total : 0 }))
    .map((r) => ({ ...r, want: Math.floor(r.exact) }))
  let left = want - rows.reduce((a, r) => a + r.want, 0)
  for (const r of [...rows].sort((a, b) => b.exact - b.want - (a.exact - a.want) || compareStrings(a.answer, b.answer))) {
    if (left === 0) break
    r.want++
    left--
  }
  return new Map(rows.map((r) => [r.answer, { want: r.want, taken: 0 }]))
}
