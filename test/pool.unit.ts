import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { UpstreamQuestion } from '../src/adapt/adapter.ts'
import { buildPool, buildPools, capacity, groupOf } from '../src/borrow/pool.ts'
import { toCandidate } from '../src/prepare/eligibility.ts'
import { compareStrings } from '../src/util/canonical.ts'
import { sourceSpec, uq } from './helpers/questions.ts'

const cand = (id: string, options: string[], over: Partial<UpstreamQuestion> = {}) => toCandidate(uq({ id, options, ...over }))
const texts = (p: ReturnType<typeof buildPool>) => [...p.texts]

describe('buildPool', () => {
  test('de-duplicates by normalised text, keeping the smallest raw text whatever the order', () => {
    const a = cand('a', ['Apple', 'pear'])
    const b = cand('b', ['apple ', 'Plum'])
    const c = cand('c', ['APPLE', 'PEAR'])
    // code-unit order: "APPLE" < "Apple" < "apple "; "PEAR" < "pear"
    for (const order of [
      [a, b, c],
      [c, b, a],
      [b, c, a],
    ]) {
      const pool = buildPool(order, 200)
      assert.deepEqual(texts(pool), ['APPLE', 'PEAR', 'Plum'])
    }
  })

  test('entries are sorted by normalised text and unique', () => {
    const pool = buildPool([cand('a', ['zeta', 'Alpha', 'mu']), cand('b', ['beta', 'ALPHA'])], 200)
    const norms = [...pool.norms]
    assert.deepEqual(norms, [...norms].sort(compareStrings))
    assert.deepEqual(norms, ['alpha', 'beta', 'mu', 'zeta'])
  })

  test('drops texts over maxChars code points and keeps exactly maxChars', () => {
    const five = '12345'
    const six = '123456'
    const astralFive = '😀😀😀😀😀' // 5 code points, 10 UTF-16 units
    const astralSix = '😀😀😀😀😀😀'
    const pool = buildPool([cand('a', [five, six, astralFive, astralSix])], 5)
    assert.deepEqual(new Set(texts(pool)), new Set([five, astralFive]))
    assert.equal(pool.has('123456'), false)
    assert.equal(pool.has('12345'), true)
  })

  test('has() answers for normalised texts', () => {
    const pool = buildPool([cand('a', ['Hello  World', 'x'])], 200)
    assert.equal(pool.has('hello world'), true)
    assert.equal(pool.has('Hello  World'), false)
  })

  test('an empty group gives an empty pool', () => {
    assert.equal(buildPool([], 200).norms.length, 0)
  })
})

describe('capacity', () => {
  const own = cand('own', ['o1', 'o2', 'o3', 'o4'])

  test('is own options plus what the pool holds besides them', () => {
    const others = cand('x', ['x1', 'x2'])
    const pool = buildPool([own, others], 200) // 6 entries, 4 of them own
    assert.equal(capacity(own, pool), 6)
  })

  test('is capped at 8', () => {
    const others = cand(
      'x',
      Array.from({ length: 10 }, (_, i) => `x${i}`),
    )
    assert.equal(capacity(own, buildPool([own, others], 200)), 8)
  })

  test('counts own options the pool does not hold as own only', () => {
    // own options that are too long are not in the pool, so nothing is subtracted for them
    const long = cand('long', ['short', 'x'.repeat(30)])
    const pool = buildPool([long, cand('y', ['y1', 'y2'])], 10) // entries: short, y1, y2
    assert.equal(pool.norms.length, 3)
    assert.equal(capacity(long, pool), 2 + 2)
  })

  test('shared texts in other questions lend nothing new', () => {
    const ms = ['Wrong, Wrong', 'Wrong, Not wrong', 'Not wrong, Wrong', 'Not wrong, Not wrong']
    const items = [cand('m1', ms, { subject: 'moral_scenarios' }), cand('m2', [...ms].reverse(), { subject: 'moral_scenarios' })]
    const pool = buildPool(items, 200)
    for (const c of items) assert.equal(capacity(c, pool), 4)
  })

  test('without a pool is just the own options', () => {
    assert.equal(capacity(own, undefined), 4)
  })
})

describe('groupOf / buildPools', () => {
  const bySubject = sourceSpec({ name: 'mmlu', group: 'subject' })
  const bySource = sourceSpec({ name: 'arc', group: 'source' })
  const law = cand('l', ['tort', 'crime'], { subject: 'law' })
  const bio = cand('b', ['cell', 'gene'], { subject: 'biology' })
  const law2 = cand('l2', ['contract', 'Tort'], { subject: 'law' })

  test('the group is the subject or the source', () => {
    assert.equal(groupOf(bySubject, law), 'law')
    assert.equal(groupOf(bySource, law), 'arc')
    assert.equal(groupOf(bySubject, cand('n', ['a', 'b'])), 'mmlu')
  })

  test('pools are per group and never mix groups', () => {
    const pools = buildPools(bySubject, [law, bio, law2], 200)
    assert.deepEqual([...pools.keys()].sort(), ['biology', 'law'])
    assert.deepEqual([...pools.get('law')!.norms], ['contract', 'crime', 'tort'])
    assert.deepEqual([...pools.get('biology')!.norms], ['cell', 'gene'])
    const one = buildPools(bySource, [law, bio, law2], 200)
    assert.deepEqual([...one.keys()], ['arc'])
    assert.equal(one.get('arc')!.norms.length, 5)
  })
})
