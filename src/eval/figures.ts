/**
 * The report's breakdowns, each group with 95 % bootstrap intervals: by option count (pooled, and
 * standardised to one source mix), by source, by source and option count, and by upstream options
 * kept. Standardising lets a reader compare option counts where each holds a different source mix.
 *
 * The resamples are stratified: each cell of items with one source, option count and number of
 * upstream options kept is resampled within itself, and every group is a union of cells, so a
 * group keeps its make-up in every resample. A subset (the clean items) is scored on its items
 * in the same resamples.
 */
import { type Intervals, itemStats, type Samples, type ScoreValues } from './bootstrap.ts'
import { type Scores, scoresOf } from './metrics.ts'
import { type Component, StratifiedBootstrap, type Stratum } from './stratified.ts'

/** What a breakdown needs of a scored test item. */
export interface GroupedItem {
  source: string
  n: number
  upstreamKept: number | null
}

/** A group's scores and the 95 % bootstrap interval of each. */
export interface Figure extends Scores {
  ci: Intervals
}

/** Sources that always have two options (BoolQ): outside the standard mix, since they cannot be compared across option counts. */
export const FIXED_N_SOURCES: readonly string[] = ['boolq']

export interface StandardisedFigure extends Figure {
  /** the weighted mean of the per-source ECEs, which small cells bias upwards; `ece` bins the weighted items together */
  ece_of_sources: number
}

/** Scores by option count, each the mean of its per-source scores weighted by `weights` (direct standardisation). */
export interface Standardised {
  sources: string[]
  /** each source's share: of the split's items outside FIXED_N_SOURCES, among `sources` */
  weights: Record<string, number>
  by_n: Record<string, StandardisedFigure>
  /** option counts not standardised, with the sources that have no item there */
  missing: Record<string, string[]>
}

export interface Breakdowns {
  by_n: Record<string, Figure>
  /** the option counts BoolQ shares (n = 2), without it */
  by_n_without_boolq: Record<string, Figure>
  by_source: Record<string, Figure>
  by_source_n: Record<string, Record<string, Figure>>
  /** over every source of the standard mix; null without one */
  standardised: Standardised | null
  /** when some source has no item at some option count: over the sources present at every one, so every option count is compared */
  standardised_common: Standardised | null
  by_upstream_kept: Record<string, Figure>
  by_upstream_kept_n: Record<string, Record<string, Figure>>
}

export interface BootstrapSettings {
  resamples: number
  seed: number
  /** what every cell's stream is keyed by, besides the cell */
  key: string
}

/** A subset's figures: all its items as one group, and its breakdowns by option count (pooled and standardised) and by source. */
export interface SubsetFigures {
  whole?: Figure
  breakdowns: SubsetBreakdowns
}
export type SubsetBreakdowns = Pick<Breakdowns, 'by_n' | 'by_n_without_boolq' | 'by_source' | 'standardised' | 'standardised_common'>

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
/** Numbers in numeric order, anything else after them in code-unit order. */
const byNumber = (a: string, b: string) => {
  const x = Number(a)
  const y = Number(b)
  if (Number.isFinite(x) && Number.isFinite(y)) return x - y
  return Number.isFinite(x) ? -1 : Number.isFinite(y) ? 1 : byCodeUnit(a, b)
}

function groupBy<T>(list: readonly T[], keyOf: (x: T) => string, order: (a: string, b: string) => number): [string, T[]][] {
  const m = new Map<string, T[]>()
  for (const x of list) {
    const k = keyOf(x)
    const g = m.get(k)
    if (g) g.push(x)
    else m.set(k, [x])
  }
  return [...m.entries()].sort(([a], [b]) => order(a, b))
}

/** The standard mix: each source's share of the items outside FIXED_N_SOURCES, sources in code-unit order. */
export function standardWeights(items: readonly GroupedItem[]): Record<string, number> {
  const mixed = items.filter((it) => !FIXED_N_SOURCES.includes(it.source))
  return Object.fromEntries(groupBy(mixed, (it) => it.source, byCodeUnit).map(([s, g]) => [s, g.length / mixed.length]))
}

