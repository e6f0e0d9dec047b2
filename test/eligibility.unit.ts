import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ineligibility, REFERS_TO_OPTIONS, refersToOptions, toCandidate } from '../src/prepare/eligibility.ts'
import { randInt, rngFor } from '../src/shape/rng.ts'
import { normalize } from '../src/util/canonical.ts'
import { uq } from './helpers/questions.ts'

describe('refersToOptions', () => {
  const refers = [
    'All of the above',
    'ALL of the above',
    'All of the above are true.',
    'none of these',
    'None of the above.',
    'Both A and B',
    'Both A and B are correct.',
    'both (a) and (c)',
    'Neither (a) nor (b)',
    'Neither A nor B.',
    'Either a or b',
    'A and C',
    'a and b only',
    'a, b, and c',
    '(a), (b), and (c)',
    'options a and b',
    'both of these.',
    'neither of the above',
    'all of the options given are correct',
    'Both',
    'Neither.',
    'Neither A nor. B.',
    'Both 2 and 3.',
    'a combination of these three processes.',
  ]
  for (const text of refers) test(`true for ${JSON.stringify(text)}`, () => assert.equal(refersToOptions(text), true))

  const ordinary = [
    'Both are renewable.',
    'above average',
    'below 20 million',
    'inspect the nail-bed angle from above',
    'A and B must be mutually exclusive.',
    'a and b are equally good athletes.',
    'both accurate and precise',
    'neither larceny nor embezzlement.',
    'they both hibernate.',
    'all of the information on the site is current.',
    'none of the offspring will be affected',
    'Paris',
    'multiply both sides by 6',
    // a bare "None" or "All" can be a real answer ("How many …?"), and numbered
    // items refer to statements in the question, which shuffling leaves intact
    'None.',
    'All',
    '1 and 2',
    '1, 2, or 3',
  ]
  for (const text of ordinary) test(`false for ${JSON.stringify(text)}`, () => assert.equal(refersToOptions(text), false))

  test('compares normalised text (width, spacing, case)', () => {
    assert.equal(refersToOptions('  ＡＬＬ  of   THE\tabove '), true)
  })

  test('the prefilter before the patterns turns away no text one of them matches', () => {
    // random phrases over the patterns' own words, letters, digits and punctuation
    const words = [
      ...'all none both neither nither nether either any each one of the these those them above below listed options option choices choice answers answer combination only are correct true and or nor & a b c d e f (a) b. 1 2 12 , . x'.split(
        ' ',
      ),
    ]
    const rng = rngFor(1, 'unit', 'refers-prefilter')
    const hits = REFERS_TO_OPTIONS.map(() => 0)
    for (let i = 0; i < 8000; i++) {
      const pick = (xs: readonly string[]) => xs[randInt(rng, xs.length)]!
      const phrase = () => Array.from({ length: 1 + randInt(rng, 6) }, () => pick(words)).join(randInt(rng, 4) ? ' ' : ', ')
      // half of them shaped like the rarer patterns, with a stray word before or after now and then
      const shaped = [
        () => `${pick(['all', 'none', 'each', 'nither', 'any'])} ${pick(['one ', ''])}of ${pick(['these', 'those', 'them', 'the'])}`,
        () =>
          `${pick(['both', 'neither', 'either'])} ${randInt(rng, 20)} ${pick(['and', 'nor', 'or', '&'])} ${randInt(rng, 20)}${pick(['.', ''])}`,
        () => `${pick(['a', 'the'])} combination of ${pick(['these', 'those', 'the above', 'them'])}`,
        () =>
          `${pick(['both', 'neither', 'nither', 'nether', 'either'])} ${pick(['a', '(b)', 'c.'])} ${pick(['and', 'nor', 'or', '&'])} ${pick(['d', '(e)', 'f.'])}`,
        () =>
          `${pick(['', 'option ', 'answers '])}${pick(['a', '(b)', 'c.'])}${pick([',', ''])} ${pick(['and', 'nor', 'or', '&'])} ${pick(['d', '(e)', 'f.'])}${pick(['', ' only', ' are correct'])}`,
      ]
      const core = randInt(rng, 2) ? phrase() : pick(shaped.map((f) => f()))
      const text = `${randInt(rng, 4) ? '' : `${pick(words)} `}${core}${randInt(rng, 4) ? '' : ` ${pick(words)}`}`
      const norm = normalize(text)
      REFERS_TO_OPTIONS.forEach((re, k) => {
        if (re.test(norm)) hits[k]!++
      })
      assert.equal(
        refersToOptions(text),
        REFERS_TO_OPTIONS.some((re) => re.test(norm)),
        text,
      )
    }
    // every pattern is reached, so the check means something for each
    assert.ok(
      hits.every((n) => n >= 5),
      hits.join(' '),
    )
  })
})

