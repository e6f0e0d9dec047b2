import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { keyedHash, keyedUnit, type Rng, randInt, rngFor, sample, shuffle } from '../src/shape/rng.ts'

const draw = (rng: Rng, k: number) => Array.from({ length: k }, () => rng.uint32())

/** A fake stream that returns the given values in order, counting the calls. */
function scripted(values: number[]): Rng & { calls: number } {
  const fake = {
    calls: 0,
    uint32() {
      const v = values[fake.calls++]
      if (v === undefined) throw new Error('stream exhausted')
      return v
    },
  }
  return fake
}

describe('rngFor', () => {
  test('same (seed, purpose, key) gives the same stream', () => {
    assert.deepEqual(draw(rngFor(1234, 'shuffle', 'x'), 20), draw(rngFor(1234, 'shuffle', 'x'), 20))
  })

  test('a different seed, purpose or key gives a different stream', () => {
    const base = draw(rngFor(1234, 'shuffle', 'x'), 8)
    assert.notDeepEqual(draw(rngFor(1235, 'shuffle', 'x'), 8), base)
    assert.notDeepEqual(draw(rngFor(1234, 'grow', 'x'), 8), base)
    assert.notDeepEqual(draw(rngFor(1234, 'shuffle', 'y'), 8), base)
  })

  test('purpose and key do not run together', () => {
    // ("ab", "c") and ("a", "bc") must be different streams
    assert.notDeepEqual(draw(rngFor(1, 'ab', 'c'), 8), draw(rngFor(1, 'a', 'bc'), 8))
  })

  test('yields unsigned 32-bit integers', () => {
    for (const x of draw(rngFor(7, 'p', 'k'), 1000)) assert.ok(Number.isInteger(x) && x >= 0 && x < 2 ** 32, String(x))
  })
})

describe('keyedHash / keyedUnit', () => {
  test('are deterministic and key-dependent', () => {
    assert.equal(keyedHash(1, 'p', 'k'), keyedHash(1, 'p', 'k'))
    assert.notEqual(keyedHash(1, 'p', 'k'), keyedHash(1, 'p', 'l'))
    assert.notEqual(keyedHash(1, 'p', 'k'), keyedHash(2, 'p', 'k'))
  })

  test('keyedUnit lies in [0, 1) and is spread out', () => {
    let below = 0
    for (let i = 0; i < 4000; i++) {
      const u = keyedUnit(1234, 'side', `k${i}`)
      assert.ok(u >= 0 && u < 1)
      if (u < 0.25) below++
    }
    // binomial(4000, 0.25): mean 1000, sd ≈ 27
    assert.ok(below > 880 && below < 1120, String(below))
  })
})

describe('randInt', () => {
  test('stays in [0, n)', () => {
    const rng = rngFor(1, 'range', 'k')
    for (const n of [1, 2, 3, 7, 8, 1000, 2 ** 31 + 11, 2 ** 32]) {
      for (let i = 0; i < 500; i++) {
        const x = randInt(rng, n)
        assert.ok(Number.isInteger(x) && x >= 0 && x < n, `${x} for n=${n}`)
      }
    }
  })

  test('rejects bad bounds', () => {
    const rng = rngFor(1, 'range', 'k')
    for (const n of [0, -1, 1.5, Number.NaN, 2 ** 32 + 1]) assert.throws(() => randInt(rng, n), RangeError, String(n))
  })

  test('is roughly uniform (chi-square over 60,000 draws)', () => {
    const n = 6
    const draws = 60_000
    const counts = Array<number>(n).fill(0)
    const rng = rngFor(1234, 'uniformity', 'randInt')
    for (let i = 0; i < draws; i++) counts[randInt(rng, n)]!++
    const expected = draws / n
    const chi2 = counts.reduce((a, c) => a + (c - expected) ** 2 / expected, 0)
    // 5 degrees of freedom: P(chi2 > 30) ≈ 1.5e-5
    assert.ok(chi2 < 30, `chi2 = ${chi2.toFixed(2)}, counts ${counts.join(',')}`)
  })

  test('skips values at or above the largest multiple of n (rejection)', () => {
    // n = 6: limit = floor(2^32 / 6) * 6 = 4294967292, so 4294967292..4294967295 are rejected
    const fake = scripted([4294967295, 4294967292, 4294967291, 99])
    const got = randInt(fake, 6)
    assert.equal(got, 4294967291 % 6)
    assert.equal(fake.calls, 3)
    assert.notEqual(got, 4294967295 % 6, 'the first value, taken without rejection, would give another result')
  })

  test('accepts the largest value below the limit on the first draw', () => {
    const fake = scripted([4294967291])
    assert.equal(randInt(fake, 6), 5)
    assert.equal(fake.calls, 1)
  })
})

describe('shuffle', () => {
  const items = Array.from({ length: 20 }, (_, i) => i)

  test('returns a permutation and leaves the input alone', () => {
    const copy = items.slice()
    const out = shuffle(rngFor(1, 'shuffle', 'a'), items)
    assert.deepEqual(items, copy)
    assert.equal(out.length, items.length)
    assert.deepEqual(
      out.slice().sort((a, b) => a - b),
      items,
    )
    assert.notDeepEqual(out, items)
  })

  test('is deterministic per stream', () => {
    assert.deepEqual(shuffle(rngFor(1, 'shuffle', 'a'), items), shuffle(rngFor(1, 'shuffle', 'a'), items))
    assert.notDeepEqual(shuffle(rngFor(1, 'shuffle', 'a'), items), shuffle(rngFor(1, 'shuffle', 'b'), items))
  })

  test('puts the first element at every position about equally often', () => {
    const where = Array<number>(4).fill(0)
    for (let i = 0; i < 4000; i++) where[shuffle(rngFor(9, 'shuffle', String(i)), [0, 1, 2, 3]).indexOf(0)]!++
    for (const c of where) assert.ok(c > 850 && c < 1150, where.join(','))
  })

  test('handles empty and single-item lists', () => {
    assert.deepEqual(shuffle(rngFor(1, 's', 'k'), []), [])
    assert.deepEqual(shuffle(rngFor(1, 's', 'k'), ['x']), ['x'])
  })
})

describe('sample', () => {
  const items = ['a', 'b', 'c', 'd', 'e', 'f', 'g']

  test('takes k distinct items from the input', () => {
    for (let k = 0; k <= items.length; k++) {
      const out = sample(rngFor(3, 'sample', String(k)), items, k)
      assert.equal(out.length, k)
      assert.equal(new Set(out).size, k)
      for (const x of out) assert.ok(items.includes(x))
    }
  })

  test('refuses more than there are', () => {
    assert.throws(() => sample(rngFor(3, 'sample', 'k'), items, items.length + 1), RangeError)
  })

  test('includes each item with probability k/n', () => {
    const hits = new Map(items.map((x) => [x, 0]))
    const runs = 7000
    for (let i = 0; i < runs; i++) for (const x of sample(rngFor(5, 'sample', String(i)), items, 3)) hits.set(x, hits.get(x)! + 1)
    // expected 3000 each; sd ≈ 41
    for (const [x, c] of hits) assert.ok(c > 2800 && c < 3200, `${x}: ${c}`)
  })
})
