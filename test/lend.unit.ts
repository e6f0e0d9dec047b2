import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { similarLending } from '../src/borrow/lend.ts'
import { type Candidate, toCandidate } from '../src/prepare/eligibility.ts'
import type { Borrowing } from '../src/recipe/schema.ts'
import { keyedHash, rngFor, shuffle } from '../src/shape/rng.ts'
import { normalize } from '../src/util/canonical.ts'
import { DISTRACTORS, uq } from './helpers/questions.ts'

// the length rule left out: it can hold an item whose right answer is its longest option to nothing (tested in plausible.unit.ts)
const rules: Borrowing = { ...DISTRACTORS.borrow, plausible: { ...DISTRACTORS.borrow.plausible, lengthCue: false } }
const c = (id: string, question: string, options: string[], answer = 0) => toCandidate(uq({ id, question, options, answer }))
const NEG = /\bnot\b/
const lending = (side: Candidate[], over: Partial<Borrowing> = {}, maxChars = 200) =>
  similarLending(side, {
    rules: { ...rules, ...over },
    maxChars,
    tieKey: (x) => [...x.identity].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7),
    cueKey: (x) => BigInt(`0x${keyedHash(1, 'length-cue', x.identity).slice(0, 13)}`),
    isNegative: (x) => NEG.test(x.normQuestion),
  })
const draw = (side: Candidate[], item: Candidate, k: number, over: Partial<Borrowing> = {}) => lending(side, over).borrow(item, k)

const item = c('s-item', 'Which gas do plants take in for photosynthesis?', ['carbon dioxide', 'nitrogen', 'helium', 'argon'])
// the same words as the item, other spellings: a near-copy (similarity 1) that shares no option
const near = c('s-near', 'Which gas do plants take in for photosynthesis?', ['Carbon dioxide.', 'Nitrogen.', 'Helium.', 'Argon.'])
const plants = c('s-plants', 'Which gas do plants release during photosynthesis?', ['oxygen', 'methane', 'ammonia', 'chlorine'])
const negative = c(
  's-neg',
  'Which gas is not used by plants for photosynthesis?',
  ['hydrogen sulfide', 'water vapour', 'ozone', 'sunlight'],
  0,
)
const shares = c('s-shares', 'Which gas do plants need at night for photosynthesis?', ['nitrogen', 'steam', 'smoke', 'fog'])
const planets = c('s-planets', 'Which planet is closest to the sun?', ['mercury', 'venus', 'mars', 'jupiter'])
const side = [item, near, plants, negative, shares, planets]

