import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { isJevError } from '../src/errors.ts'
import type { QuotaTable } from '../src/recipe/schema.ts'
import { assignQuotas, type QuotaItem } from '../src/select/quota.ts'
import { rngFor, shuffle } from '../src/shape/rng.ts'

const table = (t: Partial<Record<keyof QuotaTable, number>>): QuotaTable => ({
  '2': 0,
  '3': 0,
  '4': 0,
  '5': 0,
  '6': 0,
  '7': 0,
  '8': 0,
  ...t,
})
const items = (n: number, over: Partial<QuotaItem> = {}, prefix = 'i'): QuotaItem[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, group: 'src/src', capacity: 8, ...over }))

function histogram(out: Map<string, number>): QuotaTable {
  const h = table({})
  for (const n of out.values()) h[String(n) as keyof QuotaTable]++
  return h
}

/** The test split's table of the spec scaled down: 100 items. */
const T = table({ '2': 25, '3': 12, '4': 17, '5': 13, '6': 9, '7': 14, '8': 10 })

describe('assignQuotas', () => {
  test('meets the table exactly and gives every item a count', () => {
    const list = items(100)
    const out = assignQuotas(list, T, 1234, 'test')
    assert.equal(out.size, 100)
    for (const it of list) assert.ok(out.has(it.id))
    assert.deepEqual(histogram(out), T)
  })

  test("the deal order follows the items' keys (their identity) when given, not their ids", () => {
    const keyed = items(100).map((it, i) => ({ ...it, key: `identity ${i}` }))
    const renamed = keyed.map((it, i) => ({ ...it, id: `other${i}` }))
    const a = assignQuotas(keyed, T, 1234, 'test')
    const b = assignQuotas(renamed, T, 1234, 'test')
    for (let i = 0; i < 100; i++) assert.equal(b.get(`other${i}`), a.get(`i${i}`), `item ${i}`)
  })

  test('fixed items get their fixed count; the rest fill the table', () => {
    const list = [...items(20, { fixed: 2, capacity: 2, group: 'boolq/boolq' }, 'b'), ...items(80)]
    const out = assignQuotas(list, T, 1234, 'test')
    for (const it of list.slice(0, 20)) assert.equal(out.get(it.id), 2)
    assert.deepEqual(histogram(out), T)
  })

  test('a group that can never go above 4 still meets the table, no item over capacity', () => {
    // like MMLU moral_scenarios: every question has the same four options
    for (let seed = 0; seed < 25; seed++) {
      const list = [...items(30, { capacity: 4, group: 'mmlu/moral_scenarios' }, 'm'), ...items(70)]
      const out = assignQuotas(list, T, seed, 'test')
      assert.deepEqual(histogram(out), T, `seed ${seed}`)
      for (const it of list) assert.ok(out.get(it.id)! <= it.capacity, `seed ${seed}: ${it.id} got ${out.get(it.id)}`)
    }
  })

  test('an impossible table throws QUOTA naming the group', () => {
    // three 8s but only the two unconstrained items can hold 8
    const list = [...items(3, { capacity: 4, group: 'mmlu/moral_scenarios' }, 'm'), ...items(2)]
    assert.throws(
      () => assignQuotas(list, table({ '8': 3, '4': 2 }), 1234, 'test'),
      (e) =>
        isJevError(e) && e.code === 'QUOTA' && e.context.group === 'mmlu/moral_scenarios' && e.message.includes('mmlu/moral_scenarios'),
    )
  })

  test('more fixed items than the quota allows throws QUOTA', () => {
    const list = items(3, { fixed: 2, capacity: 2, group: 'boolq/boolq' })
    assert.throws(
      () => assignQuotas(list, table({ '2': 2, '3': 1 }), 1, 'val'),
      (e) => isJevError(e) && e.code === 'QUOTA' && e.context.group === 'boolq/boolq',
    )
  })

  test('a table whose total differs from the item count throws QUOTA', () => {
    assert.throws(
      () => assignQuotas(items(5), table({ '4': 6 }), 1, 'test'),
      (e) => isJevError(e) && e.code === 'QUOTA',
    )
    assert.throws(
      () => assignQuotas(items(5), table({ '4': 4 }), 1, 'test'),
      (e) => isJevError(e) && e.code === 'QUOTA',
    )
  })

  test('is deterministic and does not depend on input order', () => {
    const list = [...items(30, { capacity: 4, group: 'mmlu/moral_scenarios' }, 'm'), ...items(10, { fixed: 2 }, 'b'), ...items(60)]
    const ref = assignQuotas(list, T, 1234, 'test')
    assert.deepEqual(assignQuotas(list, T, 1234, 'test'), ref)
    assert.deepEqual(assignQuotas(list.slice().reverse(), T, 1234, 'test'), ref)
    assert.deepEqual(assignQuotas(shuffle(rngFor(7, 'unit', 'quota'), list), T, 1234, 'test'), ref)
  })

  test('the seed and the split change the assignment', () => {
    const list = items(100)
    const ref = assignQuotas(list, T, 1234, 'test')
    assert.notDeepEqual(assignQuotas(list, T, 1235, 'test'), ref)
    assert.notDeepEqual(assignQuotas(list, T, 1234, 'val'), ref)
  })

  test('an empty split with an empty table is fine', () => {
    assert.equal(assignQuotas([], table({}), 1, 'val').size, 0)
  })

  test('finds a feasible assignment when it needs a chain of trades', () => {
    // the only fitting assignment is a=4, b=7, c=8; a deal of a=8, b=4, c=7 needs a three-way trade
    const three: QuotaItem[] = [
      { id: 'a', group: 'g/a', capacity: 4 },
      { id: 'b', group: 'g/b', capacity: 7 },
      { id: 'c', group: 'g/c', capacity: 8 },
    ]
    for (let seed = 0; seed < 30; seed++) {
      const out = assignQuotas(three, table({ '4': 1, '7': 1, '8': 1 }), seed, 'test')
      assert.deepEqual([out.get('a'), out.get('b'), out.get('c')], [4, 7, 8], `seed ${seed}`)
    }
    // capacities 3..8 in equal shares satisfy Hall's condition for T (for every k, items with capacity >= k
    // outnumber counts >= k), yet about 6 % of seeds throw
    const caps = [3, 4, 5, 6, 7, 8]
    const mixed = Array.from({ length: 100 }, (_, i) => ({ id: `c${i}`, group: `g/${caps[i % 6]}`, capacity: caps[i % 6]! }))
    for (let seed = 0; seed < 100; seed++) {
      const out = assignQuotas(mixed, T, seed, 'val')
      assert.deepEqual(histogram(out), T)
      for (const it of mixed) assert.ok(out.get(it.id)! <= it.capacity)
    }
  })
})
