import type { Lending } from '../borrow/lend.ts'
import type { Origin } from '../emit/provenance.ts'
import type { Candidate } from '../prepare/eligibility.ts'
import { normalize } from '../util/canonical.ts'
import { rngFor, sample, shuffle } from './rng.ts'

export type { Origin }

export interface Reshaped {
  choices: string[]
  answer: number
  /** per choice, in the same order */
  origins: Origin[]
}

interface Option {
  text: string
  right: boolean
  origin: Origin
}

/**
 * Gives an item exactly n options: shrink keeps the right one and a random
 * subset of the wrong ones; grow keeps all and borrows from the group's side;
 * then a seeded shuffle unless the source keeps a fixed order. With `place`
 * (a dealt position) the right answer goes there and the item's shuffle
 * orders the wrong options into the other slots.
 */
export function reshape(
  c: Candidate,
  n: number,
  lending: Lending | undefined,
  seed: number,
  keepOrder: boolean,
  { place, longest }: { place?: number; longest?: 'keep' | 'lengthen' } = {},
): Reshaped {
  // streams are keyed by the upstream identity, as the spec says, not by position or id
  const key = c.identity
  let options: Option[] = c.options.map((text, i) => ({ text, right: i === c.answer, origin: { from: 'upstream', index: i } }))
  if (n < options.length) {
    const wrong = options.filter((o) => !o.right)
    const kept = new Set(sample(rngFor(seed, 'shrink', key), wrong, n - 1))
    options = options.filter((o) => o.right || kept.has(o))
  } else if (n > options.length) {
    if (!lending) throw new RangeError(`${c.id}: nothing to borrow from`)
    const extra = lending.borrow(c, n - options.length, longest)
    options = [
      ...options,
      ...extra.map((b): Option => ({ text: b.text, right: false, origin: { from: 'borrowed', lender: b.lender, index: b.index } })),
    ]
  }
  if (!keepOrder && place !== undefined) {
    if (!Number.isInteger(place) || place < 0 || place >= options.length) throw new RangeError(`${c.id}: position ${place} of ${n}`)
    const wrong = shuffle(
      rngFor(seed, 'shuffle', key),
      options.filter((o) => !o.right),
    )
    options = [...wrong.slice(0, place), options.find((o) => o.right)!, ...wrong.slice(place)]
  } else if (!keepOrder) options = shuffle(rngFor(seed, 'shuffle', key), options)
  return { choices: options.map((o) => o.text), answer: options.findIndex((o) => o.right), origins: options.map((o) => o.origin) }
}

export function allDistinct(choices: readonly string[]): boolean {
  return new Set(choices.map(normalize)).size === choices.length
}
