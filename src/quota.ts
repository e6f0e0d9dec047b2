import { compareStrings } from './canonical.ts'
import { JevError } from './errors.ts'
import { keyedHash, rngFor, shuffle } from './rng.ts'
import { N_CHOICES, type QuotaTable, type Split } from './schema.ts'

export interface QuotaItem {
  id: string
  /** `<source>/<group>`, named when the group cannot hold its share */
  group: string
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
      throw new JevError('QUOTA', `${split}: more items with a fixed ${item.fixed} options than the quota allows`, { group: item.group })
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
    .map((item) => ({ item, key: keyedHash(seed, 'quota', `${split}\u0000${item.id}`) }))
    .sort((a, b) => compareStrings(a.key, b.key) || compareStrings(a.item.id, b.item.id))
    .map((x) => x.item)
  const n = order.map((_, i) => deal[i]!)
  // items by their dealt count, in deal order, to find trading partners without a full scan
  const byCount = new Map<number, number[]>(N_CHOICES.map((k) => [k, []]))
  n.forEach((k, i) => byCount.get(k)!.push(i))
  for (let i = 0; i < order.length; i++) {
    const item = order[i]!
    if (n[i]! <= item.capacity) continue
    const partner = findPartner(order, n, byCount, i)
    if (partner < 0)
      throw new JevError(
        'QUOTA',
        `${split}: group ${item.group} cannot hold its option counts: ${item.id} can have at most ${item.capacity} options, was dealt ${n[i]}, and no other item can trade`,
        { group: item.group, id: item.id },
      )
    const [a, b] = [n[i]!, n[partner]!]
    moveIndex(byCount, a, i, b)
    moveIndex(byCount, b, partner, a)
    n[i] = b
    n[partner] = a
  }
  order.forEach((item, i) => out.set(item.id, n[i]!))
  return out
}

/** The largest count the item can hold, taken from the first item that can hold the item's count. */
function findPartner(order: readonly QuotaItem[], n: readonly number[], byCount: Map<number, number[]>, i: number): number {
  const need = n[i]!
  for (let k = Math.min(order[i]!.capacity, 8); k >= 2; k--) {
    if (k === need) continue
    for (const j of byCount.get(k) ?? []) if (order[j]!.capacity >= need) return j
  }
  return -1
}

function moveIndex(byCount: Map<number, number[]>, from: number, index: number, to: number): void {
  const list = byCount.get(from)!
  list.splice(list.indexOf(index), 1)
  const target = byCount.get(to)!
  // keep deal order so the next search finds the same partner on every machine
  let lo = 0
  while (lo < target.length && target[lo]! < index) lo++
  target.splice(lo, 0, index)
}
