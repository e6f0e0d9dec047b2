import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import type { DataRecord } from '../src/emit/schema.ts'
import { computeStats } from '../src/emit/stats.ts'
import { rec } from './helpers/questions.ts'

test('the chance floor is the mean of 1/n (not 1/mean n); positions and counts per split', () => {
  const s = computeStats({ test: [rec('x', 2, 1), rec('y', 8, 7, 'b')], val: [rec('z', 4, 0)] }, ['b', 'a'])
  assert.equal(s.chanceFloor.test, (1 / 2 + 1 / 8) / 2)
  assert.equal(s.chanceFloor.val, 1 / 4)
  assert.deepEqual(s.answerPositions.test, [0, 1, 0, 0, 0, 0, 0, 1])
  assert.deepEqual(s.expectedPositions.test, [0.625, 0.625, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125])
  assert.deepEqual(Object.keys(s.bySource), ['b', 'a'])
  assert.deepEqual(s.bySource.a, { test: 1, val: 1 })
  assert.equal(s.byChoices.test['8'], 1)
})

test("the committed card's chance floor is the mean of 1/n over the committed records", async () => {
  const card = await readFile('out/README.md', 'utf8')
  const m = /Chance floor[^*]*\*\*([\d.]+)\*\* on test, ([\d.]+) on val/.exec(card)
  assert.ok(m, 'the card states the chance floor')
  for (const [split, stated] of [
    ['test', m[1]],
    ['val', m[2]],
  ] as const) {
    const ns = (await readFile(`out/${split}.jsonl`, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as DataRecord).n_choices)
    assert.equal(stated, (ns.reduce((a, n) => a + 1 / n, 0) / ns.length).toFixed(3), split)
  }
})
