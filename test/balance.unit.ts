import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { isJevError } from '../src/errors.ts'
import { N_CHOICES, type QuotaTable } from '../src/recipe/schema.ts'
import { assignBalanced, balancedTable, dealWithinSource } from '../src/select/balance.ts'
import type { QuotaItem } from '../src/select/quota.ts'
import { randInt, rngFor } from '../src/shape/rng.ts'

const SPEC_TEST: QuotaTable = { '2': 296, '3': 151, '4': 207, '5': 158, '6': 110, '7': 162, '8': 107 }
const COUNTS = { jcommonsenseqa: 300, mmlu: 291, arc_challenge: 250, arc_easy: 200 }

function checkRounding(counts: Map<string, number>, slots: Map<number, number>, seed: number): void {
  const { shares, cells } = balancedTable(counts, slots, seed, 'test')
  for (const [s, c] of counts) {
    const row = cells.get(s)!
    assert.equal(
      [...row.values()].reduce((a, b) => a + b, 0),
      c,
      `${s}: row sum`,
    )
    for (const n of N_CHOICES) {
      const { num, den } = shares.get(s)!.get(n)!
      const v = row.get(n)!
      assert.ok(v * den >= num - den && v * den <= num + den, `${s} n=${n}: ${v} is not within one of ${num}/${den}`)
      assert.ok(v === Math.floor(num / den) || v === Math.ceil(num / den), `${s} n=${n}: ${v} rounds ${num}/${den}`)
    }
  }
  for (const n of N_CHOICES)
    assert.equal(
      [...cells.values()].reduce((a, row) => a + row.get(n)!, 0),
      slots.get(n) ?? 0,
      `n=${n}: column sum`,
    )
}

describe('the balanced source × n table (Amendment 1.3)', () => {
  test("the spec's test table: both margins exact, every cell the floor or ceiling of its share", () => {
    const slots = new Map(N_CHOICES.map((n) => [n, SPEC_TEST[n] - (n === 2 ? 150 : 0)]))
    checkRounding(new Map(Object.entries(COUNTS)), slots, 1234)
    const { cells } = balancedTable(new Map(Object.entries(COUNTS)), slots, 1234, 'test')
    // 300 of 1041 free items at 8 options: 107 × 300 / 1041 = 30.8
    assert.ok([30, 31].includes(cells.get('jcommonsenseqa')!.get(8)!))
  })

  test('random tables: a controlled rounding always exists and is found', () => {
    const rng = rngFor(7, 'test', 'balance')
    for (let t = 0; t < 300; t++) {
      const k = 1 + randInt(rng, 6)
      const counts = new Map(Array.from({ length: k }, (_, i) => [`s${i}`, randInt(rng, 40)]))
      const total = [...counts.values()].reduce((a, b) => a + b, 0)
      const slots = new Map<number, number>(N_CHOICES.map((n) => [n, 0]))
      for (let i = 0; i < total; i++) {
        const n = N_CHOICES[randInt(rng, 7)]!
        slots.set(n, slots.get(n)! + 1)
      }
      checkRounding(counts, slots, t)
    }
  })

  test('the same inputs give the same table; another seed may break ties otherwise, within the same bounds', () => {
    const slots = new Map(N_CHOICES.map((n) => [n, SPEC_TEST[n] - (n === 2 ? 150 : 0)]))
    const a = balancedTable(new Map(Object.entries(COUNTS)), slots, 1234, 'test').cells
    const b = balancedTable(new Map(Object.entries(COUNTS).reverse()), slots, 1234, 'test').cells
    for (const s of Object.keys(COUNTS))
      assert.deepEqual(
        [...a.get(s)!],
        [...b.get(s)!].sort((x, y) => x[0] - y[0]),
      )
  })
})

describe('the deal within a source', () => {
  const items = (caps: number[]): QuotaItem[] => caps.map((capacity, i) => ({ id: `q${i}`, group: 'g', capacity }))

  test('every item gets an n it can reach and every cell is filled exactly', () => {
    const rng = rngFor(3, 'test', 'deal')
    for (let t = 0; t < 200; t++) {
      const list = items(Array.from({ length: 30 }, () => 2 + randInt(rng, 7)))
      // cells that the capacities can hold: each item's own capacity, then moved down at random
      const cells = new Map<number, number>(N_CHOICES.map((n) => [n, 0]))
      for (const i of list) {
        const n = Math.max(2, i.capacity - randInt(rng, 3))
        cells.set(n, cells.get(n)! + 1)
      }
      const got = dealWithinSource('s', list, cells, t, 'val')
      assert.equal(got.size, list.length)
      for (const i of list) assert.ok(got.get(i.id)! <= i.capacity, `${i.id}: dealt ${got.get(i.id)} over ${i.capacity}`)
      for (const n of N_CHOICES) assert.equal([...got.values()].filter((v) => v === n).length, cells.get(n), `n=${n}`)
    }
  })

  test('a source whose items cannot reach its cells stops with QUOTA naming split, source, n and the shortfall', () => {
    const cells = new Map<number, number>([
      [8, 3],
      [4, 2],
    ])
    try {
      dealWithinSource('mmlu', items([8, 8, 5, 4, 4]), cells, 1, 'test')
      assert.fail('dealt')
    } catch (e) {
      assert.ok(isJevError(e))
      assert.equal(e.code, 'QUOTA')
      assert.match(e.message, /^test: mmlu cannot fill its option counts: 3 of its items must take 8 or more options, 2 can \(1 short\)/)
      assert.deepEqual([e.context.split, e.context.source, e.context.n, e.context.shortfall], ['test', 'mmlu', 8, 1])
      assert.match(String(e.context.hint), /screen more of mmlu's candidates/)
    }
  })

  test('assignBalanced: fixed items keep theirs, and each source holds its cells', () => {
    const rng = rngFor(5, 'test', 'split')
    const list = [
      ...Array.from({ length: 20 }, (_, i) => ({ id: `b${i}`, source: 'boolq', group: 'boolq/boolq', capacity: 2, fixed: 2 })),
      ...Array.from({ length: 60 }, (_, i) => ({ id: `e${i}`, source: 'en', group: 'en/en', capacity: 4 + randInt(rng, 5) })),
      ...Array.from({ length: 40 }, (_, i) => ({ id: `j${i}`, source: 'ja', group: 'ja/ja', capacity: 5 + randInt(rng, 4) })),
    ]
    const quota: QuotaTable = { '2': 30, '3': 15, '4': 20, '5': 15, '6': 10, '7': 15, '8': 15 }
    const { counts, table } = assignBalanced(list, quota, 1234, 'test')
    for (let i = 0; i < 20; i++) assert.equal(counts.get(`b${i}`), 2)
    for (const s of ['en', 'ja'])
      for (const n of N_CHOICES)
        assert.equal(list.filter((i) => i.source === s && counts.get(i.id) === n).length, table.cells.get(s)!.get(n), `${s} n=${n}`)
    // 60 of 100 free items: 60 % of each column
    assert.ok([8, 9].includes(table.cells.get('en')!.get(8)!))
  })
})
