import type { Candidate } from '../prepare/eligibility.ts'
import type { SourceSpec } from '../recipe/schema.ts'

/** The borrowing group of a source's question: its MMLU subject, or the whole source. */
export function groupOf(spec: SourceSpec, c: Candidate): string {
  return spec.group === 'subject' && c.subject !== null ? c.subject : spec.name
}

/** A source's side split into its borrowing groups. */
export function groupsOf(spec: SourceSpec, side: readonly Candidate[]): Map<string, Candidate[]> {
  const groups = new Map<string, Candidate[]>()
  for (const c of side) {
    const g = groupOf(spec, c)
    const list = groups.get(g)
    if (list) list.push(c)
    else groups.set(g, [c])
  }
  return groups
}
