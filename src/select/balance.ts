import { JevError } from '../errors.ts'
import { N_CHOICES, type QuotaTable, type Split } from '../recipe/schema.ts'
import { keyedHash } from '../shape/rng.ts'
import { compareStrings } from '../util/canonical.ts'
import type { QuotaItem } from './quota.ts'

/** A source × option-count table: source → n → items. */
export type SourceTable = Map<string, Map<number, number>>

/** What a source's share of a cell is: numerator over the split's free items, kept exact. */
export interface Share {
  num: number
  den: number
}

export interface BalancedTable {
  /** each free source's proportional share of each cell, exactly */
  shares: Map<string, Map<number, Share>>
  /** the controlled rounding: integers within one of the shares, with both margins exact */
  cells: SourceTable
}

/**
 * Amendment 1.3's table: at every n, each source holds its share of the split's free items times the free
 * slots at n, rounded so that the row sums are the sources' counts, the column sums the slots, and every cell
 * the floor or the ceiling of its share. Cells round up by their remainder, largest first (ties by keyed hash),
 * then augmenting paths repair what the greedy pass leaves, so the rounding always exists (a bipartite flow).
 */
export function balancedTable(
  counts: ReadonlyMap<string, number>,
  slots: ReadonlyMap<number, number>,
  seed: number,
  split: Split,
): BalancedTable {
  const sources = [...counts.keys()].sort(compareStrings)
  const den = sources.reduce((a, s) => a + counts.get(s)!, 0)
  const total = N_CHOICES.reduce((a, n) => a + (slots.get(n) ?? 0), 0)
  if (total !== den)
    throw new JevError(
      'QUOTA',
      `${split}: the option-count table leaves ${total} slots for ${den} items of the sources that take any count`,
      {
        split,
      },
    )
  const shares = new Map<string, Map<number, Share>>()
  const cells: SourceTable = new Map()
  const rowNeed = new Map<string, number>()
  const colNeed = new Map<number, number>(N_CHOICES.map((n) => [n, slots.get(n) ?? 0]))
  // cells that may take one more than their floor, best first
  const open: { s: string; n: number; rem: number; key: string }[] = []
  for (const s of sources) {
    const row = new Map<number, Share>()
    const cell = new Map<number, number>()
    let used = 0
    for (const n of N_CHOICES) {
      const num = counts.get(s)! * (slots.get(n) ?? 0)
      row.set(n, { num, den })
      const floor = den === 0 ? 0 : Math.floor(num / den)
      cell.set(n, floor)
      used += floor
      colNeed.set(n, colNeed.get(n)! - floor)
      if (den !== 0 && num % den !== 0) open.push({ s, n, rem: num % den, key: keyedHash(seed, 'balance', `${split}\u0000${s}\u0000${n}`) })
    }
    shares.set(s, row)
    cells.set(s, cell)
    rowNeed.set(s, counts.get(s)! - used)
  }
  open.sort((a, b) => b.rem - a.rem || compareStrings(a.key, b.key))
  const up = new Set<string>()
  const at = (s: string, n: number) => `${s}\u0000${n}`
  for (const c of open) {
    if (rowNeed.get(c.s)! > 0 && colNeed.get(c.n)! > 0) {
      up.add(at(c.s, c.n))
      rowNeed.set(c.s, rowNeed.get(c.s)! - 1)
      colNeed.set(c.n, colNeed.get(c.n)! - 1)
    }
  }
  // a row still short: an alternating path row → open cell not taken → column → taken cell → row … ending in a column still short
  for (const s of sources) {
    while (rowNeed.get(s)! > 0) {
      if (!augment(s, open, up, colNeed, at))
        throw new Error(`${split}: no controlled rounding for ${s} (cannot happen with exact margins)`)
      rowNeed.set(s, rowNeed.get(s)! - 1)
    }
  }
  for (const key of up) {
    const [s, n] = key.split('\u0000') as [string, string]
    const row = cells.get(s)!
    row.set(Number(n), row.get(Number(n))! + 1)
  }
  return { shares, cells }
}

/**
 * One augmenting path from row `start`: a cell not taken to a column, a taken cell of that column back to its
 * row, and so on, to a column with room; breadth-first in the cells' priority order, then flipped.
 */