describe('ineligibility', () => {
  const check = (q: Parameters<typeof uq>[0], ids: string[] = [], texts: string[] = []) =>
    ineligibility(toCandidate(uq(q)), new Set(ids), new Set(texts.map(normalize)))

  test('an ordinary question is eligible', () => {
    assert.equal(check({ id: 'q', options: ['Paris', 'Lyon', 'Nice'] }), null)
  })

  test('options that are equal after normalisation are not distinct', () => {
    assert.equal(check({ id: 'q', options: ['manipulative', 'Manipulative ', 'reactive'] }), 'options_not_distinct')
    assert.equal(check({ id: 'q', options: ['ＡＢ', 'ab', 'cd'] }), 'options_not_distinct')
    assert.equal(check({ id: 'q', options: ['BB Bb', 'Bb bb', 'bb bb'] }), 'options_not_distinct')
  })

  test('an option that refers to other options', () => {
    assert.equal(check({ id: 'q', options: ['red', 'blue', 'All of the above'] }), 'option_refers_to_options')
  })

  test('empty question or option text', () => {
    assert.equal(check({ id: 'q', question: '  ', options: ['a1', 'b1'] }), 'empty_text')
    assert.equal(check({ id: 'q', options: ['x', '\u3000'] }), 'empty_text')
  })

  test('excluded by id', () => {
    assert.equal(check({ id: 'src-7' }, ['src-7']), 'excluded')
    assert.equal(check({ id: 'src-8' }, ['src-7']), null)
  })

  test('excluded by normalised question text', () => {
    const texts = ['What is  the CAPITAL of France?']
    assert.equal(check({ id: 'q', question: 'what is the capital of france?' }, [], texts), 'excluded')
    assert.equal(check({ id: 'q', question: 'What is the capital of Spain?' }, [], texts), null)
  })
})

describe('toCandidate', () => {
  const base = uq({ id: 'a', question: 'Which is a fruit?', options: ['Apple', 'Chair', 'Stone'], answer: 0 })

  test('identity ignores option order', () => {
    const permuted = { ...base, id: 'b', options: ['Stone', 'Apple', 'Chair'], answer: 1 }
    assert.equal(toCandidate(permuted).identity, toCandidate(base).identity)
  })

  test('identity ignores whitespace, width and case', () => {
    const variant = { ...base, id: 'c', question: '  which IS a   fruit? ', options: ['apple', ' CHAIR', 'Ｓｔｏｎｅ'] }
    assert.equal(toCandidate(variant).identity, toCandidate(base).identity)
    assert.equal(toCandidate(variant).textKey, toCandidate(base).textKey)
  })

  test('identity changes with the options, textKey does not', () => {
    const other = { ...base, id: 'd', options: ['Apple', 'Table', 'Stone'] }
    assert.notEqual(toCandidate(other).identity, toCandidate(base).identity)
    assert.equal(toCandidate(other).textKey, toCandidate(base).textKey)
  })

  test('context is part of identity and textKey', () => {
    const withContext = { ...base, id: 'e', context: 'A passage.' }
    assert.notEqual(toCandidate(withContext).identity, toCandidate(base).identity)
    assert.notEqual(toCandidate(withContext).textKey, toCandidate(base).textKey)
    // an empty context is not the same as no context
    assert.notEqual(toCandidate({ ...base, context: '' }).textKey, toCandidate(base).textKey)
  })

  test('question and options do not run together', () => {
    const a = { ...base, question: 'x y', options: ['z', 'w'] }
    const b = { ...base, question: 'x', options: ['y z', 'w'] }
    assert.notEqual(toCandidate(a).identity, toCandidate(b).identity)
  })

  test('keeps the upstream texts verbatim and adds normalised options', () => {
    const c = toCandidate({ ...base, options: ['  Apple ', 'Chair'] })
    assert.deepEqual(c.options, ['  Apple ', 'Chair'])
    assert.deepEqual(c.normOptions, ['apple', 'chair'])
    assert.equal(c.question, base.question)
  })
})
