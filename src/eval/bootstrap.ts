/**
 * Seeded bootstrap intervals: the items resampled with replacement from the project's rng
 * (seedrandom alea, rng.ts), so the same responses and seed always give the same interval. A
 * resample is scored from per-item quantities worked out once (confidence, right or not, NLL,
 * Brier, ECE bin), so thousands of resamples take a fraction of a second.
 */
import { createRequire } from 'node:module'
import type seedrandom from 'seedrandom'
import { argmax, binOf, ECE_BINS, NLL_FLOOR, SCORE_NAMES, type ScoreName } from './metrics.ts'
import { npSum } from './numeric.ts'

/** 1,000 resamples: between seeds an option count's interval ends move by up to about 0.02 on 1.3.0's test split, a small cell's by more. */
export const DEFAULT_RESAMPLES = 1000
export const DEFAULT_SEED = 1234

export type Interval = [number, number]
export type Intervals = Record<ScoreName, Interval>
export type ScoreValues = Record<ScoreName, number>

/** The q-quantile of sorted values, interpolated linearly (numpy's default). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const pos = q * (sorted.length - 1)
  const lo = Math.floor(pos)
  const hi = Math.min(lo + 1, sorted.length - 1)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
}

// seedrandom's alea, as rng.ts loads it: a stream is called directly here, since a bootstrap draws millions of numbers
const alea = createRequire(import.meta.url)('seedrandom/lib/alea.js') as typeof seedrandom.alea

/** The alea stream of rngFor(seed, 'eval-bootstrap', key): numbers in [0, 1), whose uint32 is the number times 2^32. */
export function bootstrapStream(seed: number, key: string): () => number {
  return alea(`${seed}\u0000eval-bootstrap\u0000${key}`)
}

/** That stream's state as [c, s0, s1, s2], for a loop that steps alea itself. */
export function bootstrapState(seed: number, key: string): [number, number, number, number] {
  const st = (alea(`${seed}\u0000eval-bootstrap\u0000${key}`, { state: true }) as unknown as { state(): AleaState }).state()
  return [st.c, st.s0, st.s1, st.s2]
}
interface AleaState {
  c: number
  s0: number
  s1: number
  s2: number
}

/** A draw of items 0 … n-1 with replacement: randInt over rngFor's stream, without its calls per number. */
export function drawer(seed: number, key: string): (n: number) => number {
  const next = bootstrapStream(seed, key)
  return (n) => {
    const limit = Math.floor(2 ** 32 / n) * n
    for (;;) {
      const x = (next() * 4294967296) >>> 0
      if (x < limit) return x % n
    }
  }
}

/** Index lists of `resamples` draws of n items, from the stream keyed by `key`. */
export function resampleIndices(n: number, resamples: number, seed: number, key: string): Uint32Array[] {
  const draw = drawer(seed, key)
  const out: Uint32Array[] = []
  for (let r = 0; r < resamples; r++) {
    const idx = new Uint32Array(n)
    for (let i = 0; i < n; i++) idx[i] = draw(n)
    out.push(idx)
  }
  return out
}

/** What every score is a mean or a binning of, per item: as scoresOf computes them. */
export interface ItemStats {
  conf: Float64Array
  correct: Float64Array
  nll: Float64Array
  brier: Float64Array
  bin: Uint8Array
}

export function itemStats(probs: readonly (readonly number[])[], gold: readonly number[]): ItemStats {
  const n = probs.length
  const s: ItemStats = {
    conf: new Float64Array(n),
    correct: new Float64Array(n),
    nll: new Float64Array(n),
    brier: new Float64Array(n),
    bin: new Uint8Array(n),
  }
  probs.forEach((p, i) => {
    const g = gold[i]!
    const conf = Math.max(...p)
    s.conf[i] = conf
    s.correct[i] = argmax(p) === g ? 1 : 0
    s.nll[i] = -Math.log(Math.max(p[g]!, NLL_FLOOR))
    s.brier[i] = npSum(p.map((x, k) => (x - (k === g ? 1 : 0)) * (x - (k === g ? 1 : 0))))
    s.bin[i] = binOf(conf)
  })
  return s
}

