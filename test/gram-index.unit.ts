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
    assert.equal(index.add(words('a b c d a b c'), 7, 5), 0)
    assert.equal(index.add(words('b c d x y'), 2, 2), 1)
    assert.equal(index.add(words('c b a'), 3, 1), 2)
    const at = (text: string) => index.itemsWith(index.numbered(words(text)), 0)
    // "a b c" twice in item 0 counts once; "b c d" is in items 0 and 1, in the order they came
    assert.deepEqual(at('a b c'), [0])
    assert.deepEqual(at('b c d'), [0, 1])
    assert.deepEqual(at('c d x'), [1])
    assert.deepEqual(at('c b a'), [2])
    assert.deepEqual(at('d a b'), [0])
    // the same units in another order, a gram past `starts` and one with a unit no item has are not there
    for (const missing of ['c a b', 'd x y', 'a b z']) assert.deepEqual(at(missing), [])
    assert.deepEqual(
      [...index.numbered(words('a zz d'))].map((n) => n >= 0),
      [true, false, true],
    )
    // an item's question is its first units: item 1's is "b c"
    assert.equal(index.questionIs(1, index.numbered(words('b c d')), 2), true)
    assert.equal(index.questionIs(1, index.numbered(words('b c d')), 3), false)
    assert.equal(index.questionIs(2, index.numbered(words('c b a')), 3), true)
    assert.deepEqual([...index.question(2)], [...index.numbered(words('c b a'))])
    assert.throws(() => index.add(['a'], 1, 0), /after a look-up/)
  })
