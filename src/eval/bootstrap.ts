/**
 * Seeded bootstrap intervals: the items resampled with replacement from the project's rng
 * (seedrandom alea, rng.ts), so the same responses and seed always give the same interval.
 */
import { randInt, rngFor } from '../shape/rng.ts'
import { SCORE_NAMES, type ScoreName, type Scores, scoresOf } from './metrics.ts'

export const DEFAULT_RESAMPLES = 1000
export const DEFAULT_SEED = 1234

export type Interval = [number, number]
export type Intervals = Record<ScoreName, Interval>

/** The q-quantile of sorted values, interpolated linearly (numpy's default). */
export function quantile(sorted: readonly number[], q: number): number {
  const pos = q * (sorted.length - 1)
  const lo = Math.floor(pos)
  const hi = Math.min(lo + 1, sorted.length - 1)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
}

/** Index lists of `resamples` draws of n items, from the stream keyed by `key`. */
export function resampleIndices(n: number, resamples: number, seed: number, key: string): Uint32Array[] {
  const rng = rngFor(seed, 'eval-bootstrap', key)
  const out: Uint32Array[] = []
  for (let r = 0; r < resamples; r++) {
    const idx = new Uint32Array(n)
    for (let i = 0; i < n; i++) idx[i] = randInt(rng, n)
    out.push(idx)
  }
  return out
}

const byNumber = (a: number, b: number) => a - b

/** The 95 % percentile interval of each score, over the resamples of `probs` (one per item) and their right options. */
export function intervals(probs: readonly (readonly number[])[], gold: readonly number[], draws: readonly Uint32Array[]): Intervals {
  return diffIntervals(probs, gold, null, draws)
}

/**
 * With `other` (the same items under another model, aligned), the interval of each score's
 * difference other − this, over paired resamples; without, of the score itself.
 */
export function diffIntervals(
  probs: readonly (readonly number[])[],
  gold: readonly number[],
  other: readonly (readonly number[])[] | null,
  draws: readonly Uint32Array[],
): Intervals {
  const samples = Object.fromEntries(SCORE_NAMES.map((s) => [s, [] as number[]])) as Record<ScoreName, number[]>
  for (const idx of draws) {
    const g = Array.from(idx, (i) => gold[i]!)
    const a = scoresOf(
      Array.from(idx, (i) => probs[i]!),
      g,
    )
    const b: Scores | null = other
      ? scoresOf(
          Array.from(idx, (i) => other[i]!),
          g,
        )
      : null
    for (const s of SCORE_NAMES) samples[s].push(b ? b[s] - a[s] : a[s])
  }
  return Object.fromEntries(
    SCORE_NAMES.map((s) => {
      const sorted = samples[s].sort(byNumber)
      return [s, [quantile(sorted, 0.025), quantile(sorted, 0.975)]]
    }),
  ) as Intervals
}
