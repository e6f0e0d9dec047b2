import assert from 'node:assert/strict'
import { test } from 'node:test'
import { GramIndex } from '../src/contam/gram-index.ts'

const words = (s: string) => s.split(' ')

for (const [name, hash] of [
  ['its own hash', undefined],
  ['one hash for every gram', () => 7],
] as const)
  test(`grams are told apart by their units, not their hash (${name})`, () => {
    const index = new GramIndex(3, hash)
    index.add(0, words('a b c d a b c'), 5)
    index.add(1, words('b c d x y'), 2)
    index.add(2, words('c b a'), 1)
    const at = (text: string) => index.gramAt(index.numbered(words(text)), 0)
    // "a b c" twice in item 0 is one entry; "b c d" in items 0 and 1, in the order they came
    assert.deepEqual(index.itemsOf(at('a b c')), [0])
    assert.deepEqual(index.itemsOf(at('b c d')), [0, 1])
    assert.deepEqual(index.itemsOf(at('c d x')), [1])
    assert.deepEqual(index.itemsOf(at('c b a')), [2])
    assert.deepEqual(index.itemsOf(at('d a b')), [0])
    // the same units in another order, a gram past `starts` and one with a unit no item has are not there
    for (const missing of ['c a b', 'd x y', 'a b z']) assert.equal(at(missing), -1)
    assert.deepEqual(
      [...index.numbered(words('a zz d'))].map((n) => n >= 0),
      [true, false, true],
    )
  })
