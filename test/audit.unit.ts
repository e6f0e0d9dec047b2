import assert from 'node:assert/strict'
import { test } from 'node:test'
import { computeAudit } from '../src/emit/audit.ts'
import type { ProvenanceLine } from '../src/emit/provenance.ts'
import type { DataRecord } from '../src/emit/schema.ts'
import { recipeOf, sourceSpec } from './helpers/questions.ts'

const rec = (
  id: string,
  source: string,
  question: string,
  choices: string[],
  answer_idx: number,
  context: string | null = null,
): DataRecord => ({
  id,
  source,
  question,
  context,
  choices,
  answer_idx,
  n_choices: choices.length,
})
const up = (i: number) => ({ from: 'upstream' as const, index: i })
const lent = (lender: string, i: number) => ({ from: 'borrowed' as const, lender, index: i })
const line = (r: DataRecord, split: 'test' | 'val', choices: ProvenanceLine['choices']): ProvenanceLine => ({
  id: r.id,
  split,
  upstream: { repo: 'acme/x', commit: '0'.repeat(40), path: 'f.parquet', id: r.id.split('-')[1]! },
  choices,
})

const arc = sourceSpec({ name: 'arc', language: 'en' })
const yesno = sourceSpec({ name: 'bq', language: 'en', fixedChoices: 2, shuffle: false })
const recipe = recipeOf([arc, yesno])
// grown: 4 options, 2 borrowed; the right answer is the longest and shares "gas" with the question
const grown = rec('arc-1', 'arc', 'Which gas do plants take in?', ['carbon dioxide gas', 'salt', 'iron', 'moon'], 0)
// not grown, negative, and the shortest option is right
const negative = rec('arc-2', 'arc', 'Which is not a metal?', ['S', 'iron', 'copper'], 0)
const yes = rec('bq-3', 'bq', 'is the sky blue', ['yes', 'no'], 0, 'The sky is blue.')
const no = rec('bq-4', 'bq', 'is grass red', ['yes', 'no'], 1, 'Grass is green.')
const records = { test: [grown, negative, yes, no], val: [] }
const provenance = [
  line(grown, 'test', [up(0), up(1), lent('arc-9', 2), lent('arc-8', 1)]),
  line(negative, 'test', [up(2), up(0), up(1)]),
  line(yes, 'test', [up(0), up(1)]),
  line(no, 'test', [up(0), up(1)]),
]
const audit = computeAudit(records, provenance, recipe)

test('counts grown items and borrowed options by source and by option count', () => {
  assert.deepEqual(audit.test.bySource, { arc: { items: 2, grown: 1, borrowed: 2 }, bq: { items: 2, grown: 0, borrowed: 0 } })
  assert.deepEqual(audit.test.byChoices['4'], { items: 1, grown: 1, borrowed: 2 })
  assert.deepEqual(audit.test.byChoices['2'], { items: 2, grown: 0, borrowed: 0 })
  assert.deepEqual(audit.val.bySource.arc, { items: 0, grown: 0, borrowed: 0 })
})

test('chance floor against the chance of a model that spots every borrowed option', () => {
  // floor: mean of 1/4, 1/3, 1/2, 1/2; spotter: 1/2 (two upstream options kept), 1/3, 1/2, 1/2
  assert.equal(audit.test.chance.floor.all, Math.round(((1 / 4 + 1 / 3 + 1 / 2 + 1 / 2) / 4) * 1e4) / 1e4)
  assert.equal(audit.test.chance.spotter.all, Math.round(((1 / 2 + 1 / 3 + 1 / 2 + 1 / 2) / 4) * 1e4) / 1e4)
  assert.equal(audit.test.chance.floor.grown, 0.25)
  assert.equal(audit.test.chance.spotter.grown, 0.5)
})

test('artifact baselines never read the answer; ties share the credit', () => {
  // longest: right on arc-1; arc-2's longest is "copper" (wrong); yes/no tie at 2 and 3 letters: "no" is shorter
  assert.equal(audit.test.baselines.longest.grown, 1)
  assert.equal(audit.test.baselines.longest.all, Math.round(((1 + 0 + 1 + 0) / 4) * 1e4) / 1e4)
  assert.equal(audit.test.baselines.shortest.all, Math.round(((0 + 1 + 0 + 1) / 4) * 1e4) / 1e4)
  // overlap: "gas" picks arc-1's answer; arc-2 shares nothing (a three-way tie, 1/3); neither "yes" nor "no" is in a BoolQ question (a tie, 1/2)
  assert.equal(audit.test.baselines.overlap.all, Math.round(((1 + 1 / 3 + 1 / 2 + 1 / 2) / 4) * 1e4) / 1e4)
  assert.equal(audit.test.baselines.overlap.grown, 1)
})

test('negative items and the first-option share of sources that keep the upstream order', () => {
  assert.deepEqual(audit.test.negatives, { items: 1, grown: 0 })
  assert.deepEqual(audit.test.firstRight, { bq: { items: 2, first: 1 } })
})
