import { codePointLength, compareStrings } from './canonical.ts'
import type { Candidate } from './eligibility.ts'
import type { SourceSpec } from './schema.ts'

/** The distractors a group can lend on one side: unique by normalised text, short enough. */
export interface Pool {
  /** normalised texts in code-unit order, so draws do not depend on input order */
  norms: readonly string[]
  /** the text lent for each of `norms` */
  texts: readonly string[]
  has(norm: string): boolean
}

export function groupOf(spec: SourceSpec, c: Candidate): string {
  return spec.group === 'subject' && c.subject !== null ? c.subject : spec.name
}

export function buildPool(candidates: readonly Candidate[], maxChars: number): Pool {
  const byNorm = new Map<string, string>()
  for (const c of candidates) {
    for (let i = 0; i < c.options.length; i++) {
      const text = c.options[i]!
      // code points never outnumber code units, so only long texts need counting
      if (text.length > maxChars && codePointLength(text) > maxChars) continue
      const norm = c.normOptions[i]!
      const seen = byNorm.get(norm)
      // several spellings of one text: keep the smallest, whatever order rows came in
      if (seen === undefined || compareStrings(text, seen) < 0) byNorm.set(norm, text)
    }
  }
  // the default sort compares code units, as compareStrings does, without a call per comparison
  const norms = [...byNorm.keys()].sort()
  const texts = norms.map((n) => byNorm.get(n)!)
  // the map goes: two arrays over the same strings take a fraction of its memory
  return { norms, texts, has: (norm) => indexOf(norms, norm) >= 0 }
}

/** Binary search in code-unit order. */
function indexOf(sorted: readonly string[], s: string): number {
  let lo = 0
  let hi = sorted.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const x = sorted[mid]!
    if (x === s) return mid
    if (x < s) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}

/** Pools for every group of a source's side. */
export function buildPools(spec: SourceSpec, side: readonly Candidate[], maxChars: number): Map<string, Pool> {
  const groups = new Map<string, Candidate[]>()
  for (const c of side) {
    const g = groupOf(spec, c)
    const list = groups.get(g)
    if (list) list.push(c)
    else groups.set(g, [c])
  }
  const pools = new Map<string, Pool>()
  for (const [g, list] of groups) pools.set(g, buildPool(list, maxChars))
  return pools
}

/** How many options an item can have: its own plus what its pool can lend, at most 8. */
export function capacity(c: Candidate, pool: Pool | undefined): number {
  const lendable = pool ? pool.norms.length - c.normOptions.filter((o) => pool.has(o)).length : 0
  return Math.min(8, c.options.length + lendable)
}
