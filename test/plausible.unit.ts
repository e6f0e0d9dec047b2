import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { gzipSync } from 'node:zlib'
import { isReferential, lengthPenalty, nearAnswer, sameKind } from '../src/borrow/fit.ts'
import { similarLending } from '../src/borrow/lend.ts'
import { dealLongest } from '../src/borrow/length-cue.ts'
import { fitOf, type OptionRule } from '../src/borrow/option-rules.ts'
import { RelatedOptions } from '../src/borrow/related.ts'
import { Screen, ScreenedFile, screenedFile } from '../src/borrow/screen.ts'
import { centroid, cosine1024, vectorWords, WordVectors } from '../src/borrow/vectors.ts'
import { isJevError } from '../src/errors.ts'
import { type Candidate, toCandidate } from '../src/prepare/eligibility.ts'
import type { Borrowing } from '../src/recipe/schema.ts'
import { keyedHash } from '../src/shape/rng.ts'
import { normalize } from '../src/util/canonical.ts'
import { sha256Hex } from '../src/util/hash.ts'
import { DISTRACTORS, uq } from './helpers/questions.ts'

/** A vectors file of the given words: each a signed-byte vector. */
function vectorsFile(words: Record<string, number[]>): Buffer {
  const dims = Object.values(words)[0]!.length
  const lines = Object.entries(words).map(([w, v]) => `${w}\t${Buffer.from(Int8Array.from(v).buffer).toString('base64')}`)
  return gzipSync(`${JSON.stringify({ from: 'test', dimensions: dims, scale: 127, words: lines.length })}\n${lines.join('\n')}\n`)
}

describe('sameKind', () => {
  test('numbers only in a unit the own options have', () => {
    const kind = sameKind(['5 m/s', '10 m/s', '15 m/s', '20 m/s'])
    assert.equal(kind('25 m/s'), true)
    assert.equal(kind('25 s'), false)
    assert.equal(kind('25'), false)
  })
  test("never an option that refers to others; the options' form (first word, word count, script) is the reviewers' to judge", () => {
    const kind = sameKind(['to produce bile', 'to oxygenate blood', 'to remove toxins', 'to digest food'])
    assert.equal(kind('digestive system'), true)
    assert.equal(kind('None of the above'), false)
    assert.equal(sameKind(['アキレス腱', '鎖骨', '薬指', '綿', 'つま先'])('黄色い'), true)
    assert.equal(sameKind(['5 m/s', '10 m/s'])('None of these'), false)
  })
})

test('fitOf runs the option rules in order: the first that rejects ends them, else their credits add to the base', () => {
  const ran: string[] = []
  const rule =
    (name: string, got: number | null): OptionRule =>
    () => {
      ran.push(name)
      return got
    }
  assert.equal(fitOf([rule('a', 3), rule('b', 0), rule('c', -1)], 'x', 'x', 100), 102)
  assert.deepEqual(ran, ['a', 'b', 'c'])
  ran.length = 0
  assert.equal(fitOf([rule('a', 3), rule('b', null), rule('c', -1)], 'x', 'x', 100), null)
  assert.deepEqual(ran, ['a', 'b'])
})

test('options that refer to others are never lent', () => {
  for (const t of [
    'None of the above',
    'All of these',
    'Both A and B',
    'I and II only',
    'II only',
    'Neither',
    '以上のすべて',
    'どれでもない',
  ])
    assert.equal(isReferential(t), true, t)
  for (const t of ['nitrogen', 'Allele frequency', 'Noneuclidean geometry', '寺']) assert.equal(isReferential(t), false, t)
})

test('nearAnswer: a shared content word (plural or not), a Japanese character pair, or one holding the other', () => {
  const en = nearAnswer('volcanic eruptions')
  assert.equal(en('volcanic activity'), true)
  assert.equal(en('a volcanic eruption'), true)
  assert.equal(en('tidal waves'), false)
  const ja = nearAnswer('腹')
  assert.equal(ja('腹部'), true)
  assert.equal(ja('胸'), false)
  assert.equal(nearAnswer('宅配便')('配便車'), true)
})

