import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { UpstreamQuestion } from '../src/adapt/adapter.ts'
import { isJevError } from '../src/errors.ts'
import { prepareSource } from '../src/prepare/prepare.ts'
import { selectSplit } from '../src/select/select.ts'
import { rngFor, shuffle } from '../src/shape/rng.ts'
import { recipeOf, sourceSpec, uq } from './helpers/questions.ts'

const arcLike = sourceSpec({ name: 'src', test: { from: 'test', count: 3 }, val: { from: 'validation', count: 2 } })
const sameSplit = sourceSpec({
  name: 'src',
  files: { validation: ['data/validation.parquet'] },
  test: { from: 'validation', count: 300 },
  val: { from: 'validation', count: 100 },
})
const ids = (cs: readonly { id: string }[]) => cs.map((c) => c.id)

function many(n: number, split: string, prefix = 'q'): UpstreamQuestion[] {
  return Array.from({ length: n }, (_, i) => uq({ id: `src-${prefix}${i}`, upstreamSplit: split, row: i }))
}

describe('prepareSource', () => {
  test('exact repeat rows collapse into one and are counted', () => {
    const q = uq({ id: 'src-a', row: 3 })
    const p = prepareSource(arcLike, [q, { ...q, row: 9 }, uq({ id: 'src-b' }), { ...q, row: 12 }], recipeOf([arcLike]))
    assert.deepEqual(ids(p.sides.test).sort(), ['src-a', 'src-b'])
    assert.equal(p.drops.get('duplicate_row'), 2)
  })

  test('the same id with different content is a DATA error naming file and row', () => {
    const q = uq({ id: 'src-a', row: 3, file: 'data/test.parquet' })
    const clash = { ...q, row: 17, options: [...q.options.slice(0, 3), 'something else'] }
    assert.throws(
      () => prepareSource(arcLike, [q, clash], recipeOf([arcLike])),
      (e) => {
        assert.ok(isJevError(e))
        assert.equal(e.code, 'DATA')
        assert.match(e.message, /data\/test\.parquet/)
        assert.match(e.message, /\b17\b/)
        assert.equal(e.context.file, 'data/test.parquet')
        assert.equal(e.context.row, 17)
        assert.equal(e.context.id, 'src-a')
        return true
      },
    )
  })

  test('a row filed under two subjects is one question, kept under the first subject whatever the row order', () => {
    const bySubject = sourceSpec({ ...arcLike, group: 'subject' })
    const a = uq({ id: 'src-m', subject: 'nutrition', row: 1 })
    const b = { ...a, subject: 'clinical_knowledge', row: 40 }
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const p = prepareSource(bySubject, order, recipeOf([bySubject]))
      assert.deepEqual(
        p.sides.test.map((c) => c.subject),
        ['clinical_knowledge'],
      )
      assert.equal(p.drops.get('duplicate_row'), 1)
    }
  })

  test('the same id with other content in another split is an error too, naming both files', () => {
    const t = uq({ id: 'src-x', upstreamSplit: 'test', file: 't.parquet', row: 4 })
    const v = { ...t, upstreamSplit: 'validation', file: 'v.parquet', row: 8, answer: (t.answer + 1) % t.options.length }
    assert.throws(
      () => prepareSource(arcLike, [t, v], recipeOf([arcLike])),
      (e) => isJevError(e) && e.code === 'DATA' && /t\.parquet row 4 and v\.parquet row 8/.test(e.message),
    )
  })

  test('val questions found in the upstream test split are dropped', () => {
    const t = uq({ id: 'src-t', question: 'Shared?', upstreamSplit: 'test' })
    const sameRow = { ...t, upstreamSplit: 'validation' }
    const sameText = uq({ id: 'src-v2', question: ' shared? ', upstreamSplit: 'validation' })
    const fresh = uq({ id: 'src-v3', upstreamSplit: 'validation' })
    const p = prepareSource(arcLike, [t, sameRow, sameText, fresh], recipeOf([arcLike]))
    assert.deepEqual(ids(p.sides.test), ['src-t'])
    assert.deepEqual(ids(p.sides.val), ['src-v3'])
    assert.equal(p.drops.get('in_test_split'), 2)
  })

  test('a val question is dropped also when its test-split copy is itself ineligible', () => {
    // the test copy has an "all of the above" option, so it is no candidate; the val copy shares its text
    const t = uq({ id: 'src-t', question: 'Which is true?', options: ['a', 'b', 'All of the above'], upstreamSplit: 'test' })
    const v = uq({ id: 'src-v', question: 'Which is true?', options: ['c', 'd', 'e'], upstreamSplit: 'validation' })
    const p = prepareSource(arcLike, [t, v, uq({ id: 'src-f', upstreamSplit: 'validation' })], recipeOf([arcLike]))
    assert.deepEqual(ids(p.sides.test), [])
    assert.deepEqual(ids(p.sides.val), ['src-f'])
    assert.equal(p.drops.get('option_refers_to_options'), 1)
    assert.equal(p.drops.get('in_test_split'), 1)
  })

  test('questions with the same text but different ids land on the same side of one upstream split', () => {
    const qs = Array.from({ length: 200 }, (_, i) => [
      uq({ id: `src-a${i}`, question: `Stem ${i}?`, options: ['1', '2', '3'], upstreamSplit: 'validation' }),
      uq({ id: `src-b${i}`, question: `stem ${i}?`, options: ['4', '5', '6'], upstreamSplit: 'validation' }),
    ]).flat()
    const p = prepareSource(sameSplit, qs, recipeOf([sameSplit]))
    const sideOf = new Map<string, string>()
    for (const split of ['test', 'val'] as const) for (const c of p.lenders[split]) sideOf.set(c.id, split)
    for (let i = 0; i < 200; i++) assert.equal(sideOf.get(`src-a${i}`), sideOf.get(`src-b${i}`), `pair ${i}`)
    assert.ok(p.sides.test.length > 0 && p.sides.val.length > 0)
  })

  test('an exclusion by text that matches is a hit, as one by id is', () => {
    const recipe = recipeOf([arcLike], { exclude: { ids: ['src-1'], texts: ['Secret  QUESTION'] } })
    const p = prepareSource(arcLike, [uq({ id: 'src-1' }), uq({ id: 'src-2', question: 'Secret question' })], recipe)
    assert.deepEqual([...p.excludedHits].sort(), ['secret question', 'src-1'])
  })

  test('ineligible questions are dropped with their reason', () => {
    const qs = [
      uq({ id: 'src-1', options: ['x', 'X ', 'y'] }),
      uq({ id: 'src-2', options: ['x', 'y', 'None of the above'] }),
      uq({ id: 'src-3' }),
      uq({ id: 'src-4', question: 'Secret question' }),
    ]
    const recipe = recipeOf([arcLike], { exclude: { ids: ['src-3'], texts: ['SECRET  question'] } })
    const p = prepareSource(arcLike, qs, recipe)
    assert.deepEqual(p.sides.test, [])
    assert.equal(p.drops.get('options_not_distinct'), 1)
    assert.equal(p.drops.get('option_refers_to_options'), 1)
    assert.equal(p.drops.get('excluded'), 2)
  })

  test('duplicates within a side (same identity or same text) are kept once', () => {
    const a = uq({ id: 'src-a', question: 'Same?', options: ['1', '2', '3'] })
    const sameIdentity = uq({ id: 'src-b', question: 'same?', options: ['3', '1', '2'] })
    const sameText = uq({ id: 'src-c', question: 'Same?', options: ['4', '5', '6'] })
    const p = prepareSource(arcLike, [a, sameIdentity, sameText, uq({ id: 'src-d' })], recipeOf([arcLike]))
    assert.equal(p.sides.test.length, 2)
    assert.ok(ids(p.sides.test).includes('src-d'))
    assert.equal(p.drops.get('duplicate_question'), 2)
  })

  test('one upstream split feeding both sides is divided in the ratio of the counts', () => {
    const qs = many(2000, 'validation')
    const p = prepareSource(sameSplit, qs, recipeOf([sameSplit]))
    assert.equal(p.sides.test.length + p.sides.val.length, 2000)
    assert.equal(new Set([...ids(p.sides.test), ...ids(p.sides.val)]).size, 2000)
    // binomial(2000, 0.75): mean 1500, sd ≈ 19
    assert.ok(p.sides.test.length > 1420 && p.sides.test.length < 1580, String(p.sides.test.length))
  })

  test('the result does not depend on input order', () => {
    const qs = [...many(300, 'test'), ...many(200, 'validation', 'v')]
    const a = prepareSource(arcLike, qs, recipeOf([arcLike]))
    const b = prepareSource(arcLike, shuffle(rngFor(1, 'test', 'permute'), qs), recipeOf([arcLike]))
    assert.deepEqual(ids(b.sides.test), ids(a.sides.test))
    assert.deepEqual(ids(b.sides.val), ids(a.sides.val))
    // selection order is a keyed hash, not the input order
    assert.notDeepEqual(ids(a.sides.test), ids(qs.slice(0, 300)))
    const c = prepareSource(sameSplit, many(400, 'validation'), recipeOf([sameSplit]))
    const d = prepareSource(sameSplit, many(400, 'validation').reverse(), recipeOf([sameSplit]))
    assert.deepEqual(ids(d.sides.test), ids(c.sides.test))
    assert.deepEqual(ids(d.sides.val), ids(c.sides.val))
  })

  test('another seed gives another selection order', () => {
    const qs = many(50, 'test')
    const a = prepareSource(arcLike, qs, recipeOf([arcLike]))
    const b = prepareSource(arcLike, qs, recipeOf([arcLike], { seed: 99 }))
    assert.notDeepEqual(ids(a.sides.test), ids(b.sides.test))
  })
})

