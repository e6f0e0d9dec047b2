import assert from 'node:assert/strict'
import { test } from 'node:test'
import { codePointColumns, columns, fitColumns } from '../src/util/columns.ts'

test('columns: ASCII one each, CJK, kana, Hangul, fullwidth forms and emoji two, combining and format characters none', () => {
  assert.equal(columns('jcommonsenseqa test'), 19)
  assert.equal(columns('データ'), 6)
  assert.equal(columns('日本語のテキスト'), 16)
  assert.equal(columns('한국어'), 6)
  assert.equal(columns('ＡＢＣ'), 6)
  assert.equal(columns('café'), 4)
  // e + combining acute, a zero-width joiner between two emoji, an astral ideograph (a surrogate pair)
  assert.equal(columns('e\u0301'), 1)
  assert.equal(columns('👍\u200d👍'), 4)
  assert.equal(columns('𠮷'), 2)
  assert.equal(codePointColumns(0x3000), 2)
  assert.equal(codePointColumns(0x0301), 0)
  // emoji outside the first emoji block, and symbols with emoji presentation
  assert.equal(columns('🚀🫠✅⚡⭐'), 10)
  // a decomposed (NFD, as macOS file names are) voiced kana: the voicing mark combines
  assert.equal(columns('テ\u3099ータ'), 6)
})

test('fitColumns keeps a line that fits, and cuts one that does not to the width in columns, with "…", at a whole code point', () => {
  assert.equal(fitColumns('short', 10), 'short')
  assert.equal(fitColumns('exactly10!', 10), 'exactly10!')
  assert.equal(fitColumns('eleven chars', 10), 'eleven ch…')
  assert.equal(fitColumns('データセット', 12), 'データセット')
  // 7 wide characters in 12 columns: five (10 columns) and the ellipsis; a sixth would make 13
  assert.equal(fitColumns('データセットだ', 12), 'データセッ…')
  // an odd width never lets a wide character straddle the edge
  assert.equal(fitColumns('データセットだ', 11), 'データセッ…')
  assert.equal(fitColumns('ab𠮷𠮷𠮷', 6), 'ab𠮷…')
  assert.equal(fitColumns('abc', 0), '')
  for (const [s, w] of [
    ['writing /home/ユーザー/データセット/out/', 20],
    ['  👍👍👍👍👍👍👍👍: 3 of 9 rows', 13],
    ['𠮷'.repeat(30), 21],
    ['  🚀✅❌⚡⭐🫠🚀✅❌⚡⭐🫠: 3 of 9 rows', 20],
  ] as const) {
    const cut = fitColumns(s, w)
    assert.ok(columns(cut) <= w, `${cut}: ${columns(cut)} columns > ${w}`)
    assert.ok(cut.endsWith('…'))
    assert.ok(s.startsWith(cut.slice(0, -1)), 'a prefix of the line')
    assert.ok((cut as string & { isWellFormed(): boolean }).isWellFormed(), 'no half of a surrogate pair')
  }
})