test('lengthPenalty is 0 within the own options’ lengths and grows outside them', () => {
  const p = lengthPenalty(['ab', 'abcd'])
  assert.equal(p('abc'), 0)
  assert.ok(p('abcdefgh') > 0 && p('a') > 0)
  assert.ok(p('abcdefghijklmnop') > p('abcdefgh'))
})

describe('WordVectors', () => {
  const words = { heat: [100, 20, 0], cold: [90, 40, 0], freezer: [80, 50, 10], clouds: [0, 10, 120], fluffy: [5, 0, 110] }
  const bytes = vectorsFile(words)
  test('reads a pinned file and refuses one whose sha256 differs, naming the file', () => {
    const v = WordVectors.parse(bytes, 'v.gz', sha256Hex(bytes))
    assert.ok(cosine1024(v.of('heat'), v.of('heat')) >= 1023)
    assert.throws(
      () => WordVectors.parse(bytes, 'v.gz', '0'.repeat(64)),
      (e: unknown) => isJevError(e) && e.code === 'LOCK' && e.message.includes('v.gz'),
    )
    assert.throws(() => WordVectors.parse(gzipSync('not json\n'), 'bad.gz'), /bad\.gz: line 1/)
    assert.throws(
      () => WordVectors.parse(Buffer.from('plain text, not gzip\n'), 'plain.gz'),
      (e: unknown) => isJevError(e) && e.code === 'RECIPE' && /plain\.gz: not a gzip file/.test(e.message),
    )
    const cut = WordVectors.parse(bytes.subarray(0, bytes.length - 8), 'cut.gz')
    assert.throws(
      () => cut.of('heat'),
      (e: unknown) => isJevError(e) && e.code === 'RECIPE' && /cut\.gz: not a gzip file/.test(e.message),
    )
  })
  test("the words' lines are read on the first look-up, and a bad one is named by its line there", () => {
    const head = JSON.stringify({ from: 'test', dimensions: 3, scale: 127, words: 2 })
    const good = `heat\t${Buffer.from(Int8Array.from([1, 2, 3]).buffer).toString('base64')}`
    const v = WordVectors.parse(gzipSync(`${head}\n${good}\ncold\tAA==\n`), 'short.gz')
    assert.equal(v.header.words, 2)
    assert.throws(
      () => v.of('heat'),
      (e: unknown) => isJevError(e) && e.code === 'RECIPE' && /short\.gz: line 3 /.test(e.message),
    )
    // a header past the first 4 kB of compressed bytes is still read whole
    const long = JSON.stringify({
      from: Array.from({ length: 200 }, (_, i) => sha256Hex(String(i))).join(''),
      dimensions: 3,
      scale: 127,
      words: 1,
    })
    assert.equal(WordVectors.parse(gzipSync(`${long}\n${good}\n`), 'long.gz').of('heat').norm2, 14)
  })
  test('a text is the sum of its words; the cosine is an integer, the same for the same texts', () => {
    const v = WordVectors.parse(bytes, 'v.gz')
    assert.deepEqual(vectorWords("The freezer's cold"), ['freezer', 'cold'])
    const own = centroid([v.of('heat'), v.of('cold')], 3)
    const near = cosine1024(v.of('freezer'), own)
    const far = cosine1024(v.of('fluffy clouds'), own)
    assert.ok(Number.isInteger(near) && near > far)
    assert.equal(cosine1024(v.of('unknown words'), own), -1024)
    assert.equal(cosine1024(v.of('freezer'), own), near)
  })
})

