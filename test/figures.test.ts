import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Audit } from '../src/audit.ts'
import { barChart, renderFigures } from '../src/figures.ts'
import type { DataRecord } from '../src/schema.ts'
import { computeStats } from '../src/stats.ts'

const rec = (id: string, n: number, answer: number, source = 'a'): DataRecord => ({
  id,
  source,
  question: 'q',
  context: null,
  choices: Array.from({ length: n }, (_, i) => `o${i}`),
  answer_idx: answer,
  n_choices: n,
})

const tally = (items: number, borrowed: number) => ({ items, grown: borrowed ? items : 0, borrowed })
const splitAudit = (byChoices: Record<string, ReturnType<typeof tally>>) => ({
  bySource: {},
  byChoices,
  chance: { floor: { all: 0, grown: 0 }, spotter: { all: 0, grown: 0 } },
  baselines: { longest: { all: 0, grown: 0 }, shortest: { all: 0, grown: 0 }, overlap: { all: 0, grown: 0 } },
  negatives: { items: 0, grown: 0 },
  firstRight: {},
})
const audit: Audit = { test: splitAudit({ '2': tally(1, 0), '8': tally(3, 9) }), val: splitAudit({ '4': tally(1, 0) }) }
const stats = computeStats({ test: [rec('x', 2, 1), rec('y', 8, 7), rec('w', 8, 0), rec('v', 8, 0)], val: [rec('z', 4, 0)] }, ['a'])

/** Every bar's tooltip: "<category>, <series>: <value>". */
const bars = (svg: string) => [...svg.matchAll(/<rect [^>]*><title>([^<]*)<\/title><\/rect>/g)].map((m) => m[1])

test('the option-count figure has one bar per split and option count, with the counts of the records', () => {
  const figure = renderFigures(stats, audit).find((f) => f.name === 'option-counts.svg')!
  const b = bars(figure.svg)
  assert.equal(b.length, 2 * 7)
  assert.ok(b.includes('8 options, test: 3'))
  assert.ok(b.includes('2 options, test: 1'))
  assert.ok(b.includes('4 options, val: 1'))
  assert.ok(b.includes('5 options, val: 0'))
})

test('the answer-position figure draws the observed counts and the uniform expectation per position', () => {
  const figure = renderFigures(stats, audit).find((f) => f.name === 'answer-positions.svg')!
  const b = bars(figure.svg)
  assert.ok(b.includes('A, test: 2'))
  assert.ok(b.includes('B, test: 1'))
  assert.ok(b.includes('H, test: 1'))
  assert.ok(b.includes('C, test: 0'))
  // one dashed marker per position and split: the expected count under a uniform shuffle
  assert.equal(figure.svg.match(/stroke-dasharray/g)!.length, 8 * 2 + 1, 'a marker per bar, and one in the legend')
})

test('the borrowed-options figure stacks upstream and borrowed options of test items by option count', () => {
  const figure = renderFigures(stats, audit).find((f) => f.name === 'borrowed-options.svg')!
  const b = bars(figure.svg)
  // three 8-option items: 24 options, 9 of them borrowed
  assert.ok(b.includes('8 options, upstream: 15'))
  assert.ok(b.includes('8 options, borrowed: 9'))
  assert.ok(!b.some((x) => x!.startsWith('2 options')), 'no 2-option column: nothing grows to 2')
})

test('figures are the same bytes for the same figures, valid numbers only, and escape their text', () => {
  const a = renderFigures(stats, audit)
  const b = renderFigures(computeStats({ test: [rec('v', 8, 0), rec('w', 8, 0), rec('y', 8, 7), rec('x', 2, 1)], val: [rec('z', 4, 0)] }, ['a']), audit)
  assert.deepEqual(a, b, 'record order does not matter')
  for (const f of a) {
    assert.doesNotMatch(f.svg, /NaN|Infinity|undefined/)
    assert.match(f.svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^]*<\/svg>\n$/)
    // balanced: every element opened is closed or self-closing
    const opened = f.svg.match(/<(?!\/)[a-z]+[^>]*[^/]>/g)!.length
    const closed = f.svg.match(/<\/[a-z]+>/g)!.length
    assert.equal(opened, closed, f.name)
  }
  const svg = barChart({ title: 'a < b & "c"', categories: ['<x>'], series: [{ label: 's&t', colour: '#000000', values: [3] }] })
  assert.match(svg, /<title>a &lt; b &amp; &quot;c&quot;<\/title>/)
  assert.match(svg, /&lt;x&gt;, s&amp;t: 3/)
  assert.doesNotMatch(svg, /<x>/)
})

test('an empty chart still has an axis from 0 and no division by zero', () => {
  const svg = barChart({ title: 't', categories: ['a', 'b'], series: [{ label: 's', colour: '#000000', values: [0, 0] }] })
  assert.doesNotMatch(svg, /NaN|Infinity/)
  assert.match(svg, />0<\/text>/)
})
