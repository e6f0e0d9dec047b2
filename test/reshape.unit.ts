import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Borrowed, Lending } from '../src/borrow/lend.ts'
import { type Candidate, toCandidate } from '../src/prepare/eligibility.ts'
import { allDistinct, reshape } from '../src/shape/reshape.ts'
import { normalize } from '../src/util/canonical.ts'
import { uq } from './helpers/questions.ts'

const item = (id: string, options: string[], answer: number) => toCandidate(uq({ id, options, answer }))
const five = item('q5', ['red', 'green', 'blue', 'yellow', 'black'], 2)
const three = item('q3', ['Paris', 'Lyon', 'Nice'], 1)

/** Reshape's side of the lending: what it is given it appends, in order (what to lend is src/borrow/'s, tested there). */
function listLending(lender: Candidate): Lending & { texts: string[] } {
  const lent = (c: Candidate): Borrowed[] =>
    lender.options.flatMap((text, index) => (c.normOptions.includes(normalize(text)) ? [] : [{ text, lender: lender.id, index }]))
  return {
    texts: lender.options,
    capacity: (c) => Math.min(8, c.options.length + lent(c).length),
    borrow(c, k) {
      const list = lent(c)
      if (list.length < k) throw new RangeError(`${c.id}: ${list.length} options to borrow, ${k} needed`)
      return list.slice(0, k)
    },
  }
}
// six to lend besides three's own "Paris", spelled differently
const small = listLending(item('o', ['  PARIS', 'Rome', 'Oslo', 'Bern', 'Kyiv', 'Riga', 'Baku'], 0))
const big = listLending(
  item(
    'b',
    Array.from({ length: 40 }, (_, i) => `city ${i}`),
    0,
  ),
)

describe('reshape: shrink', () => {
  test('keeps the right answer and n options, all from the original', () => {
    for (const n of [2, 3, 4]) {
      for (let seed = 0; seed < 50; seed++) {
        const r = reshape(five, n, undefined, seed, false)
        assert.equal(r.choices.length, n)
        assert.equal(r.choices[r.answer], 'blue')
        for (const c of r.choices) assert.ok(five.options.includes(c))
        assert.ok(allDistinct(r.choices))
      }
    }
  })

  test('keeps each wrong option about equally often', () => {
    const kept = new Map<string, number>()
    for (let i = 0; i < 4000; i++) {
      const c = item(`s${i}`, ['w0', 'w1', 'right', 'w2', 'w3'], 2)
      for (const t of reshape(c, 3, undefined, 1234, false).choices) kept.set(t, (kept.get(t) ?? 0) + 1)
    }
    assert.equal(kept.get('right'), 4000)
    // each wrong option is kept with probability 2/4: 2000 expected, sd ≈ 32
    for (const w of ['w0', 'w1', 'w2', 'w3']) assert.ok(kept.get(w)! > 1850 && kept.get(w)! < 2150, `${w}: ${kept.get(w)}`)
  })
})

describe('reshape: grow', () => {
  for (const [name, lending] of [
    ['small lending', small],
    ['large lending', big],
  ] as const) {
    test(`keeps every original and borrows only what it is lent (${name})`, () => {
      const poolTexts = new Set(lending.texts)
      const ownNorm = new Set(three.normOptions)
      for (let seed = 0; seed < 100; seed++) {
        const r = reshape(three, 8, lending, seed, false)
        assert.equal(r.choices.length, 8)
        assert.equal(r.choices[r.answer], 'Lyon')
        for (const o of three.options) assert.ok(r.choices.includes(o))
        const borrowed = r.choices.filter((c) => !three.options.includes(c))
        assert.equal(borrowed.length, 5)
        for (const b of borrowed) {
          assert.ok(poolTexts.has(b), b)
          assert.ok(!ownNorm.has(normalize(b)), `borrowed own text ${b}`)
        }
        assert.ok(allDistinct(r.choices))
      }
    })
  }

  test('borrows every lendable text when the lending is exactly big enough', () => {
    // small lends Rome, Oslo, Bern, Kyiv, Riga, Baku ("  PARIS" is the item's own)
    const r = reshape(three, 3 + 6, small, 1, false)
    assert.deepEqual(new Set(r.choices), new Set(['Paris', 'Lyon', 'Nice', 'Rome', 'Oslo', 'Bern', 'Kyiv', 'Riga', 'Baku']))
  })

  test('fails loudly when the lending cannot lend enough or is missing', () => {
    assert.throws(() => reshape(three, 3 + 7, small, 1, false), RangeError)
    assert.throws(() => reshape(three, 4, undefined, 1, false), RangeError)
  })
})

