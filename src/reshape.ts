import { normalize } from './canonical.ts'
import type { Candidate } from './eligibility.ts'
import type { Pool } from './pool.ts'
import { randInt, type Rng, rngFor, sample, shuffle } from './rng.ts'

export interface Reshaped {
  choices: string[]
  answer: number
}

interface Option {
  text: string
  right: boolean
}

/** Draws `k` pool entries uniformly without replacement, skipping the item's own texts. */
function borrow(rng: Rng, pool: Pool, own: ReadonlySet<string>, k: number): string[] {
  let excluded = 0
  for (const o of own) if (pool.has(o)) excluded++
  const available = pool.norms.length - excluded
  if (available < k) throw new RangeError(`pool has ${available} options, ${k} needed`)
  if (available < 4 * k + 16) {
    // small pool: draw from the explicit list rather than rejecting most draws
    const list = pool.texts.filter((_, i) => !own.has(pool.norms[i]!))
    return sample(rng, list, k)
  }
  const chosen = new Set<number>()
  const out: string[] = []
  while (out.length < k) {
    const i = randInt(rng, pool.norms.length)
    if (chosen.has(i) || own.has(pool.norms[i]!)) continue
    chosen.add(i)
    out.push(pool.texts[i]!)
  }
  return out
}

/**
 * Gives an item exactly n options: shrink keeps the right one and a random
 * subset of the wrong ones; grow keeps all and borrows from the group's pool;
 * then a seeded shuffle unless the source keeps a fixed order.
 */
export function reshape(c: Candidate, n: number, pool: Pool | undefined, seed: number, keepOrder: boolean): Reshaped {
  // streams are keyed by the upstream identity, as the spec says, not by position or id
  const key = c.identity
  let options: Option[] = c.options.map((text, i) => ({ text, right: i === c.answer }))
  if (n < options.length) {
    const wrong = options.filter((o) => !o.right)
    const kept = new Set(sample(rngFor(seed, 'shrink', key), wrong, n - 1))
    options = options.filter((o) => o.right || kept.has(o))
  } else if (n > options.length) {
    if (!pool) throw new RangeError(`${c.id}: no pool to borrow from`)
    const extra = borrow(rngFor(seed, 'grow', key), pool, new Set(c.normOptions), n - options.length)
    options = [...options, ...extra.map((text) => ({ text, right: false }))]
  }
  if (!keepOrder) options = shuffle(rngFor(seed, 'shuffle', key), options)
  return { choices: options.map((o) => o.text), answer: options.findIndex((o) => o.right) }
}

export function allDistinct(choices: readonly string[]): boolean {
  return new Set(choices.map(normalize)).size === choices.length
}
