import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  fitsClass,
  formFilter,
  isLabelLike,
  isNumberLike,
  nearCopyTest,
  numberClass,
  unitOf,
  unitsAgree,
} from '../src/borrow/option-kinds.ts'

describe('isNumberLike', () => {
  test('numbers with signs, separators, decimals, units, % and currency', () => {
    for (const t of [
      '7.0',
      '-3',
      '+2.5',
      '1,200',
      '$40,000',
      '€5',
      '12%',
      '25 kg',
      '3 m/s',
      '-40 °C',
      '2.5 × 10^3 N',
      '1/2',
      '.5',
      '100 years',
      'three',
      'Twenty-one',
      'eight years',
      'a hundred',
    ])
      assert.ok(isNumberLike(t), t)
  })
  test('words, phrases that hold a number, formulas and labels are not numbers', () => {
    for (const t of [
      'It is a poor conductor.',
      'H2O',
      'citrus fruit (pH 2-3)',
      '3 apples and 2 pears',
      'Give the report to the teacher.',
      'Option 2',
      'several',
      'three colors of equal value',
      'km',
      '',
    ])
      assert.ok(!isNumberLike(t), t)
  })
})

describe('isLabelLike', () => {
  test('an option that starts with a label, or is one', () => {
    for (const t of ['(E) inflow … appreciation … decrease', 'A. the first', 'b) second', 'C', ' h ', '(a) lower case'])
      assert.ok(isLabelLike(t), t)
  })
  test('ordinary options, even ones starting with a capital letter or "A "', () => {
    for (const t of ['A cherry', 'Abraham Lincoln', 'I and II', 'Iwkj', 'HCl', 'x']) assert.ok(!isLabelLike(t), t)
  })
  test('a text that merely starts like a label counts too: never lent, at the cost of a few real options', () => {
    assert.ok(isLabelLike('E. coli is a bacterium'))
    assert.ok(isLabelLike('A) none of these'))
  })
})

describe('like for like', () => {
  test('all numbers, no numbers, or a mix', () => {
    assert.equal(numberClass(['2 times', '4 times', '8 times']), 'numbers')
    assert.equal(numberClass(['red', 'blue']), 'words')
    assert.equal(numberClass(['7', 'seven apples and a pear']), 'mixed')
    assert.ok(fitsClass('numbers', '20 mL') && !fitsClass('numbers', 'a beaker'))
    assert.ok(fitsClass('words', 'a beaker') && !fitsClass('words', '7.0'))
    assert.ok(fitsClass('mixed', '7.0') && fitsClass('mixed', 'a beaker'))
  })
})

describe('formFilter', () => {
  const own = ['is unaffected.', 'increases.', 'decreases.', 'stays constant.']
  test("keeps options shaped like the item's own", () => {
    const fits = formFilter(own)
    assert.ok(fits('doubles.'))
    assert.ok(fits('is halved at first.'))
  })
  test('refuses another case, another ending, or a length out of range', () => {
    const fits = formFilter(own)
    assert.ok(!fits('It crests.'), 'capital first letter')
    assert.ok(!fits('velocity'), 'no full stop')
    assert.ok(!fits('a.'), 'under half the shortest')
    assert.ok(!fits('is carried away by the current that flows along the bottom of the sea.'), 'over twice the longest')
  })
  test('Japanese options have no case: length and ending decide', () => {
    const fits = formFilter(['駐車場', '車庫', 'ツリー'])
    assert.ok(fits('倉庫'))
    assert.ok(!fits('雨風や日光などから車を守るための建物'))
  })
})

describe('nearCopyTest', () => {
  const near = nearCopyTest(['a liquid changes to a solid.', 'olympus', 'salt and salt-preserved foods', 'ラグマット', '机'])
  test("words that are a subset or superset of an own option's, or Japanese that contains one or is contained", () => {
    for (const t of ['liquid changes to solid.', 'mount olympus', 'salt', 'マット', '机の上', 'ラグマット類']) assert.ok(near(t), t)
  })
  test('options that share only some words, or none, are not near-copies', () => {
    for (const t of ['a gas changes to a liquid.', 'vesuvius', 'sugar', '椅子', 'カーペット', 'olympic games']) assert.ok(!near(t), t)
  })
  test('numbers are words too: "8" and "8 m/s" are near-copies, "8" and "18" are not', () => {
    const n = nearCopyTest(['8'])
    assert.ok(n('8 m/s'))
    assert.ok(!n('18'))
  })
})

describe('unitsAgree', () => {
  test('the 1.1.0 mismatches: seconds among speeds, joules among watts, students among stickers, years among bare numbers, % among bare numbers', () => {
    for (const options of [
      ['1.0 m/s', '100 s', '20 m/s', '80 m/h'],
      ['16.1 J', '666 W', '7 W', '66 W'],
      ['35.02 km/sec', '90 km', '0.7 km/sec'],
      ['16 students', '6 stickers', '54 stickers'],
      ['five', 'three', 'two years', 'four'],
      ['40%', '88', '33', '99'],
      ['$60,000', '960000'],
    ])
      assert.equal(unitsAgree(options), false, JSON.stringify(options))
  })

  test('one quantity in several units, synonyms and plurals agree; bare numbers agree; words are not compared', () => {
    for (const options of [
      ['5 cm', '5 m', '5 km', '3 meters'],
      ['2 s', '3 seconds', '1 second', '4 sec'],
      ['3 hours', '2 days', '10 minutes'],
      ['$5', '$40,000', '€3'],
      ['12%', '40 percent'],
      ['7.0', '-3', '1/2', 'three'],
      ['red', 'blue', '3 apples'],
      ['-3 °C', '10 °F', '5 degrees'],
      ['20 m/s', '80 m/h', '35 km/sec'],
    ])
      assert.equal(unitsAgree(options), true, JSON.stringify(options))
  })

  test('unitOf: null for words, "" for bare numbers, the dimension or the singular unit', () => {
    assert.equal(unitOf('red'), null)
    assert.equal(unitOf('42'), '')
    assert.equal(unitOf('8 kg'), 'mass')
    assert.equal(unitOf('6 stickers'), 'sticker')
    assert.equal(unitOf('$1,200'), 'money')
  })
})
