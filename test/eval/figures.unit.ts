/** The breakdowns' arithmetic: standardisation, the stratified resamples and their stream, the temperature's edge. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { drawer, intervals, itemStats, resampleIndices } from '../../src/eval/bootstrap.ts'
import { type GroupedItem, standardWeights, subsetFigures } from '../../src/eval/figures.ts'
import { scoresOf } from '../../src/eval/metrics.ts'
import { StratifiedBootstrap } from '../../src/eval/stratified.ts'
import { temperatureFit } from '../../src/eval/temperature.ts'
import { randInt, rngFor } from '../../src/shape/rng.ts'

/** Items of two sources over two option counts, a BoolQ-like source at n = 2, each with its probabilities. */
function fixture() {
  const items: (GroupedItem & { p: number[]; gold: number })[] = []
  const add = (source: string, n: number, count: number, conf: number, right: (k: number) => boolean) => {
    for (let k = 0; k < count; k++) {
      const p = Array.from({ length: n }, (_, i) => (i === 0 ? conf : (1 - conf) / (n - 1)))
      items.push({ source, n, upstreamKept: n, p, gold: right(k) ? 0 : 1 })
    }
  }
  add('boolq', 2, 10, 0.8, (k) => k < 8)
  add('en', 2, 30, 0.8, (k) => k < 24)
  add('en', 4, 10, 0.8, (k) => k < 8)
  add('ja', 4, 20, 0.9, (k) => k < 13)
  return items
}
const B = { resamples: 200, seed: 7, key: 'k' }

test('standardised by n: the per-source means weighted by the non-BoolQ shares; an n a source lacks is named, and the sources present at every n standardise it', () => {
  const items = fixture()
  const w = standardWeights(items)
  assert.deepEqual(w, { en: 40 / 60, ja: 20 / 60 })
  const { all } = subsetFigures(
    items,
    items.map((it) => it.p),
    items.map((it) => it.gold),
    null,
    w,
    B,
  )
  const s = all.standardised!
  assert.deepEqual(s.missing, { 2: ['ja'] })
  const at4 = s.by_n['4']!
  const en4 = all.by_source_n.en!['4']!
  const ja4 = all.by_source_n.ja!['4']!
  for (const k of ['acc', 'nll', 'brier', 'mean_conf'] as const) assert.ok(Math.abs(at4[k] - (w.en! * en4[k] + w.ja! * ja4[k])) < 1e-12, k)
  assert.ok(Math.abs(at4.ece_of_sources - (w.en! * en4.ece + w.ja! * ja4.ece)) < 1e-12)
  // one bin per source here: the weighted items' ECE is the weighted gap, |0.8 − 0.8| · ⅔ + |0.9 − 0.65| · ⅓
  assert.ok(Math.abs(at4.ece - (2 / 3) * 0 - (1 / 3) * 0.25) < 1e-12)
  assert.equal(at4.count, 30)
  assert.ok(at4.ci.acc[0] <= at4.acc && at4.acc <= at4.ci.acc[1])
  // without ja, every n: en alone, weight 1
  const c = all.standardised_common!
  assert.deepEqual(c.sources, ['en'])
  assert.deepEqual(Object.keys(c.by_n), ['2', '4'])
  assert.ok(Math.abs(c.by_n['2']!.acc - 0.8) < 1e-12)
  // pooled groups are the reference scores on their items; n = 2 is also given without BoolQ
  const pooled2 = items.filter((it) => it.n === 2)
  assert.deepEqual(
    { ...all.by_n['2'], ci: undefined },
    {
      ...scoresOf(
        pooled2.map((it) => it.p),
        pooled2.map((it) => it.gold),
      ),
      ci: undefined,
    },
  )
  assert.equal(all.by_n_without_boolq['2']!.count, 30)
  assert.deepEqual(Object.keys(all.by_n_without_boolq), ['2'])
})

test('the clean subset is scored in the same resamples, on its own items, standardised to the given weights', () => {
  const items = fixture()
  const w = standardWeights(items)
  const clean = (i: number) => i % 10 !== 3
  const { subset } = subsetFigures(
    items,
    items.map((it) => it.p),
    items.map((it) => it.gold),
    clean,
    w,
    B,
  )
  const kept = items.filter((_, i) => clean(i))
  assert.equal(subset!.whole!.count, kept.length)
  assert.deepEqual(subset!.breakdowns.standardised!.weights, w)
  const s = scoresOf(
    kept.map((it) => it.p),
    kept.map((it) => it.gold),
  )
  assert.equal(subset!.whole!.acc, s.acc)
  assert.ok(!Number.isNaN(subset!.whole!.ci.ece[0]))
})

test("the resamples are rngFor's seeded alea stream with randInt, drawn with no call per number, and one stratum scores as the plain bootstrap", () => {
  const rng = rngFor(1234, 'eval-bootstrap', 'x')
  const draw = drawer(1234, 'x')
  for (const n of [1, 2, 7, 1191, 3_000_000_019 % 2 ** 32]) for (let k = 0; k < 50; k++) assert.equal(draw(n), randInt(rng, n))
  const items = fixture()
  const probs = items.map((it) => it.p)
  const gold = items.map((it) => it.gold)
  const members = items.map((_, i) => i)
  const engine = new StratifiedBootstrap(itemStats(probs, gold), [{ members, key: 'one' }])
  const g = engine.group([{ strata: [0], subset: 0, weight: 1 }])
  const samples = engine.run(300, 99, 'key')
  assert.deepEqual(samples[g]!.intervals(), intervals(probs, gold, resampleIndices(members.length, 300, 99, 'key\u0000one')))
  // the same seed, the same intervals; another seed, others
  assert.deepEqual(engine.run(300, 99, 'key')[g]!.intervals(), samples[g]!.intervals())
  assert.notDeepEqual(engine.run(300, 100, 'key')[g]!.intervals(), samples[g]!.intervals())
})

test('a temperature at the edge of the reference search (log T in [-3, 3]) is flagged, with the unbounded fit beside it', () => {
  // 60 % right with logits 100 apart: the best T is far above e^3
  const flat = [
    ...Array.from({ length: 6 }, () => ({ values: [100, 0], gold: 0 })),
    ...Array.from({ length: 4 }, () => ({ values: [100, 0], gold: 1 })),
  ]
  const hi = temperatureFit(flat, Math.exp(3))
  assert.equal(hi.at_edge, true)
  assert.ok(hi.unbounded.temperature > 200 && !hi.unbounded.at_limit, String(hi.unbounded.temperature))
  assert.ok(hi.unbounded.val_nll < hi.val_nll)
  // all right by a hair: the loss falls as T → 0, past every bound
  const sharp = Array.from({ length: 10 }, () => ({ values: [0.001, 0], gold: 0 }))
  const lo = temperatureFit(sharp, Math.exp(-3))
  assert.equal(lo.at_edge, true)
  assert.equal(lo.unbounded.at_limit, true)
  // inside the search: not flagged, and the unbounded fit is the fit
  const inside = temperatureFit(
    [...Array.from({ length: 7 }, () => ({ values: [1, 0], gold: 0 })), ...Array.from({ length: 3 }, () => ({ values: [1, 0], gold: 1 }))],
    1.18,
  )
  assert.equal(inside.at_edge, false)
  assert.equal(inside.unbounded.temperature, 1.18)
})
