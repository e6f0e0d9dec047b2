import type { Candidate } from '../prepare/eligibility.ts'
import type { SourceSpec } from '../recipe/schema.ts'
import { type Rng, randInt, sample } from '../shape/rng.ts'
import { codePointLength, compareStrings } from '../util/canonical.ts'
import type { Borrowed, Lending } from './lend.ts'

/** The distractors a group can lend on one side: unique by normalised text, short enough. */
export interface Pool {
  /** normalised texts in code-unit order, so draws do not depend on input order */
  norms: readonly string[]
  /** the text lent for each of `norms` */
  texts: readonly string[]
  /** for each of `norms`, the lender of that text and its index there (the smallest id that spells it so) */
  lenders: readonly string[]
  indices: readonly number[]
  has(norm: string): boolean
}

export function groupOf(spec: SourceSpec, c: Candidate): string {
  return spec.group === 'subject' && c.subject !== null ? c.subject : spec.name
}

interface Entry {
  text: string
  lender: string
  index: number
}

/** The 1.0.0 pool: every option of every question of the group's side, right answers included. */
export function buildPool(candidates: readonly Candidate[], maxChars: number): Pool {
  const byNorm = new Map<string, Entry>()
  for (const c of candidates) {
    for (let i = 0; i < c.options.length; i++) {
      const text = c.options[i]!
      // code points never outnumber code units, so only long texts need counting
      if (text.length > maxChars && codePointLength(text) > maxChars) continue
      const norm = c.normOptions[i]!
      const seen = byNorm.get(norm)
      // several spellings of one text: keep the smallest, then the smallest lender, whatever order rows came in
      if (seen === undefined || compareStrings(text, seen.text) < 0 || (text === seen.text && compareStrings(c.id, seen.lender) < 0))
        byNorm.set(norm, { text, lender: c.id, index: i })
    }
  }
  // the default sort compares code units, as compareStrings does, without a call per comparison
  const norms = [...byNorm.keys()].sort()
  const entries = norms.map((n) => byNorm.get(n)!)
  // the map goes: arrays over the same strings take a fraction of its memory
  return {
    norms,
    texts: entries.map((e) => e.text),
    lenders: entries.map((e) => e.lender),
    indices: entries.map((e) => e.index),
    has: (norm) => indexOf(norms, norm) >= 0,
  }
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

/** Pools for every group of a source's side. */
export function buildPools(spec: SourceSpec, side: readonly Candidate[], maxChars: number): Map<string, Pool> {
  const pools = new Map<string, Pool>()
  for (const [g, list] of groupsOf(spec, side)) pools.set(g, buildPool(list, maxChars))
  return pools
}

/** How many options an item can have: its own plus what its pool can lend, at most 8. */
export function capacity(c: Candidate, pool: Pool | undefined): number {
  const lendable = pool ? pool.norms.length - c.normOptions.filter((o) => pool.has(o)).length : 0
  return Math.min(8, c.options.length + lendable)
}

/** 1.0.0's rule: draws uniformly without replacement from the pool, skipping the item's own texts. */
export function uniformLending(pool: Pool): Lending {
  return {
    capacity: (c) => capacity(c, pool),
    borrow: (c, k, rng) => borrowUniform(rng, pool, new Set(c.normOptions), k),
  }
}

function borrowUniform(rng: Rng, pool: Pool, own: ReadonlySet<string>, k: number): Borrowed[] {
  const entry = (i: number): Borrowed => ({ text: pool.texts[i]!, lender: pool.lenders[i]!, index: pool.indices[i]! })
  let excluded = 0
  for (const o of own) if (pool.has(o)) excluded++
  const available = pool.norms.length - excluded
  if (available < k) throw new RangeError(`pool has ${available} options, ${k} needed`)
  if (available < 4 * k + 16) {
    // small pool: draw from the explicit list rather than rejecting most draws
    const list = pool.norms.flatMap((n, i) => (own.has(n) ? [] : [i]))
    return sample(rng, list, k).map(entry)
  }
  const chosen = new Set<number>()
  const out: Borrowed[] = []
  while (out.length < k) {
    const i = randInt(rng, pool.norms.length)
    if (chosen.has(i) || own.has(pool.norms[i]!)) continue
    chosen.add(i)
    out.push(entry(i))
  }
  return out
}