/** A stratum: items of one source, option count and number of upstream options kept. */
interface Cell extends Stratum {
  index: number
  source: string
  n: string
  kept: string
  /** its members: all, and in the subset */
  in: number[][]
}

/** A figure whose intervals wait for the resamples: every group is registered first, then all are scored in one pass. */
type Pending<T> = (samples: readonly Samples[], points: readonly ScoreValues[]) => T
const resolve = <T>(r: Record<string, Pending<T>>, samples: readonly Samples[], points: readonly ScoreValues[]): Record<string, T> =>
  Object.fromEntries(Object.entries(r).map(([k, f]) => [k, f(samples, points)]))

/**
 * The figures of every item, and of those `inSubset` says are in a subset (the clean items; its
 * breakdowns are the ones the report shows for it), standardised to `weights`.
 */
export function subsetFigures(
  items: readonly GroupedItem[],
  probs: readonly (readonly number[])[],
  gold: readonly number[],
  inSubset: ((i: number) => boolean) | null,
  weights: Record<string, number>,
  b: BootstrapSettings,
): { all: Breakdowns; subset: SubsetFigures | null } {
  const outside = inSubset ? Uint8Array.from(items, (_, i) => (inSubset(i) ? 0 : 1)) : null
  const keyed = items.map((it, i) => ({
    i,
    source: it.source,
    n: String(it.n),
    kept: it.upstreamKept === null ? 'unknown' : String(it.upstreamKept),
  }))
  const cells: Cell[] = groupBy(keyed, (x) => `${x.source}\u0000${x.n}\u0000${x.kept}`, byCodeUnit).map(([key, g], index) => ({
    index,
    key,
    source: g[0]!.source,
    n: g[0]!.n,
    kept: g[0]!.kept,
    members: g.map((x) => x.i),
    in: [g.map((x) => x.i), ...(outside ? [g.filter((x) => outside[x.i] === 0).map((x) => x.i)] : [])],
  }))
  const engine = new StratifiedBootstrap(itemStats(probs, gold), cells, outside ? [outside] : [])
  const all = plan(cells, 0, weights, engine, probs, gold, true)
  const subset = outside ? plan(cells, 1, weights, engine, probs, gold, false) : null
  const samples = engine.run(b.resamples, b.seed, b.key)
  const points = engine.point()
  // the whole set's plan has every breakdown
  return { all: all(samples, points).breakdowns as Breakdowns, subset: subset ? subset(samples, points) : null }
}

function plan(
  all: readonly Cell[],
  subset: number,
  weights: Record<string, number>,
  engine: StratifiedBootstrap,
  probs: readonly (readonly number[])[],
  gold: readonly number[],
  everything: boolean,
): Pending<{ whole?: Figure; breakdowns: SubsetBreakdowns & Partial<Breakdowns> }> {
  const cells = all.filter((c) => c.in[subset]!.length > 0)
  // a group's scores on its items in item order, as the reference evaluator's breakdowns compute them
  const point = (list: readonly Cell[]) => {
    const members = list.flatMap((c) => c.in[subset]!).sort((x, y) => x - y)
    return scoresOf(
      members.map((i) => probs[i]!),
      members.map((i) => gold[i]!),
    )
  }
  const pool = (list: readonly Cell[]): Pending<Figure> => {
    const at = engine.group([{ strata: list.map((c) => c.index), subset, weight: 1 }])
    const scores = point(list)
    return (samples) => ({ ...scores, ci: samples[at]!.intervals() })
  }
  const by = (list: readonly Cell[], keyOf: (c: Cell) => string, order = byNumber) =>
    Object.fromEntries(groupBy(list, keyOf, order).map(([k, g]) => [k, pool(g)]))
  const nested = (keyOf: (c: Cell) => string, order: (a: string, b: string) => number) =>
    groupBy(cells, keyOf, order).map(([k, g]) => [k, by(g, (c) => c.n)] as const)
  const fixed = (c: Cell) => FIXED_N_SOURCES.includes(c.source)
  const fixedNs = new Set(cells.filter(fixed).map((c) => c.n))
  // the whole set's own interval is the result's headline one; a subset's is here
  const whole = everything ? null : pool(cells)
  const byN = by(cells, (c) => c.n)
  const withoutFixed = by(
    cells.filter((c) => !fixed(c) && fixedNs.has(c.n)),
    (c) => c.n,
  )
  const bySource = by(cells, (c) => c.source, byCodeUnit)
  const bySourceN = everything ? nested((c) => c.source, byCodeUnit) : []
  const byKept = everything ? by(cells, (c) => c.kept) : {}
  const byKeptN = everything ? nested((c) => c.kept, byNumber) : []
  const std = standardisedBlocks(cells, subset, weights, point, (components) => engine.group(components))
  return (samples, points) => {
    const shown = {
      by_n: resolve(byN, samples, points),
      by_n_without_boolq: resolve(withoutFixed, samples, points),
      by_source: resolve(bySource, samples, points),
      standardised: std.full?.(samples, points) ?? null,
      standardised_common: std.common?.(samples, points) ?? null,
    }
    if (whole) return { whole: whole(samples, points), breakdowns: shown }
    return {
      breakdowns: {
        ...shown,
        by_source_n: Object.fromEntries(bySourceN.map(([k, r]) => [k, resolve(r, samples, points)])),
        by_upstream_kept: resolve(byKept, samples, points),
        by_upstream_kept_n: Object.fromEntries(byKeptN.map(([k, r]) => [k, resolve(r, samples, points)])),
      },
    }
  }
}

