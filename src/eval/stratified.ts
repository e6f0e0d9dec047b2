/**
 * A stratified bootstrap for many groups at once: each stratum (a cell of items) is resampled
 * within itself from its own seeded stream, and every group is scored from its strata's sums, so
 * one pass over the draws serves every group. Subset 0 is every item; a further subset (the clean
 * items) is scored on its items in the same resamples.
 */
import { bootstrapState, type ItemStats, Samples, type ScoreValues } from './bootstrap.ts'
import { ECE_BINS } from './metrics.ts'

export interface Stratum {
  /** indices into the item stats, in item order */
  members: readonly number[]
  /** what its stream is keyed by */
  key: string
}

/** The items of `strata` in `subset`, pooled; in its group they weigh `weight` together (a standardised mean's source share). */
export interface Component {
  strata: readonly number[]
  subset: number
  weight: number
}

// the sums kept per stratum and subset: confidence and right answers per ECE bin, then items, NLL and Brier
const CONF = 0
const RIGHT = ECE_BINS
const ITEMS = 2 * ECE_BINS
const NLL = ITEMS + 1
const BRIER = ITEMS + 2
const FIELDS = ITEMS + 3

type Plan = ReturnType<StratifiedBootstrap['compile']>

export class StratifiedBootstrap {
  private readonly groups: Component[][] = []
  private readonly subsets: number

  /**
   * `outside[s - 1][i]` is 1 when item i is not in subset s. A subset's sums are every item's less
   * those outside it, so a subset that leaves out few items costs few additions.
   */
  constructor(
    private readonly stats: ItemStats,
    private readonly strata: readonly Stratum[],
    private readonly outside: readonly Uint8Array[] = [],
  ) {
    this.subsets = outside.length + 1
  }

  /** A group to score; its index among the samples `run` returns. */
  group(components: Component[]): number {
    return this.groups.push(components) - 1
  }

  /** The groups' scores on the items as they are: each stratum's members once. */
  point(): ScoreValues[] {
    const plan = this.compile()
    const sums = new Float64Array(this.strata.length * this.subsets * FIELDS)
    this.strata.forEach((s, k) => {
      this.accumulate(sums, k, Int32Array.from(s.members), null)
    })
    const scores = new Float64Array(5)
    return this.groups.map((_, g) => {
      this.score(sums, plan, g, scores)
      return { acc: scores[0]!, ece: scores[1]!, nll: scores[2]!, brier: scores[3]!, mean_conf: scores[4]! }
    })
  }

  /** The groups' scores over `resamples` resamples, each stratum drawn from the stream keyed by `key` and its own key. */
  run(resamples: number, seed: number, key: string): Samples[] {
    const plan = this.compile()
    const sums = new Float64Array(this.strata.length * this.subsets * FIELDS)
    // each stratum's alea state, stepped as seedrandom's alea steps it (test/eval/figures.unit.ts holds the draws equal)
    const state = Float64Array.from(this.strata.flatMap((s) => bootstrapState(seed, `${key}\u0000${s.key}`)))
    const members = this.strata.map((s) => Int32Array.from(s.members))
    const out = this.groups.map(() => new Samples(resamples))
    const columns = out.map((s) => [s.values.acc, s.values.ece, s.values.nll, s.values.brier, s.values.mean_conf])
    const scores = new Float64Array(5)
    for (let r = 0; r < resamples; r++) {
      sums.fill(0)
      for (let k = 0; k < members.length; k++) this.accumulate(sums, k, members[k]!, state)
      for (let g = 0; g < columns.length; g++) {
        this.score(sums, plan, g, scores)
        const col = columns[g]!
        for (let s = 0; s < 5; s++) col[s]![r] = scores[s]!
      }
    }
    return out
  }

