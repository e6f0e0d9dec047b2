import assert from 'node:assert/strict'
import { test } from 'node:test'
import { oneLine } from '../src/util/oneline.ts'

test('line breaks and the white space around them become one space; other spaces stay', () => {
  assert.equal(oneLine('a\nb'), 'a b')
  assert.equal(oneLine('a  \r\n\n  b\rc'), 'a b c')
  assert.equal(oneLine('a  b'), 'a  b')
})