function augment(
  start: string,
  open: readonly { s: string; n: number }[],
  up: Set<string>,
  colNeed: Map<number, number>,
  at: (s: string, n: number) => string,
): boolean {
  const colFrom = new Map<number, string>()
  const rowFrom = new Map<string, number>()
  const queue = [start]
  while (queue.length) {
    const s = queue.shift()!
    for (const c of open) {
      if (c.s !== s || up.has(at(s, c.n)) || colFrom.has(c.n)) continue
      colFrom.set(c.n, s)
      if (colNeed.get(c.n)! > 0) {
        colNeed.set(c.n, colNeed.get(c.n)! - 1)
        for (let n = c.n; ; ) {
          const row = colFrom.get(n)!
          up.add(at(row, n))
          if (row === start) return true
          n = rowFrom.get(row)!
          up.delete(at(row, n))
        }
      }
      for (const o of open)
        if (o.n === c.n && up.has(at(o.s, o.n)) && o.s !== start && !rowFrom.has(o.s)) {
          rowFrom.set(o.s, c.n)
          queue.push(o.s)
        }
    }
  }
  return false
}

/** Per n, how many of a source's items must reach at least n and how many can: Hall's condition for nested capacities. */
export function shortfalls(items: readonly QuotaItem[], cells: ReadonlyMap<number, number>): { n: number; need: number; can: number }[] {
  const out: { n: number; need: number; can: number }[] = []
  let need = 0
  for (const n of [...N_CHOICES].reverse()) {
    need += cells.get(n) ?? 0
    const can = items.filter((i) => i.capacity >= n).length
    if (can < need) out.push({ n, need, can })
  }
  return out
}

/**
 * Deals one source's items to its cells: from n = 8 down, each cell takes the first items, in a keyed order of
 * its own, that can reach n and are not yet dealt. Whenever every n has enough items that reach it (shortfalls
 * is empty), taking any of them for a higher n leaves enough for the lower ones, so the deal always completes.
 */
export function dealWithinSource(
  source: string,
  items: readonly QuotaItem[],
  cells: ReadonlyMap<number, number>,
  seed: number,
  split: Split,
): Map<string, number> {
  const short = shortfalls(items, cells)
  if (short.length) {
    const worst = short.reduce((a, b) => (b.need - b.can > a.need - a.can ? b : a))
    throw new JevError(
      'QUOTA',
      `${split}: ${source} cannot fill its option counts: ${worst.need} of its items must take ${worst.n} or more options, ${worst.can} can (${worst.need - worst.can} short)`,
      {
        split,
        source,
        n: worst.n,
        shortfall: worst.need - worst.can,
        hint: `screen more of ${source}'s candidates so that more of its items can grow (README: "Screening"), or lower its count`,
      },
    )
  }
  const out = new Map<string, number>()
  for (const n of [...N_CHOICES].reverse()) {
    const want = cells.get(n) ?? 0
    if (want === 0) continue
    const order = items
      .filter((i) => !out.has(i.id) && i.capacity >= n)
      .map((i) => ({ i, key: keyedHash(seed, 'balance-deal', `${split}\u0000${n}\u0000${i.key ?? i.id}`) }))
      .sort((a, b) => compareStrings(a.key, b.key) || compareStrings(a.i.id, b.i.id))
    for (const { i } of order.slice(0, want)) out.set(i.id, n)
  }
  return out
}

/** The free slots of a split's table once the fixed items (BoolQ's two options) have taken theirs. */
export function freeSlots(quota: QuotaTable, fixed: readonly QuotaItem[], split: Split): Map<number, number> {
  const slots = new Map<number, number>(N_CHOICES.map((n) => [n, quota[n]]))
  for (const item of fixed) {
    const left = slots.get(item.fixed!) ?? 0
    if (left === 0)
      throw new JevError('QUOTA', `${split}: group ${item.group} has more items with a fixed ${item.fixed} options than the quota allows`, {
        group: item.group,
      })
    if (item.fixed! > item.capacity)
      throw new JevError('QUOTA', `${split}: ${item.id} must have ${item.fixed} options but can have at most ${item.capacity}`, {
        group: item.group,
        id: item.id,
      })
    slots.set(item.fixed!, left - 1)
  }
  return slots
}

/** The whole split: fixed items first, then the balanced table, then a deal within each source. */
export function assignBalanced(
  items: readonly (QuotaItem & { source: string })[],
  quota: QuotaTable,
  seed: number,
  split: Split,
): { counts: Map<string, number>; table: BalancedTable } {
  const fixed = items.filter((i) => i.fixed !== undefined)
  const slots = freeSlots(quota, fixed, split)
  const bySource = new Map<string, (QuotaItem & { source: string })[]>()
  for (const i of items) if (i.fixed === undefined) bySource.set(i.source, [...(bySource.get(i.source) ?? []), i])
  const table = balancedTable(new Map([...bySource].map(([s, list]) => [s, list.length])), slots, seed, split)
  const counts = new Map<string, number>(fixed.map((i) => [i.id, i.fixed!]))
  for (const s of [...bySource.keys()].sort(compareStrings))
    for (const [id, n] of dealWithinSource(s, bySource.get(s)!, table.cells.get(s)!, seed, split)) counts.set(id, n)
  return { counts, table }
}