  /**
   * Adds stratum k's items to its sums: a resample of them drawn with `state` (randInt's
   * rejection over alea, so every member is equally likely), or with no state each once.
   */
  private accumulate(sums: Float64Array, k: number, list: Int32Array, state: Float64Array | null): void {
    const { conf, correct, nll, brier, bin } = this.stats
    const outside = this.outside
    const S = this.subsets
    const m = list.length
    const limit = Math.floor(4294967296 / m) * m
    const base = k * S * FIELDS
    let c = 0
    let s0 = 0
    let s1 = 0
    let s2 = 0
    if (state) {
      c = state[4 * k]!
      s0 = state[4 * k + 1]!
      s1 = state[4 * k + 2]!
      s2 = state[4 * k + 3]!
    }
    for (let j = 0; j < m; j++) {
      let i = list[j]!
      if (state) {
        let x = limit
        while (x >= limit) {
          const t = 2091639 * s0 + c * 2.3283064365386963e-10
          s0 = s1
          s1 = s2
          c = t | 0
          s2 = t - c
          x = (s2 * 4294967296) >>> 0
        }
        i = list[x % m]!
      }
      const b = bin[i]!
      sums[base + CONF + b]! += conf[i]!
      sums[base + RIGHT + b]! += correct[i]!
      sums[base + ITEMS]! += 1
      sums[base + NLL]! += nll[i]!
      sums[base + BRIER]! += brier[i]!
      // a further subset first sums the items outside it, subtracted below
      for (let sub = 1; sub < S; sub++) {
        if (outside[sub - 1]![i] === 0) continue
        const at = base + sub * FIELDS
        sums[at + CONF + b]! += conf[i]!
        sums[at + RIGHT + b]! += correct[i]!
        sums[at + ITEMS]! += 1
        sums[at + NLL]! += nll[i]!
        sums[at + BRIER]! += brier[i]!
      }
    }
    if (state) {
      state[4 * k] = c
      state[4 * k + 1] = s0
      state[4 * k + 2] = s1
      state[4 * k + 3] = s2
    }
    for (let sub = 1; sub < S; sub++) {
      const at = base + sub * FIELDS
      for (let f = 0; f < FIELDS; f++) sums[at + f] = sums[base + f]! - sums[at + f]!
    }
  }

  /** The groups as flat arrays: per group its components; per component its weight and its strata's sums (offset and the bins their items fall in). */
  private compile() {
    const binsOf = this.strata.map((s) => [...new Set(s.members.map((i) => this.stats.bin[i]!))].sort((a, b) => a - b))
    const groupStart = [0]
    const weight: number[] = []
    const slotStart = [0]
    const slots: number[] = []
    const binStart = [0]
    const bins: number[] = []
    for (const g of this.groups) {
      for (const c of g) {
        weight.push(c.weight)
        for (const k of c.strata) {
          slots.push((k * this.subsets + c.subset) * FIELDS)
          bins.push(...binsOf[k]!)
          binStart.push(bins.length)
        }
        slotStart.push(slots.length)
      }
      groupStart.push(weight.length)
    }
    return {
      groupStart: Int32Array.from(groupStart),
      weight: Float64Array.from(weight),
      slotStart: Int32Array.from(slotStart),
      slots: Int32Array.from(slots),
      binStart: Int32Array.from(binStart),
      bins: Int32Array.from(bins),
      pooled: new Float64Array(FIELDS),
      total: new Float64Array(FIELDS),
    }
  }

  /** Group g's scores from the strata's sums into `out` (acc, ece, nll, brier, mean_conf): each component pooled, then weighed in; one with no item is left out. */
  private score(sums: Float64Array, p: Plan, g: number, out: Float64Array): void {
    const { groupStart, slotStart, slots, binStart, bins, weight, pooled, total } = p
    const first = groupStart[g]!
    const end = groupStart[g + 1]!
    // one component: its pooled sums are the group's (the weight cancels)
    const single = end - first === 1
    const t = single ? pooled : total
    if (!single) t.fill(0)
    for (let c = first; c < end; c++) {
      pooled.fill(0)
      for (let s = slotStart[c]!; s < slotStart[c + 1]!; s++) {
        const at = slots[s]!
        for (let x = binStart[s]!; x < binStart[s + 1]!; x++) {
          const b = bins[x]!
          pooled[CONF + b]! += sums[at + CONF + b]!
          pooled[RIGHT + b]! += sums[at + RIGHT + b]!
        }
        pooled[ITEMS]! += sums[at + ITEMS]!
        pooled[NLL]! += sums[at + NLL]!
        pooled[BRIER]! += sums[at + BRIER]!
      }
      if (single) break
      const n = pooled[ITEMS]!
      if (n === 0) continue
      const w = weight[c]! / n
      for (let f = 0; f < FIELDS; f++) t[f]! += w * pooled[f]!
    }
    let ece = 0
    let acc = 0
    let conf = 0
    for (let b = 0; b < ECE_BINS; b++) {
      ece += Math.abs(t[CONF + b]! - t[RIGHT + b]!)
      acc += t[RIGHT + b]!
      conf += t[CONF + b]!
    }
    // no item (a subset's group may have none in a resample): NaN, which the intervals leave out
    const w = t[ITEMS]!
    out[0] = acc / w
    out[1] = ece / w
    out[2] = t[NLL]! / w
    out[3] = t[BRIER]! / w
    out[4] = conf / w
  }
}
