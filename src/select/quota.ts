import { JevError } from '../errors.ts'
import { N_CHOICES, type QuotaTable, type Split } from '../recipe/schema.ts'
import { keyedHash, rngFor, shuffle } from '../shape/rng.ts'
import { compareStrings } from '../util/canonical.ts'

export interface QuotaItem {
  id: string
  /** what keys its place in the deal (the upstream identity); the id when absent */
  key?: string
  /** `<source>/<group>`, named when the group cannot hold its share */
  group: string
  /** the most options it can have: its own plus what its group can lend it, at most 8 */
  capacity: number
  /** an option count the item must have (BoolQ: 2) */
  fixed?: number
}

/**
 * Gives every item an option count so that the split's table is met exactly.
 * Fixed items take theirs first; the rest of the table is shuffled and dealt
 * to the other items in keyed-hash order; an item dealt more than it can hold
 * trades with the first item that can take its count and whose count it can take.
 */
export function assignQuotas(items: readonly QuotaItem[], quota: QuotaTable, seed: number, split: Split): Map<string, number> {
  const remaining = new Map<number, number>(N_CHOICES.map((n) => [n, quota[n]]))
  const out = new Map<string, number>()
  const free: QuotaItem[] = []
  for (const item of items) {
    if (item.fixed === undefined) {
      free.push(item)
      continue
    }
    const left = remaining.get(item.fixed) ?? 0
    if (left === 0)
      throw new JevError('QUOTA', `${split}: group ${item.group} has more items with a fixed ${item.fixed} options than the quota allows`, {
        group: item.group,
      })
    if (item.fixed > item.capacity)
      throw new JevError(
        'QUOTA',
        `${split}: group ${item.group} must have ${item.fixed} options but ${item.id} can have at most ${item.capacity}`,
        { group: item.group, id: item.id },
      )
    remaining.set(item.fixed, left - 1)
    out.set(item.id, item.fixed)
  }
  const deal = shuffle(
    rngFor(seed, 'quota', split),
    N_CHOICES.flatMap((n) => Array<number>(remaining.get(n) ?? 0).fill(n)),
  )
  if (deal.length !== free.length)
    throw new JevError('QUOTA', `${split}: the quota table holds ${deal.length + out.size} items but ${items.length} were selected`, {})
  const order = free
    .map((item) => ({ item, key: keyedHash(seed, 'quota', `${split}\u0000${item.key ?? item.id}`) }))
    .sort((a, b) => compareStrings(a.key, b.key) || compareStrings(a.item.id, b.item.id))
    .map((x) => x.item)
  const n = order.map((_, i) => deal[i]!)
  // items by their dealt count, in deal order, to find trading partners without a full scan
  const byCount = new Map<number, number[]>(N_CHOICES.map((k) => [k, []]))
  for (const [i, k] of n.entries()) byCount.get(k)!.push(i)
  const holds = (i: number, k: number) => k <= order[i]!.capacity
  let pending = order.map((_, i) => i).filter((i) => !holds(i, n[i]!))
  // each repair fixes one item and breaks none, so a pass without progress is final
  while (pending.length) {
    const still = pending.filter((i) => !holds(i, n[i]!) && !repair(order, n, byCount, i, holds))
    if (still.length === pending.length) {
      const item = order[still[0]!]!
      throw new JevError(
        'QUOTA',
        `${split}: group ${item.group} cannot hold its option counts: ${item.id} can have at most ${item.capacity} options, was dealt ${n[still[0]!]}, and no chain of trades with other items makes room`,
        { group: item.group, id: item.id },
      )
    }
    pending = still
  }
  for (const [i, item] of order.entries()) out.set(item.id, n[i]!)
  return out
}

/**
 * Moves item i to a count it can hold by a chain of trades: its count goes to
 * an item that can hold it, whose count goes on, until a count i can hold comes
 * free. Breadth-first over the seven counts, so the chain is as short as can be;
 * at each step the first item in deal order is used, so the result is the same everywhere.
 */
function repair(
  order: readonly QuotaItem[],
  n: number[],
  byCount: Map<number, number[]>,
  i: number,
  holds: (j: number, k: number) => boolean,
): boolean {
  const cap = order[i]!.capacity
  const start = n[i]!
  // via.get(b) = [a, j]: item j gave up count b to take the homeless count a
  const via = new Map<number, [number, number]>()
  const queue = [start]
  while (queue.length) {
    const a = queue.shift()!
    for (let b = 8; b >= 2; b--) {
      if (b === start || via.has(b)) continue
      const j = (byCount.get(b) ?? []).find((x) => x !== i && holds(x, a))
      if (j === undefined) continue
      via.set(b, [a, j])
      if (b <= cap) {
        // walk back: every item on the chain takes the count handed to it
        let freed = b
        while (freed !== start) {
          const [taken, item] = via.get(freed)!
          move(byCount, freed, item, taken)
          n[item] = taken
          freed = taken
        }
        move(byCount, start, i, b)
        n[i] = b
        return true
      }
      queue.push(b)
    }
  }
  return false
}

function move(byCount: Map<number, number[]>, from: number, index: number, to: number): void {
  const list = byCount.get(from)!
  list.splice(list.indexOf(index), 1)
  const target = byCount.get(to)!
  // keep deal order so the next search finds the same partner on every machine
  let lo = 0
  while (lo < target.length && target[lo]! < index) lo++
  target.splice(lo, 0, index)
}
