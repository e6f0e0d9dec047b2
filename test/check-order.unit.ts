import assert from 'node:assert/strict'
import { test } from 'node:test'
import { rootCausesFirst } from '../src/check/check-order.ts'

test('rootCausesFirst: missing and unlisted files, then rows, then bytes, then the rest, each group in the order found', () => {
  const found = [
    'val: x has 9 items, the recipe wants 10',
    "val.jsonl: does not match the manifest's sha256/bytes",
    'README.md: the counts table does not match the records',
    'val.jsonl: row count differs from the manifest',
    'manifest.json: outputs do not list borrowed-options.svg',
    'test.jsonl: missing',
    'README.md: missing',
    'test.jsonl line 3: not JSON',
  ]
  assert.deepEqual(rootCausesFirst(found), [
    'test.jsonl: missing',
    'README.md: missing',
    'manifest.json: outputs do not list borrowed-options.svg',
    'val.jsonl: row count differs from the manifest',
    "val.jsonl: does not match the manifest's sha256/bytes",
    'val: x has 9 items, the recipe wants 10',
    'README.md: the counts table does not match the records',
    'test.jsonl line 3: not JSON',
  ])
  assert.deepEqual(rootCausesFirst([]), [])
  assert.equal(rootCausesFirst(found).length, found.length, 'nothing dropped')
})
