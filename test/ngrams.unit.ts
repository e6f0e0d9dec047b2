import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cutNorm, normUnits } from '../src/contam/ngrams.ts'
import { normalize } from '../src/util/canonical.ts'

const TEXTS = [
  'The zip code (ZIP) is a system of postal codes -- used by the U.S. Postal Service since 1963!',
  '  "Quoted" , spaced   out ... and a-b-c joined; ?! ',
  '２本以上の 道路が、交わる場所は？「森」と『林』。😀 絵文字',
  '',
  '!!! ...',
]

test('the first k units of a text are the first k of all its units', () => {
  for (const text of TEXTS)
    for (const language of ['en', 'ja'] as const) {
      const norm = normalize(text)
      const all = normUnits(norm, language)
      for (let k = 0; k <= all.length + 2; k++) assert.deepEqual(normUnits(norm, language, k), all.slice(0, k), `${language} ${k}: ${text}`)
    }
})

test('a question with a context: grams start in the question, and the context is cut only as far as they reach', () => {
  const question = normalize('Is the zip code the same as a postal code?')
  const context = normalize(TEXTS[0]!)
  const { all, question: inQuestion, starts } = cutNorm(question, context, 'en', 5)
  assert.equal(inQuestion, 10)
  assert.equal(starts, 10)
  assert.deepEqual(all.slice(10), ['the', 'zip', 'code', 'zip'])
  // a context shorter than n − 1 units: the grams end with it
  assert.equal(cutNorm(question, normalize('Yes.'), 'en', 5).starts, 7)
  assert.equal(cutNorm(question, null, 'en', 5).starts, 6)
})