/**
 * Scores of weighted items, added one at a time: the weighted means, and ECE over the weighted
 * bins (each bin's share of the weight times the gap between its weighted confidence and accuracy).
 * With equal weights these are the reference scores, up to the order of summation.
 */
export class WeightedScores {
  private readonly w = new Float64Array(ECE_BINS)
  private readonly c = new Float64Array(ECE_BINS)
  private readonly y = new Float64Array(ECE_BINS)
  private total = 0
  private nll = 0
  private brier = 0

  constructor(private readonly s: ItemStats) {}

  reset(): void {
    this.w.fill(0)
    this.c.fill(0)
    this.y.fill(0)
    this.total = this.nll = this.brier = 0
  }

  add(i: number, weight = 1): void {
    const b = this.s.bin[i]!
    this.w[b]! += weight
    this.c[b]! += weight * this.s.conf[i]!
    this.y[b]! += weight * this.s.correct[i]!
    this.total += weight
    this.nll += weight * this.s.nll[i]!
    this.brier += weight * this.s.brier[i]!
  }

  scores(): ScoreValues {
    let ece = 0
    let acc = 0
    let conf = 0
    for (let b = 0; b < ECE_BINS; b++) {
      const w = this.w[b]!
      if (w === 0) continue
      ece += Math.abs(this.c[b]! - this.y[b]!)
      acc += this.y[b]!
      conf += this.c[b]!
    }
    const t = this.total
    return { acc: acc / t, ece: ece / t, nll: this.nll / t, brier: this.brier / t, mean_conf: conf / t }
  }
}

/** Per score, the values of every resample, filled in as the resamples are scored. */
export class Samples {
  readonly values: Record<ScoreName, Float64Array>
  constructor(resamples: number) {
    this.values = Object.fromEntries(SCORE_NAMES.map((s) => [s, new Float64Array(resamples)])) as Record<ScoreName, Float64Array>
  }
  set(r: number, v: ScoreValues): void {
    for (const s of SCORE_NAMES) this.values[s][r] = v[s]
  }
  /** The 95 % percentile interval of each score, over the resamples that have one (a resample may hold no item of a small subset). */
  intervals(): Intervals {
    return Object.fromEntries(
      SCORE_NAMES.map((s) => {
        const sorted = this.values[s].filter((x) => !Number.isNaN(x)).sort()
        return [s, [quantile(sorted, 0.025), quantile(sorted, 0.975)]]
      }),
    ) as Intervals
  }
}

/** The resamples' scores of the items at `members` (indices into the stats), each draw indexing into `members`. */
export function resampledScores(stats: ItemStats, members: ArrayLike<number>, draws: readonly Uint32Array[]): Samples {
  const acc = new WeightedScores(stats)
  const out = new Samples(draws.length)
  draws.forEach((idx, r) => {
    acc.reset()
    for (let k = 0; k < idx.length; k++) acc.add(members[idx[k]!]!)
    out.set(r, acc.scores())
  })
  return out
}

const all = (n: number) => Uint32Array.from({ length: n }, (_, i) => i)

/** The 95 % percentile interval of each score, over the resamples of `probs` (one per item) and their right options. */
export function intervals(probs: readonly (readonly number[])[], gold: readonly number[], draws: readonly Uint32Array[]): Intervals {
  return resampledScores(itemStats(probs, gold), all(probs.length), draws).intervals()
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
  if (!other) return intervals(probs, gold, draws)
  const a = new WeightedScores(itemStats(probs, gold))
  const b = new WeightedScores(itemStats(other, gold))
  const out = new Samples(draws.length)
  draws.forEach((idx, r) => {
    a.reset()
    b.reset()
    for (let k = 0; k < idx.length; k++) {
      a.add(idx[k]!)
      b.add(idx[k]!)
    }
    const sa = a.scores()
    const sb = b.scores()
    out.set(r, Object.fromEntries(SCORE_NAMES.map((s) => [s, sb[s] - sa[s]])) as ScoreValues)
  })
  return out.intervals()
}
