/** The protocol's pieces that a whole run would hide: bins at their edges, ties, the validity rules, the body's bytes. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { extract } from '../../src/eval/answers.ts'
import type { EvalItem } from '../../src/eval/data.ts'
import { argmax, binOf, ece, fitTemperature, scoresOf } from '../../src/eval/metrics.ts'
import { npSum } from '../../src/eval/numeric.ts'
import { systemoneBody } from '../../src/eval/prompt.ts'

const item: EvalItem = {
  id: 'x',
  split: 'test',
  source: 'mmlu',
  question: 'Q ü?',
  context: null,
  choices: ['10', '2', 'b'],
  gold: 1,
  n: 3,
  upstreamKept: 3,
  contaminated: false,
}

test('a confidence on an inner edge k/15 falls in the bin above it, 1.0 in the last; ties go to the first option', () => {
  assert.equal(binOf(0), 0)
  assert.equal(binOf(1 / 15), 1)
  assert.equal(binOf(1 / 15 - 1e-12), 0)
  assert.equal(binOf(1), 14)
  assert.equal(argmax([0.4, 0.4, 0.2]), 0)
  assert.equal(argmax([0.2, 0.4, 0.4]), 1)
  // two items, one bin each: ECE = ½|0.9 − 1| + ½|0.6 − 0|
  assert.ok(Math.abs(ece([0.9, 0.6], [1, 0]) - 0.35) < 1e-15)
})

test('sums in numpy order: eight and more values are added in eight lanes, not left to right', () => {
  const a = [1e16, 1, 1, 1, 1, 1, 1, 1, -1e16]
  let naive = 0
  for (const x of a) naive += x
  assert.notEqual(npSum(a), naive)
  assert.equal(npSum(a), 1e16 + 1 + (1 + 1) + (1 + 1 + (1 + 1)) - 1e16)
})

test('scores and the temperature: a sharp right model is fitted a T that flattens nothing it should not', () => {
  const s = scoresOf([[0.7, 0.2, 0.1]], [0])
  assert.equal(s.acc, 1)
  assert.ok(Math.abs(s.brier - (0.09 + 0.04 + 0.01)) < 1e-15)
  assert.ok(Math.abs(s.nll + Math.log(0.7)) < 1e-15)
  // logits twice too sharp for these outcomes: the fitted T is about 2
  const items = [
    ...Array.from({ length: 30 }, () => ({ values: [2 * Math.log(3), 0], gold: 0 })),
    ...Array.from({ length: 10 }, () => ({ values: [2 * Math.log(3), 0], gold: 1 })),
  ]
  assert.ok(Math.abs(fitTemperature(items) - 2) < 1e-5)
})

test('validity: probabilities off 1 by up to 0.01 are kept and flagged, beyond it or outside [0, 1] or missing an option they are invalid', () => {
  const p = (m: Record<string, unknown>) => extract(item, 'systemone', 'probabilities', { probabilities: m })
  assert.deepEqual(p({ 10: 0.2, 2: 0.5, b: 0.3 }), { ok: true, values: [0.2, 0.5, 0.3], missing: 0, normalised: false })
  assert.deepEqual(p({ 10: 0.2, 2: 0.5, b: 0.295 }), { ok: true, values: [0.2, 0.5, 0.295], missing: 0, normalised: true })
  assert.equal(p({ 10: 0.2, 2: 0.5, b: 0.2 }).ok, false)
  assert.equal(p({ 10: -0.1, 2: 0.8, b: 0.3 }).ok, false)
  assert.equal(p({ 10: 0.5, 2: 0.5 }).ok, false)
  assert.equal(p({ 10: 0.2, 2: '0.5', b: 0.3 }).ok, false)
  assert.equal(extract(item, 'systemone', 'logits', { logits: { 10: 1, 2: Number.NaN, b: 0 } }).ok, false)
})

test("the systemone body is the reference evaluator's bytes: options in record order even when they look like numbers, non-ASCII escaped", () => {
  assert.equal(
    systemoneBody(item, 'Answer:', true),
    '{"model": "jev-latest", "state": "(none)", "questions": {"q": {"type": "choice", "instructions": "Q \\u00fc?", "criteria": {"10": null, "2": null, "b": null}}}, "options": {"return_logits": true, "temperature_scaling": false, "assistant_prefix": "Answer:"}}',
  )
  assert.equal(
    systemoneBody({ ...item, context: '' }, undefined, false),
    '{"model": "jev-latest", "state": "(none)", "questions": {"q": {"type": "choice", "instructions": "Q \\u00fc?", "criteria": {"10": null, "2": null, "b": null}}}}',
  )
})
