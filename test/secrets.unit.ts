import assert from 'node:assert/strict'
import { test } from 'node:test'
import { scrub, scrubToken, TOKEN_PLACEHOLDER } from '../src/util/secrets.ts'

const TOKEN = 'hf_abcDEF123456'

test('every occurrence of the token is replaced by the one placeholder', () => {
  assert.equal(TOKEN_PLACEHOLDER, '<HF_TOKEN>')
  assert.equal(scrubToken(`Bearer ${TOKEN} at /tmp/${TOKEN}/x`, TOKEN), 'Bearer <HF_TOKEN> at /tmp/<HF_TOKEN>/x')
  assert.ok(!scrubToken(`${TOKEN}${TOKEN}`, TOKEN).includes(TOKEN))
})

test('without a token the text is left as it is', () => {
  assert.equal(scrubToken('no secret hf_x here', undefined), 'no secret hf_x here')
  assert.equal(scrubToken('no secret here', ''), 'no secret here')
})

test('scrub reads HF_TOKEN from the environment given', () => {
  assert.equal(scrub(`token=${TOKEN}`, { HF_TOKEN: TOKEN }), 'token=<HF_TOKEN>')
  assert.equal(scrub(`token=${TOKEN}`, {}), `token=${TOKEN}`)
})