function standardisedBlocks(
  cells: readonly Cell[],
  subset: number,
  weights: Record<string, number>,
  point: (list: readonly Cell[]) => Scores,
  group: (components: Component[]) => number,
): { full?: Pending<Standardised>; common?: Pending<Standardised> } {
  const sources = Object.keys(weights)
  if (sources.length === 0) return {}
  const ns = [...new Set(cells.filter((c) => sources.includes(c.source)).map((c) => c.n))].sort(byNumber)
  const has = (s: string, n: string) => cells.some((c) => c.source === s && c.n === n)
  const common = sources.filter((s) => ns.every((n) => has(s, n)))
  const sum = common.reduce((a, s) => a + weights[s]!, 0)
  const block = (w: Record<string, number>) => standardised(cells, subset, w, ns, point, group)
  return {
    full: block(weights),
    ...(common.length === sources.length || common.length === 0
      ? {}
      : { common: block(Object.fromEntries(common.map((s) => [s, weights[s]! / sum]))) }),
  }
}

function standardised(
  cells: readonly Cell[],
  subset: number,
  weights: Record<string, number>,
  ns: readonly string[],
  point: (list: readonly Cell[]) => Scores,
  group: (components: Component[]) => number,
): Pending<Standardised> {
  const sources = Object.keys(weights)
  const missing: Record<string, string[]> = {}
  const rows: [string, Pending<StandardisedFigure>][] = []
  for (const n of ns) {
    const bySource = sources.map((s) => ({ s, list: cells.filter((c) => c.source === s && c.n === n) }))
    const absent = bySource.filter((x) => x.list.length === 0).map((x) => x.s)
    if (absent.length) {
      missing[n] = absent
      continue
    }
    // each source's items at n pooled, then weighed by its share: so every source weighs its share at every n
    const at = group(bySource.map(({ s, list }) => ({ strata: list.map((c) => c.index), subset, weight: weights[s]! })))
    const perSource = bySource.map(({ s, list }) => ({ w: weights[s]!, scores: point(list) }))
    const mean = (name: keyof ScoreValues) => perSource.reduce((a, { w, scores }) => a + w * scores[name], 0)
    const count = bySource.reduce((a, { list }) => a + list.reduce((x, c) => x + c.in[subset]!.length, 0), 0)
    rows.push([
      n,
      (samples, points) => ({
        count,
        acc: mean('acc'),
        // the weighted items binned together: a mean of per-source ECEs would add each small cell's upward bias
        ece: points[at]!.ece,
        nll: mean('nll'),
        brier: mean('brier'),
        mean_conf: mean('mean_conf'),
        ci: samples[at]!.intervals(),
        ece_of_sources: mean('ece'),
      }),
    ])
  }
  return (samples, points) => ({ sources, weights, by_n: resolve(Object.fromEntries(rows), samples, points), missing })
}