describe('similarLending', () => {
  test('lends only wrong options, best fit first, and never from near-copies, negatives or lenders sharing an option', () => {
    const all = lending(side).candidates(item)
    assert.deepEqual(all.map((b) => `${b.lender} ${b.text}`).sort(), [
      's-planets jupiter',
      's-planets mars',
      's-planets venus',
      's-plants ammonia',
      's-plants chlorine',
      's-plants methane',
    ])
    // the most similar lender's options fit best; the borrowed ones are the first candidates
    const got = draw(side, item, 3)
    assert.deepEqual(got, all.slice(0, 3))
    assert.deepEqual(got.map((b) => b.text).sort(), ['ammonia', 'chlorine', 'methane'])
    for (const b of got) assert.equal(plants.options[b.index], b.text)
  })

  test('each lender rule can be switched off, and then the lender lends', () => {
    const lenders = (over: Partial<Borrowing>) =>
      new Set(
        lending(side, { sameForm: false, ...over })
          .candidates(item)
          .map((b) => b.lender),
      )
    assert.ok(!lenders({}).has('s-neg') && lenders({ skipNegativeLenders: false }).has('s-neg'))
    assert.ok(!lenders({}).has('s-shares') && lenders({ skipOverlappingLenders: false }).has('s-shares'))
    // the near-copy never lends; a lower threshold also skips the merely similar
    assert.ok(!lenders({}).has('s-near'))
    assert.ok(lenders({}).has('s-plants') && !lenders({ nearCopy: 1e-6 }).has('s-plants'))
  })

  test("a lender's right answer is never lent", () => {
    for (const b of draw(side, item, 4)) {
      const lender = side.find((x) => x.id === b.lender)!
      assert.notEqual(b.index, lender.answer, `${b.lender} lent its right answer`)
    }
  })

  test('capacity counts only what passes every rule, at most 8', () => {
    const l = lending(side)
    // plants' three wrong options and the planets' three (negative, shares and near lend nothing)
    assert.equal(l.capacity(item), Math.min(8, 4 + 6))
    // only the most similar lender that passes the lender rules
    assert.equal(lending(side, { plausible: { ...rules.plausible, lenders: 1 } }).capacity(item), 4 + 3)
    const lonely = c('s-lonely', 'What colour is the sky?', ['blue', 'green'])
    assert.equal(lending([lonely]).capacity(lonely), 2)
    assert.throws(() => lending([lonely]).borrow(lonely, 1), RangeError)
  })

  test('like for like: numbers among numbers, no numbers among words; no label-like option; the same form', () => {
    const numeric = c('n-item', 'How many legs does a spider have?', ['8', '6', '10', '4'])
    const wordy = c('n-words', 'How many legs does a spider have in total?', ['(E) none', 'eight legs and more', '2 legs', 'many'], 1)
    const digits = c('n-digits', 'How many legs does an insect have?', ['16', '12', '14', '(B) 3'])
    // "2 legs" is a number, but longer than twice the item's longest option and in a unit the item's numbers do not
    // have (and its lender asks a narrower question)
    const loose = { skipNarrowerLenders: false }
    for (const sameForm of [true, false])
      assert.deepEqual(
        lending([numeric, wordy, digits], { ...loose, sameForm })
          .candidates(numeric)
          .map((b) => b.text)
          .sort(),
        ['12', '14'],
      )
    const words = c('w-item', 'Which organ pumps blood?', ['heart', 'lung', 'liver'])
    const mixed = c(
      'w-lender',
      'Which organ pumps blood around the body?',
      ['spleen', '42', 'The kidney filters blood.', 'E', 'stomach'],
      0,
    )
    assert.deepEqual(
      lending([words, mixed], loose)
        .candidates(words)
        .map((b) => b.text),
      ['stomach'],
    )
    const lax = { ...loose, likeForLike: false, skipLabelLike: false, sameForm: false }
    assert.deepEqual(
      lending([words, mixed], lax)
        .candidates(words)
        .map((b) => b.text)
        .sort(),
      ['42', 'E', 'The kidney filters blood.', 'stomach'],
    )
  })

  test("options over the length limit, the item's own (normalised) and repeats are not lent", () => {
    const own = c('o-item', 'Which metal is liquid at room temperature?', ['mercury', 'iron', 'gold'])
    const a = c('o-a', 'Which metal is liquid at room temperature in a thermometer?', ['alcohol', 'MERCURY ', 'tin', 'lead'], 0)
    const b = c('o-b', 'Which metal is used in a room thermometer?', ['zinc', 'tin', 'copperish alloy of many parts', 'nickel'], 0)
    const got = lending([own, a, b], { sameForm: false, skipOverlappingLenders: false, skipNarrowerLenders: false }, 8).candidates(own)
    // zinc is b's right answer; MERCURY is the item's own; tin comes once; the alloy is over 8 code points
    assert.deepEqual(got.map((x) => normalize(x.text)).sort(), ['lead', 'nickel', 'tin'])
  })

  test('does not depend on the order of the side', () => {
    const a = lending(side)
    const b = lending(shuffle(rngFor(5, 'unit', 'side'), side))
    assert.deepEqual(a.candidates(item), b.candidates(item))
    assert.deepEqual(a.borrow(item, 4), b.borrow(item, 4))
  })

  test('a lender asking a narrower question about the same thing does not lend; switched off, it does', () => {
    const renewable = c('r-item', 'Which resource is renewable?', ['coal', 'oil', 'water', 'natural gas'], 2)
    const narrower = c('r-narrow', 'Which renewable resource is generated by air convection currents?', [
      'wind energy',
      'solar energy',
      'fossil fuel energy',
      'geothermal energy',
    ])
    const other = c('r-other', 'Which resource is used to make electricity in a dam?', ['uranium', 'peat', 'water power', 'charcoal'], 2)
    const lenders = (over: Partial<Borrowing>) =>
      new Set(
        lending([renewable, narrower, other], { sameForm: false, ...over })
          .candidates(renewable)
          .map((b) => b.lender),
      )
    assert.deepEqual(lenders({}), new Set(['r-other']))
    assert.ok(lenders({ skipNarrowerLenders: false }).has('r-narrow'))
  })

  test('the right answers of the most similar questions are never lent, even where a lender lists one as wrong', () => {
    const item = c('a-item', 'Which animal is a mammal?', ['shark', 'whale', 'trout'], 1)
    const right = c('a-right', 'Which animal is a mammal of the sea?', ['dolphin', 'tuna', 'eel', 'squid'])
    const lists = c('a-lists', 'Which animal can fly?', ['bat', 'dolphin', 'crab', 'salmon'], 0)
    const texts = (over: Partial<Borrowing>) =>
      lending([item, right, lists], { sameForm: false, skipNarrowerLenders: false, ...over })
        .candidates(item)
        .map((b) => b.text)
    assert.ok(!texts({}).includes('dolphin'), 'dolphin is the right answer of a similar question')
    assert.ok(texts({ rightAnswersOf: 0 }).includes('dolphin'))
  })

  test("a near-copy of one of the item's own options is never lent", () => {
    const item = c(
      'nc-item',
      'Which change is caused by removing heat?',
      ['A solid melts into a gas.', 'Water freezes into ice.', 'A liquid boils away.'],
      1,
    )
    const lender = c(
      'nc-lender',
      'Which change is caused by adding heat?',
      ['Solid melts into gas.', 'Rock erodes slowly.', 'Gas turns to plasma.', 'Sand stays sand.'],
      3,
    )
    const texts = (over: Partial<Borrowing>) =>
      lending([item, lender], { skipOverlappingLenders: false, ...over })
        .candidates(item)
        .map((b) => b.text)
    assert.deepEqual(texts({}).sort(), ['Gas turns to plasma.', 'Rock erodes slowly.'])
    assert.ok(texts({ skipNearCopies: false }).includes('Solid melts into gas.'))
  })
})
