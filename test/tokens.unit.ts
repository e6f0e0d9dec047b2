import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Tokenizer, tokens } from '../src/borrow/tokens.ts'

describe('tokens', () => {
  test('words for Latin script, character bigrams for Japanese, both in one text', () => {
    assert.deepEqual(tokens('the sun, the moon 2 stars'), ['the', 'sun', 'the', 'moon', '2', 'stars'])
    assert.deepEqual(tokens('音楽を聴く'), ['音楽', '楽を', 'を聴', '聴く'])
    assert.deepEqual(tokens('dna の二重らせん'), ['dna', 'の二', '二重', '重ら', 'らせ', 'せん'])
    assert.deepEqual(tokens('駅'), ['駅'])
    // a Latin run ends where Japanese begins; the middle dot separates
    assert.deepEqual(tokens('co2を排出'), ['co2', 'を排', '排出'])
    assert.deepEqual(tokens('ジョン・レノン'), ['ジョ', 'ョン', 'レノ', 'ノン'])
    assert.deepEqual(tokens('？！…'), [])
    assert.deepEqual(tokens('café ünïcode π=3.14 ½'), ['café', 'ünïcode', 'π', '3', '14', '½'])
  })
})

describe('Tokenizer', () => {
  test('equal tokens get equal ids across texts; the ids map back to the words', () => {
    const t = new Tokenizer()
    const a = t.ids('the sun and the moon')
    const b = t.ids('moon の月')
    assert.equal(a[0], a[3])
    assert.equal(a[4], b[0])
    assert.deepEqual(
      Array.from(b, (id) => t.word(id)),
      ['moon', 'の月'],
    )
  })

  test('a vocabulary grown past its first table keeps every id', () => {
    const t = new Tokenizer()
    const words = Array.from({ length: 5000 }, (_, i) => `w${i}`)
    const ids = t.ids(words.join(' '))
    assert.equal(new Set(ids).size, 5000)
    assert.deepEqual(Array.from(t.ids(words.slice(0, 10).join(' '))), Array.from(ids.slice(0, 10)))
  })
})
