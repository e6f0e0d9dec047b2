import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { Screen, screenedFile } from '../src/borrow/screen.ts'
import type { ProvenanceLine } from '../src/emit/provenance.ts'
import { type Build, drawSample, parseBuild, parseMarks, renderSheet, scoreMarks } from '../src/review/judge-sheets.ts'
import { parseScreenMarks, renderScreenSheet, type ScreenItem } from '../src/review/screen-sheets.ts'
import { ROOT } from './helpers/cli.ts'
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

describe('screening sheets', () => {
  const item = (id: string, n: number): ScreenItem => ({
    id,
    split: 'test',
    source: 'arc_easy',
    question: `Question ${id}?`,
    context: null,
    options: ['right one', 'wrong one'],
    answer: 0,
    candidates: Array.from({ length: n }, (_, i) => ({ text: `Cand ${i}`, norm: `cand ${i}`, lender: 'arc_easy-x', index: i })),
  })
  const items = [item('q1', 3), item('q2', 2)]

  test('a screening sheet marks the right answer and numbers the candidates; a recheck sheet asks for w, r or f', () => {
    const sheet = renderScreenSheet(items, 'Sheet 1')
    assert.match(sheet, /^- ✓ right one$/m)
    assert.match(sheet, /^## 2 \(2 candidates\)$/m)
    assert.match(sheet, /^3\. Cand 2$/m)
    assert.match(renderScreenSheet(items, 'Recheck 1', true), /^- w — surely wrong/m)
  })

  test('marks are read by item number; a wrong count, a wrong letter or an item twice is an error naming the file', () => {
    assert.deepEqual(
      parseScreenMarks('1: a f r\n2: f a\n', items, 'm.txt'),
      new Map([
        ['q1', 'afr'],
        ['q2', 'fa'],
      ]),
    )
    assert.throws(() => parseScreenMarks('1: a f\n', items, 'm.txt'), /m\.txt: item 1 has 3 candidates, 2 marks/)
    assert.throws(() => parseScreenMarks('1: a f w\n', items, 'm.txt'), /m\.txt: item 1: marks must be a, f, r/)
    assert.throws(() => parseScreenMarks('2: f a\n2: a a\n', items, 'm.txt'), /item 2 is marked twice/)
    assert.deepEqual(parseScreenMarks('2: w r\n', items, 'm.txt', true), new Map([['q2', 'wr']]))
  })

  test('a recheck keeps only the accepted candidates both reviewers took for wrong options that belong', () => {
    const file = screenedFile(items, new Map([['q1', 'aaf']]), new Map([['q1', 'wr']]))
    assert.deepEqual(file.items.q1, { shown: ['cand 0', 'cand 1', 'cand 2'], marks: 'aaf', recheck: 'wr' })
    const screen = new Screen(file)
    assert.equal(screen.accepts('q1', 'cand 0'), true)
    assert.equal(screen.accepts('q1', 'cand 1'), false)
    assert.equal(screen.accepts('q1', 'cand 2'), false)
    assert.throws(() => screenedFile(items, new Map([['q1', 'aaf']]), new Map([['q1', 'w']])), /one recheck mark per accepted candidate/)
  })
})

test("the sheets are the committed rounds' sheets, byte for byte: a screening round, a recheck and 1.3.0's judging sample", () => {
  const read = (...p: string[]) => readFileSync(join(ROOT, ...p), 'utf8')
  for (const [dir, recheck] of [
    ['screen', false],
    ['recheck', true],
  ] as const) {
    const { sheets, items } = JSON.parse(read('docs/judging', dir, 'items.json')) as { sheets: string[][]; items: ScreenItem[] }
    const byId = new Map(items.map((x) => [x.id, x]))
    const on = sheets[0]!.map((id) => byId.get(id)!)
    assert.equal(renderScreenSheet(on, `${recheck ? 'Recheck sheet' : 'Sheet'} 1`, recheck), read('docs/judging', dir, 'screen-1.md'), dir)
  }
  const out = parseBuild({ test: read('out/test.jsonl'), val: read('out/val.jsonl'), provenance: read('out/provenance.jsonl') })
  const sample = JSON.parse(read('docs/judging/1.3.0/sample.json')) as { sheets: number[][]; items: Parameters<typeof renderSheet>[1] }
  const first = sample.items.filter((x) => sample.sheets[0]!.includes(x.n))
  assert.equal(renderSheet(out, first, 'Sheet 1'), read('docs/judging/1.3.0/sheet-1.md'))
})