describe('reshape: order', () => {
  test('keepOrder leaves yes/no in place and points at the right one', () => {
    const yes = item('y', ['yes', 'no'], 0)
    const no = item('n', ['yes', 'no'], 1)
    for (let seed = 0; seed < 20; seed++) {
      assert.deepEqual(reshape(yes, 2, undefined, seed, true), {
        choices: ['yes', 'no'],
        answer: 0,
        origins: [
          { from: 'upstream', index: 0 },
          { from: 'upstream', index: 1 },
        ],
      })
      assert.deepEqual(reshape(no, 2, undefined, seed, true), {
        choices: ['yes', 'no'],
        answer: 1,
        origins: [
          { from: 'upstream', index: 0 },
          { from: 'upstream', index: 1 },
        ],
      })
    }
  })

  test('same n keeps the options but shuffles them', () => {
    const r = reshape(five, 5, undefined, 3, false)
    assert.deepEqual([...r.choices].sort(), [...five.options].sort())
    assert.equal(r.choices[r.answer], 'blue')
    let moved = 0
    for (let seed = 0; seed < 20; seed++) if (reshape(five, 5, undefined, seed, false).choices.join() !== five.options.join()) moved++
    assert.ok(moved >= 18)
  })

  test('is deterministic for a seed', () => {
    assert.deepEqual(reshape(three, 6, big, 42, false), reshape(three, 6, big, 42, false))
    const differ = [1, 2, 3, 4, 5].some(
      (s) => JSON.stringify(reshape(three, 6, big, s, false)) !== JSON.stringify(reshape(three, 6, big, 42, false)),
    )
    assert.ok(differ)
  })

  test('its streams are keyed by the upstream identity, not the id: the same content draws the same', () => {
    for (let i = 0; i < 10; i++) {
      const options = [`a${i}`, `b${i}`, `c${i}`, `d${i}`, `e${i}`]
      const one = toCandidate(uq({ id: `x${i}`, question: `Same ${i}?`, options, answer: 1 }))
      const twin = toCandidate(uq({ id: `y${i}`, question: `Same ${i}?`, options, answer: 1 }))
      assert.notEqual(one.id, twin.id)
      assert.equal(one.identity, twin.identity)
      for (const n of [3, 5, 7]) assert.deepEqual(reshape(twin, n, big, 42, false), reshape(one, n, big, 42, false), `${i} n=${n}`)
    }
  })

  test('spreads the right answer evenly over positions', () => {
    // 2000 items whose right answer is always upstream option 0
    const count = (n: number, upstream: number) => {
      const pos = Array<number>(n).fill(0)
      const lending = listLending(item('p', ['pa', 'pb', 'pc', 'pd', 'pe'], 0))
      for (let i = 0; i < 2000; i++) {
        const c = item(
          `pos${i}`,
          Array.from({ length: upstream }, (_, k) => `opt ${k}`),
          0,
        )
        pos[reshape(c, n, lending, 1234, false).answer]!++
      }
      return pos
    }
    for (const c of count(4, 4)) assert.ok(c >= 400 && c <= 600, `n=4: ${c}`)
    for (const c of count(4, 5)) assert.ok(c >= 400 && c <= 600, `n=4 shrunk: ${c}`)
    // n = 8 grown from 4: 250 expected per position, sd ≈ 15
    for (const c of count(8, 4)) assert.ok(c >= 190 && c <= 310, `n=8: ${c}`)
  })
})

describe('allDistinct', () => {
  test('compares normalised texts', () => {
    assert.equal(allDistinct(['a', 'b', 'c']), true)
    assert.equal(allDistinct(['a', 'A ']), false)
    assert.equal(allDistinct(['ｘ', 'x']), false)
  })
})
