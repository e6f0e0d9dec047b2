import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compareBuilds } from '../src/check/compare.ts'
import type { DataRecord } from '../src/emit/schema.ts'

const r = (id: string, choices: string[], answer_idx = 0): DataRecord => ({
  id,
  source: id.split('-')[0]!,
  question: `q ${id}`,
  context: null,
  choices,
  answer_idx,
  n_choices: choices.length,
})

test('kept, options changed and replaced, per source, keyed by split and id', () => {
  const before = { test: [r('a-1', ['x', 'y']), r('a-2', ['x', 'y']), r('b-1', ['p', 'q', 's'])], val: [r('a-3', ['x', 'y'])] }
  const after = {
    test: [r('b-1', ['q', 'p', 's'], 1), r('a-1', ['x', 'y']), r('a-4', ['x', 'y'])],
    // a-2 moved to val: a question new to that split counts as a replacement
    val: [r('a-3', ['x', 'y']), r('a-2', ['x', 'y'])],
  }
  assert.deepEqual(compareBuilds(before, after, ['b', 'a']), {
    b: { kept: 0, optionsChanged: 1, replaced: 0 },
    a: { kept: 2, optionsChanged: 0, replaced: 2 },
  })
  // sources the order does not name come after, in code-unit order
  assert.deepEqual(Object.keys(compareBuilds(before, after)), ['a', 'b'])
})

test('a build compared with itself is all kept', () => {
  const same = { test: [r('a-1', ['x', 'y'])], val: [r('a-2', ['x', 'y', 'z'])] }
  assert.deepEqual(compareBuilds(same, same), { a: { kept: 2, optionsChanged: 0, replaced: 0 } })
})
