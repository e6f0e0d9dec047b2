import assert from 'node:assert/strict'
import { test } from 'node:test'
import { negationTest } from '../src/borrow/negation.ts'
import { Distractors } from '../src/recipe/schema.ts'
import { normalize } from '../src/util/canonical.ts'
import { recipeOf, sourceSpec } from './helpers/questions.ts'

const en = sourceSpec({ name: 'arc', language: 'en' })
const ja = sourceSpec({ name: 'jcqa', language: 'ja' })
const any = sourceSpec({ name: 'mixed' })
const isNegative = negationTest(recipeOf([en, ja, any]))
const neg = (spec: typeof en, q: string) => isNegative(spec, normalize(q))

test('the default patterns find questions phrased as a negative, in either language', () => {
  for (const q of [
    'Which of these is not an adverse result from a tornado?',
    'Which of the following disorders does not show X-linked inheritance?',
    'All of the following are true EXCEPT',
    'Which is least likely to cause erosion?',
    "Which statement isn't true?",
    'Which statement isn’t true?',
    'Which of the following is FALSE?',
    'Which of these is NEVER a mammal?',
  ])
    assert.ok(neg(en, q), q)
  for (const q of ['日本の首都ではないものは？', '果物以外のものは？', '次のうち誤りはどれ？', '間違っているのは？'])
    assert.ok(neg(ja, q), q)
})

test('ordinary questions are not negative; words that merely contain a pattern do not count', () => {
  for (const q of [
    'Which of these is a mammal?',
    'What is the notation for a knot?',
    'Which tool measures mass most precisely?',
    'Nothing is known about it; which is true?',
  ])
    assert.ok(!neg(en, q), q)
  assert.ok(!neg(ja, '音楽を聴くときは？'))
})

test("a source with a language gets only that language's patterns; one without gets all", () => {
  assert.ok(!neg(en, '日本の首都ではないものは？'))
  assert.ok(!neg(ja, 'Which is not a mammal?'))
  assert.ok(neg(any, '日本の首都ではないものは？') && neg(any, 'Which is not a mammal?'))
})

test('the patterns are recipe data', () => {
  const distractors = Distractors.parse({ borrow: { plausible: {} }, negatives: { patterns: { en: ['\\bother than\\b'] } } })
  const custom = negationTest(recipeOf([en], { distractors }))
  assert.ok(custom(en, normalize('Which, other than water, is a solvent?')))
  assert.ok(!custom(en, normalize('Which is not a mammal?')))
})