describe('RelatedOptions', () => {
  const training = [
    { question: '山にある水は？', options: ['渓流', '滝', '池', '海', 'お金'], answer: 0 },
    { question: '川の上流は？', options: ['渓流', '滝', '源流', 'お金', '家'], answer: 2 },
    { question: '買い物に使うものは？', options: ['お金', '家', '学校', '財布', '海'], answer: 3 },
    { question: '住むところは？', options: ['家', 'お金', '学校', '部屋', '池'], answer: 0 },
  ].map((t) => ({ question: normalize(t.question), options: t.options.map(normalize), answer: t.answer }))
  const r = new RelatedOptions(training)
  test('ties an option to the own options by the training questions listing them together, less for one listed everywhere', () => {
    const tie = r.around(['渓流'])
    assert.equal(tie('渓流'), 0)
    assert.ok(tie('滝') > tie('お金'), 'お金 is listed by every question')
    assert.ok(tie('お金') > 0)
    assert.equal(tie('部屋'), 0, 'listed only by a question that lists no own option')
  })
  test("the wrong options of training questions like the item's, never their right answers", () => {
    const got = r.answering(normalize('山の水は？'))
    assert.ok(got.has('滝'))
    assert.equal(got.has('渓流'), false)
  })
  test('only the 30 most similar training questions are read, the earlier first where they tie', () => {
    const many = Array.from({ length: 32 }, (_, i) => ({
      question: i === 31 ? normalize('山の水は何？') : normalize('川の水は？'),
      options: ['正解', `誤${i}`],
      answer: 0,
    }))
    const got = new RelatedOptions(many).answering(normalize('山の水は何？'))
    assert.ok(got.has('誤31'), 'the most similar question, though the last')
    assert.ok(got.has('誤0') && got.has('誤28'))
    assert.equal(got.has('誤29') || got.has('誤30'), false)
    assert.equal(got.has('正解'), false)
  })
})

test('dealLongest keeps a group’s credit within count/n: forced items first, then the dealt ones in keyed order', () => {
  const items = Array.from({ length: 8 }, (_, i) => ({ id: `x${i}`, identity: `x${i}`, n: 4, credit: i < 4 ? 840 : 0, choice: i < 4 }))
  const kept = dealLongest(items, 1234, 'test')
  // budget: 8 items × 840/4 = 1680, two full credits
  assert.equal(kept.size, 2)
  const forced = items.map((it, i) => (i === 0 ? { ...it, choice: false } : it))
  assert.equal(dealLongest(forced, 1234, 'test').size, 1)
  assert.deepEqual(dealLongest([...items].reverse(), 1234, 'test'), kept)
})

