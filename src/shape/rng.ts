import { createRequire } from 'node:module'
import type seedrandom from 'seedrandom'
import { sha256Hex } from '../util/hash.ts'

// seedrandom's alea on its own: the package's index also loads its six other generators and the ARC4 one
const alea = createRequire(import.meta.url)('seedrandom/lib/alea.js') as typeof seedrandom.alea

/** A stream of 32-bit unsigned integers, independent per (seed, purpose, key). */
export interface Rng {
  uint32(): number
}

function streamSeed(seed: number, purpose: string, key: string): string {
  return `${seed}\u0000${purpose}\u0000${key}`
}

export function rngFor(seed: number, purpose: string, key: string): Rng {
  const stream = alea(streamSeed(seed, purpose, key))
  return { uint32: () => stream.int32() >>> 0 }
}

/** Keyed hash used to order items; the same key always lands in the same place. */
export function keyedHash(seed: number, purpose: string, key: string): string {
  return sha256Hex(streamSeed(seed, purpose, key))
}

/** A keyed hash as a float in [0, 1), for ratio splits. */
export function keyedUnit(seed: number, purpose: string, key: string): number {
  return parseInt(keyedHash(seed, purpose, key).slice(0, 13), 16) / 2 ** 52
}

/** Uniform integer in [0, n) with rejection, so no value is favoured. */
export function randInt(rng: Rng, n: number): number {
  if (!Number.isInteger(n) || n <= 0 || n > 2 ** 32) throw new RangeError(`randInt bound ${n}`)
  const limit = Math.floor(2 ** 32 / n) * n
  for (;;) {
    const x = rng.uint32()
    if (x < limit) return x % n
  }
}

/** Fisher–Yates, returning a new array. */
export function shuffle<T>(rng: Rng, items: readonly T[]): T[] {
  const a = items.slice()
  for (let i = a.length - 1; i > 0; i--) {
    const j = randInt(rng, i + 1)
    const t = a[i] as T
    a[i] = a[j] as T
    a[j] = t
  }
  return a
}

/** k items uniformly without replacement (a partial Fisher–Yates). */
export function sample<T>(rng: Rng, items: readonly T[], k: number): T[] {
  if (k > items.length) throw new RangeError(`sample ${k} of ${items.length}`)
  const a = items.slice()
  for (let i = 0; i < k; i++) {
    const j = i + randInt(rng, a.length - i)
    const t = a[i] as T
    a[i] = a[j] as T
    a[j] = t
  }
  return a.slice(0, k)
}