describe('selectSplit', () => {
  test('meets each count and never takes the same question twice', () => {
    const a = sourceSpec({ name: 'a', test: { from: 'test', count: 10 }, val: { from: 'validation', count: 4 } })
    const b = sourceSpec({ name: 'b', test: { from: 'test', count: 10 }, val: { from: 'validation', count: 4 } })
    // source b repeats some of a's questions: same identity (b-s*) or same text with other options (b-t*)
    const qa = many(15, 'test', 'x').map((q, i) => ({ ...q, source: 'a', id: `a-${i}`, question: `Shared ${i}?` }))
    const qb = [
      ...qa.slice(0, 8).map((q, i) => ({ ...q, source: 'b', id: `b-s${i}` })),
      ...qa.slice(8).map((q, i) => ({ ...q, source: 'b', id: `b-t${i}`, options: ['p', 'q', 'r'] })),
      ...many(6, 'test', 'own').map((q) => ({ ...q, source: 'b' })),
    ]
    const recipe = recipeOf([a, b])
    const prepared = [prepareSource(a, qa, recipe), prepareSource(b, qb, recipe)]
    const taken = new Set<string>()
    const chosen = selectSplit(prepared, 'test', taken, new Set())
    assert.equal(chosen.get('a')!.length, 10)
    assert.equal(chosen.get('b')!.length, 10)
    const all = [...chosen.get('a')!, ...chosen.get('b')!]
    assert.equal(new Set(all.map((c) => c.identity)).size, all.length)
    assert.equal(new Set(all.map((c) => c.textKey)).size, all.length)
    for (const c of all) assert.ok(taken.has(c.identity) && taken.has(c.textKey))
  })

  test('skips rejected ids', () => {
    const spec = sourceSpec({ name: 'src', test: { from: 'test', count: 3 } })
    const p = prepareSource(spec, many(5, 'test'), recipeOf([spec]))
    const first = selectSplit([p], 'test', new Set(), new Set()).get('src')!
    const again = selectSplit([p], 'test', new Set(), new Set([first[0]!.id])).get('src')!
    assert.equal(again.length, 3)
    assert.ok(!ids(again).includes(first[0]!.id))
  })

  test('throws QUOTA naming the source when too few are eligible', () => {
    const spec = sourceSpec({ name: 'tiny', test: { from: 'test', count: 5 } })
    const p = prepareSource(spec, many(4, 'test'), recipeOf([spec]))
    assert.throws(
      () => selectSplit([p], 'test', new Set(), new Set()),
      (e) => isJevError(e) && e.code === 'QUOTA' && e.context.group === 'tiny' && /tiny/.test(e.message) && /\b4\b/.test(e.message),
    )
  })
})