describe('similarLending with the plausible rule', () => {
  const rules: Borrowing = { ...DISTRACTORS.borrow, plausible: { ...DISTRACTORS.borrow.plausible, lenders: 50, lengthCue: false } }
  const c = (id: string, question: string, options: string[], answer = 0) => toCandidate(uq({ id, question, options, answer }))
  const item = c('s-item', 'Which process in the water cycle returns water to the atmosphere?', [
    'evaporation',
    'precipitation',
    'condensation',
    'runoff',
  ])
  const side = [
    item,
    c('s-1', 'Which process in the water cycle forms clouds?', ['condensation', 'sublimation', 'None of the above', 'deposition']),
    c('s-2', 'Which process of the water cycle moves water into the ground?', ['infiltration', 'transpiration', 'evaporations', 'erosion']),
    c('s-3', 'Which process in the water cycle makes rain?', ['precipitation', 'melting', '5 km', 'freezing']),
  ]
  const options = {
    rules,
    maxChars: 200,
    tieKey: (x: Candidate) => [...x.identity].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7),
    cueKey: (x: Candidate) => BigInt(`0x${keyedHash(1, 'length-cue', x.identity).slice(0, 13)}`),
    isNegative: () => false,
  }
  const lending = similarLending(side, options)
  test('never a referential option, a number among words, nor one close to the right answer', () => {
    const texts = lending.candidates(item).map((b) => b.text)
    assert.ok(texts.length > 0)
    for (const t of ['None of the above', '5 km', 'evaporations']) assert.equal(texts.includes(t), false, t)
    // lenders that share an option with the item lend nothing (1.1.0's rule, kept)
    assert.equal(texts.includes('sublimation'), false)
  })
  test('the borrowed options are the best-fitting candidates, the same every time', () => {
    const a = lending.borrow(item, 2)
    assert.deepEqual(a, similarLending(side, options).borrow(item, 2))
    assert.deepEqual(a, lending.candidates(item).slice(0, 2))
  })
  test('with a screen, only the candidates it accepts for the item are lent, in fit order, and capacity counts only them', () => {
    const all = lending.candidates(item).map((b) => b.text)
    assert.ok(all.length >= 2)
    // the last one accepted, the others foreign or may-be-right
    const marks = all.map((_, i) => (i === all.length - 1 ? 'a' : i % 2 ? 'r' : 'f')).join('')
    const screen = new Screen(ScreenedFile.parse({ protocol: 'test', items: { 's-item': { shown: all.map(normalize), marks } } }))
    const screened = similarLending(side, { ...options, screen })
    assert.deepEqual(
      screened.candidates(item).map((b) => b.text),
      [all.at(-1)],
    )
    assert.equal(screened.capacity(item), item.options.length + 1)
    // an item the screen does not list borrows nothing
    const other = side[1]!
    assert.deepEqual(similarLending(side, { ...options, screen }).candidates(other), [])
  })
  test('with a screen, each accepted candidate comes from the lender it would without one, in the same order, with or without a cap on lenders', () => {
    // "transpiration" listed by two lenders: the more similar one lends it
    const wider = [
      ...side,
      c('s-4', 'Which process moves water from plants to the air?', ['transpiration', 'infiltration', 'erosion', 'melting'], 1),
    ]
    for (const lenders of [50, 1]) {
      const capped = { ...options, rules: { ...rules, plausible: { ...rules.plausible, lenders } } }
      const all = similarLending(wider, capped).candidates(item)
      assert.ok(all.length >= (lenders === 1 ? 1 : 3), `${lenders}`)
      const kept = all.filter((_, i) => i !== 1)
      const marks = all.map((_, i) => (i === 1 ? 'f' : 'a')).join('')
      const screen = new Screen(
        ScreenedFile.parse({ protocol: 'test', items: { 's-item': { shown: all.map((b) => normalize(b.text)), marks } } }),
      )
      assert.deepEqual(similarLending(wider, { ...capped, screen }).candidates(item), kept, `${lenders}`)
    }
  })
})

describe('ScreenedFile', () => {
  test('one mark per candidate shown, each a, f or r', () => {
    assert.equal(ScreenedFile.safeParse({ protocol: 'p', items: { x: { shown: ['a', 'b'], marks: 'a' } } }).success, false)
    assert.equal(ScreenedFile.safeParse({ protocol: 'p', items: { x: { shown: ['a'], marks: 'b' } } }).success, false)
    assert.equal(ScreenedFile.safeParse({ protocol: 'p', items: { x: { shown: ['a', 'b'], marks: 'ar' } } }).success, true)
  })
  test('screenedFile joins the items shown with their marks, in id order, and leaves out the unmarked', () => {
    const f = screenedFile(
      [
        { id: 'b', candidates: [{ norm: 'x' }, { norm: 'y' }] },
        { id: 'a', candidates: [{ norm: 'z' }] },
        { id: 'c', candidates: [{ norm: 'w' }] },
      ],
      new Map([
        ['b', 'af'],
        ['a', 'r'],
      ]),
    )
    assert.deepEqual(Object.keys(f.items), ['a', 'b'])
    const screen = new Screen(f)
    assert.equal(screen.accepts('b', 'x'), true)
    assert.equal(screen.accepts('b', 'y'), false)
    assert.equal(screen.accepts('a', 'z'), false)
    assert.equal(screen.accepts('c', 'w'), false)
  })
})
