import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type Build, drawSample, parseMarks, renderSheet, scoreMarks } from '../scripts/judging/sheet.ts'
import type { ProvenanceLine } from '../src/emit/provenance.ts'
import { rec } from './helpers/questions.ts'

// six records, the odd ones grown with one borrowed option at the end
const records = Array.from({ length: 6 }, (_, i) => rec(`a-${i}`, 4, 0, i % 2 ? 'arc' : 'mmlu'))
const provenance: ProvenanceLine[] = records.map((r, i) => ({
  id: r.id,
  split: 'test',
  upstream: { repo: 'x/y', commit: '0'.repeat(40), path: 'p', id: r.id },
  choices: [0, 1, 2, 3].map((k) =>
    i % 2 && k === 3 ? { from: 'borrowed' as const, lender: 'arc-z', index: 1 } : { from: 'upstream' as const, index: k },
  ),
}))
const build: Build = { records: { test: records, val: [] }, provenance }

test('the sample is the grown items, seeded, the same whatever the record order; the sheet never says which option was borrowed', () => {
  const sample = drawSample(build, 7, { test: 3, val: 0 })
  assert.deepEqual(sample.map((s) => s.id).sort(), ['a-1', 'a-3', 'a-5'])
  const reversed = drawSample({ ...build, records: { test: [...records].reverse(), val: [] } }, 7, { test: 3, val: 0 })
  assert.deepEqual(reversed, sample)
  assert.throws(() => drawSample(build, 7, { test: 4, val: 0 }), /3 grown items, 4 asked for/)
  const sheet = renderSheet(build, sample, 'Sheet 1')
  assert.doesNotMatch(sheet, /borrow|arc-z|answer_idx/)
  assert.match(sheet, /^D\. o3$/m)
})

test('marks join provenance: foreign and maybe-right borrowed options by source, with the upstream control', () => {
  const sample = drawSample(build, 7, { test: 3, val: 0 })
  const lines = sample.map((s, i) => `${s.n}: b b ${i === 0 ? 'f' : 'b'} ${i === 0 ? 'f' : i === 1 ? 'm' : 'b'}`).join('\n')
  const score = scoreMarks(build, sample, parseMarks(lines, sample, build))
  assert.deepEqual(
    {
      borrowed: score.all.borrowed,
      foreign: score.all.foreign,
      maybe: score.all.maybeRightItems,
      upstreamForeign: score.all.upstreamForeign,
    },
    { borrowed: 3, foreign: 1, maybe: 1, upstreamForeign: 1 },
  )
  assert.throws(() => parseMarks(`${sample[0]!.n}: b b b`, sample, build), /4 options, 3 marks/)
  assert.throws(() => parseMarks('99: b b b b', sample, build), /not on this sheet/)
  assert.throws(() => parseMarks(`${sample[0]!.n}: b b b x`, sample, build), /expected/)
})