describe('one question per context (BoolQ)', () => {
  const passages = sourceSpec({
    name: 'src',
    files: { validation: ['data/validation.parquet'] },
    test: { from: 'validation', count: 30 },
    val: { from: 'validation', count: 30 },
    onePerContext: true,
  })
  // 40 passages with three questions each, "the same" passage spelled differently once
  const qs = Array.from({ length: 40 }, (_, p) =>
    [0, 1, 2].map((k) =>
      uq({
        id: `src-p${p}q${k}`,
        upstreamSplit: 'validation',
        question: `question ${k} about passage ${p}?`,
        context: k === 2 ? `  PASSAGE   number ${p}.` : `Passage number ${p}.`,
        options: ['yes', 'no'],
      }),
    ),
  ).flat()
  const r = recipeOf([passages])
  const prepared = prepareSource(passages, qs, r)

  test('a side keeps the first question of each passage in selection order, the others drop as duplicate_passage', () => {
    for (const side of [prepared.sides.test, prepared.sides.val]) {
      const seen = side.map((c) => c.id.replace(/q\d$/, ''))
      assert.equal(new Set(seen).size, seen.length)
    }
    const kept = prepared.sides.test.length + prepared.sides.val.length
    assert.equal(prepared.drops.get('duplicate_passage'), 120 - kept)
    // all three questions of a passage still lend (nothing is grown here, but the lenders are the side)
    assert.equal(prepared.lenders.test.length + prepared.lenders.val.length, 120)
  })

  test('across the two splits too: val skips a passage the test split took', () => {
    const taken = new Set<string>()
    const skipped = new Map()
    const big = { ...passages, test: { from: 'validation', count: 20 }, val: { from: 'validation', count: 10 } }
    const p = prepareSource(big, qs, recipeOf([big]))
    const test = selectSplit([p], 'test', taken, new Set(), skipped).get('src')!
    const val = selectSplit([p], 'val', taken, new Set(), skipped).get('src')!
    const testPassages = new Set(test.map((c) => c.id.replace(/q\d$/, '')))
    for (const c of val) assert.ok(!testPassages.has(c.id.replace(/q\d$/, '')), `${c.id} shares a passage with the test split`)
    const crossing = p.sides.val
      .slice(0, p.sides.val.indexOf(val.at(-1)!) + 1)
      .filter((c) => testPassages.has(c.id.replace(/q\d$/, ''))).length
    assert.ok(crossing > 0, 'the fixture must make val meet test passages')
    assert.equal(skipped.get('src')?.get('duplicate_passage'), crossing)
  })

  test('without the flag, passages may repeat (1.0.0)', () => {
    const loose = prepareSource({ ...passages, onePerContext: false }, qs, r)
    assert.equal(loose.drops.get('duplicate_passage'), undefined)
    assert.equal(loose.sides.test.length + loose.sides.val.length, 120)
  })
})
