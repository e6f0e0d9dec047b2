/**
 * The reference protocol's scores: accuracy, ECE over 15 equal-width bins of top confidence,
 * NLL (floor 1e-12), multi-class Brier and mean confidence, computed in the reference
 * evaluator's order of operations (numeric.ts) over the items in the dataset's record order.
 */
import { npMean, npSum } from './numeric.ts'

export const NLL_FLOOR = 1e-12
export const ECE_BINS = 15

/** What one block of scores holds, under the reference evaluator's names. */
export interface Scores {
  count: number
  acc: number
  ece: number
  nll: number
  brier: number
  mean_conf: number
}
export const SCORE_NAMES = ['acc', 'ece', 'nll', 'brier', 'mean_conf'] as const
export type ScoreName = (typeof SCORE_NAMES)[number]

/** One scored item: its option values (logits or probabilities, one per option) and the right option. */
export interface Scored {
  values: readonly number[]
  gold: number
}

/** softmax of the first n logits at temperature T, shifted by their maximum. */
export function softmax(logits: readonly number[], T = 1): number[] {
  const z = logits.map((x) => x / T)
  let max = -Infinity
  for (const x of z) if (x > max) max = x
  const e = z.map((x) => Math.exp(x - max))
  const s = npSum(e)
  return e.map((x) => x / s)
}

/** The first index of the largest value: ties go to the earlier option, as numpy's argmax breaks them. */
export function argmax(p: readonly number[]): number {
  let best = 0
  for (let i = 1; i < p.length; i++) if (p[i]! > p[best]!) best = i
  return best
}

/** The bin of a confidence: the count of inner edges i/15 at or below it, as np.digitize counts them. */
export function binOf(conf: number): number {
  let idx = 0
  for (let i = 1; i < ECE_BINS; i++) if (EDGES[i]! <= conf) idx = i
  return idx
}
// np.linspace(0, 1, 16): i times the step 1/15
const EDGES = Array.from({ length: ECE_BINS + 1 }, (_, i) => i * (1 / ECE_BINS))

export function ece(conf: readonly number[], correct: readonly number[]): number {
  // each bin's items in their order, so its means are summed as numpy sums them
  const bins: number[][] = Array.from({ length: ECE_BINS }, () => [])
  for (let i = 0; i < conf.length; i++) bins[binOf(conf[i]!)]!.push(i)
  let total = 0
  for (const inBin of bins) {
    if (inBin.length === 0) continue
    const share = inBin.length / conf.length
    total += share * Math.abs(npMean(inBin.map((i) => conf[i]!)) - npMean(inBin.map((i) => correct[i]!)))
  }
  return total
}

// numpy squares by multiplying
const square = (d: number) => d * d

/** The scores of items whose probabilities are in hand. */
export function scoresOf(probs: readonly (readonly number[])[], gold: readonly number[]): Scores {
  const conf = probs.map((p) => Math.max(...p))
  const correct = probs.map((p, i) => (argmax(p) === gold[i] ? 1 : 0))
  return {
    count: probs.length,
    acc: npMean(correct),
    ece: ece(conf, correct),
    nll: npMean(probs.map((p, i) => -Math.log(Math.max(p[gold[i]!]!, NLL_FLOOR)))),
    brier: npMean(probs.map((p, i) => npSum(p.map((x, k) => square(x - (k === gold[i] ? 1 : 0)))))),
    mean_conf: npMean(conf),
  }
}

/** Each item's probabilities: its values as they are (probabilities mode), or their softmax at T. */
export function probabilitiesOf(items: readonly Scored[], T: number, alreadyProbs: boolean): number[][] {
  return items.map((it) => (alreadyProbs ? [...it.values] : softmax(it.values, T)))
}

export function scores(items: readonly Scored[], T: number, alreadyProbs: boolean): Scores {
  return scoresOf(
    probabilitiesOf(items, T, alreadyProbs),
    items.map((it) => it.gold),
  )
}

/** Scores per group, the groups in the order of their keys as strings (code units). */
export function breakdown<I extends Scored>(
  items: readonly I[],
  key: (it: I) => string,
  T: number,
  alreadyProbs: boolean,
): Record<string, Scores> {
  const groups = new Map<string, I[]>()
  for (const it of items) {
    const k = key(it)
    const g = groups.get(k)
    if (g) g.push(it)
    else groups.set(k, [it])
  }
  const keys = [...groups.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return Object.fromEntries(keys.map((k) => [k, scores(groups.get(k)!, T, alreadyProbs)]))
}

/** The mean cross-entropy of the right option at temperature T. */
export function goldNll(items: readonly Scored[], T: number): number {
  return npMean(items.map((it) => -Math.log(Math.max(softmax(it.values, T)[it.gold]!, NLL_FLOOR))))
}

/**
 * The temperature minimising the right option's cross-entropy on `items`: a ternary search over
 * log T in [-3, 3], 40 rounds, the protocol's search step for step.
 */
export function fitTemperature(items: readonly Scored[], lo = -3, hi = 3, rounds = 40): number {
  for (let r = 0; r < rounds; r++) {
    const a = lo + (hi - lo) / 3
    const b = hi - (hi - lo) / 3
    if (goldNll(items, Math.exp(a)) < goldNll(items, Math.exp(b))) hi = b
    else lo = a
  }
  return Math.exp((lo + hi) / 2)
}
