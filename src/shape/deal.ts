import { compareStrings } from '../util/canonical.ts'
import { keyedHash, rngFor, shuffle } from './rng.ts'

/** One item of a split to place: its id, its upstream identity, its source and its option count. */
export interface DealItem {
  id: string
  identity: string
  source: string
  n: number
}

/**
 * The right answer's position for every item, dealt evenly within each
 * (source, option count) group of one split: the group's items in the order of
 * a keyed hash of their identity, each round of n items given a seeded
 * permutation of 0..n-1, so position counts differ by at most one and which
 * positions get the extra item is seeded too. A group's deal depends only on
 * its own members, never on input order or on other groups.
 */
export function dealPositions(items: readonly DealItem[], seed: number, split: string): Map<string, number> {
  const groups = new Map<string, DealItem[]>()
  for (const it of items) {
    const g = `${it.source}\u0000${it.n}`
    let list = groups.get(g)
    if (!list) groups.set(g, (list = []))
    list.push(it)
  }
  const out = new Map<string, number>()
  for (const [g, list] of groups) {
    const ordered = list
      .map((it) => ({ it, k: keyedHash(seed, 'deal', `${split}\u0000${g}\u0000${it.identity}`) }))
      .sort((a, b) => compareStrings(a.k, b.k) || compareStrings(a.it.id, b.it.id))
    const n = list[0]!.n
    const slots = Array.from({ length: n }, (_, i) => i)
    let round: number[] = []
    ordered.forEach(({ it }, i) => {
      if (i % n === 0) round = shuffle(rngFor(seed, 'deal-round', `${split}\u0000${g}\u0000${i / n}`), slots)
      out.set(it.id, round[i % n]!)
    })
  }
  return out
}
