import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { randInt, rngFor } from '../src/shape/rng.ts'
import { canonicalJson, canonicalRow, codePointLength, compareStrings, normalize, rowsHash } from '../src/util/canonical.ts'
import { setHash } from '../src/util/hash.ts'

describe('canonicalJson', () => {
  test('sorts keys at every depth, keeps array order', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [3, 1], c: 'x' } }), '{"a":{"c":"x","d":[3,1]},"b":1}')
  })

  test('key order of the input does not matter', () => {
    assert.equal(canonicalJson({ x: 1, y: { p: true, q: null } }), canonicalJson({ y: { q: null, p: true }, x: 1 }))
  })

  test('sorts keys by code unit, not locale', () => {
    // 'B' (0x42) < 'a' (0x61) < 'é' (0xe9); localeCompare would put 'a' first
    assert.equal(canonicalJson({ a: 1, é: 2, B: 3 }), '{"B":3,"a":1,"é":2}')
  })

  test('writes bigint as a plain decimal number', () => {
    assert.equal(canonicalJson({ n: 12345678901234567890n }), '{"n":12345678901234567890}')
    assert.equal(canonicalJson(-7n), '-7')
    // an int64 and the same small number canonicalise alike, whatever the decoder gave
    assert.equal(canonicalJson([5n]), canonicalJson([5]))
  })

  test('rejects NaN and infinities', () => {
    assert.throws(() => canonicalJson(Number.NaN), TypeError)
    assert.throws(() => canonicalJson({ a: [1, Number.POSITIVE_INFINITY] }), TypeError)
    assert.throws(() => canonicalJson(Number.NEGATIVE_INFINITY), TypeError)
  })

  test('escapes strings like JSON', () => {
    assert.equal(canonicalJson('a"b\n'), '"a\\"b\\n"')
  })
})

test('canonicalJson sorts keys right across many row shapes, in any order', () => {
  // more shapes than it remembers, each seen twice with its keys in two orders
  const shapes = Array.from({ length: 40 }, (_, i) => [`k${i}`, `a${i}`, `z${i}`])
  for (const keys of [...shapes, ...shapes.map((k) => [...k].reverse())]) {
    const obj = Object.fromEntries(keys.map((k) => [k, k.length]))
    const sorted = [...keys].sort(compareStrings)
    assert.equal(canonicalJson(obj), `{${sorted.map((k) => `"${k}":${k.length}`).join(',')}}`)
  }
  assert.equal(canonicalJson({}), '{}')
  assert.equal(canonicalJson({ a: {}, b: [{}] }), '{"a":{},"b":[{}]}')
})

describe('rowsHash', () => {
  const rows = [
    { question: 'q1', answer: 1n, choices: ['a', 'b'] },
    { question: 'q2', answer: 0n, choices: ['c', 'd'] },
    { question: 'q3', answer: 2n, choices: ['e', 'f', 'g'] },
  ]

  test('does not depend on row order', () => {
    assert.equal(rowsHash(rows), rowsHash([rows[2], rows[0], rows[1]]))
  })

  test('does not depend on key order within a row', () => {
    const rekeyed = rows.map((r) => ({ choices: r.choices, answer: r.answer, question: r.question }))
    assert.equal(rowsHash(rows), rowsHash(rekeyed))
  })

  test('changes when a value, a row or a repeat changes', () => {
    const base = rowsHash(rows)
    assert.notEqual(rowsHash([{ ...rows[0]!, answer: 0n }, rows[1], rows[2]]), base)
    assert.notEqual(rowsHash(rows.slice(1)), base)
    // a repeated row counts: the hash is over a multiset
    assert.notEqual(rowsHash([...rows, rows[0]]), base)
    // choice order inside a row is content
    assert.notEqual(rowsHash([{ ...rows[0]!, choices: ['b', 'a'] }, rows[1], rows[2]]), base)
  })

  test('is a sha256 hex digest', () => {
    assert.match(rowsHash(rows), /^[0-9a-f]{64}$/)
    assert.match(setHash([]), /^[0-9a-f]{64}$/)
  })
})

describe('normalize', () => {
  const spec = (s: string) => s.normalize('NFKC').replace(/\s+/gu, ' ').trim().toLowerCase()

  test('folds width, whitespace and case', () => {
    // full-width letters and the ideographic space U+3000 fold under NFKC
    assert.equal(normalize('  ＡＢＣ\u3000x\n\t y  '), 'abc x y')
    assert.equal(normalize('Ⅻ'), 'xii')
    assert.equal(normalize('ﬁne'), 'fine')
    assert.equal(normalize('e\u0301'), 'é')
  })

  test('agrees with the spec formula', () => {
    const samples = ['', ' ', 'Hello  World', '\u00a0non\u2003breaking\u00a0', 'İstanbul', 'ΣΑΣ', 'ｶﾀｶﾅ', '①②', 'a\r\nb', 'x\u200by']
    for (const s of samples) assert.equal(normalize(s), spec(s), JSON.stringify(s))
  })

  test('agrees with the spec formula on random mixes of white space and text', () => {
    // every ECMAScript \s code point, plus letters, a full-width letter, an astral one and a combining mark
    const ws = [
      ...'\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff',
    ]
    const alphabet = [...ws, 'a', 'B', 'Ｃ', '😀', 'e\u0301', 'İ', '\u200b']
    const rng = rngFor(1, 'unit', 'normalize')
    for (let i = 0; i < 5000; i++) {
      const len = randInt(rng, 8)
      const s = Array.from({ length: len }, () => alphabet[randInt(rng, alphabet.length)]).join('')
      assert.equal(normalize(s), spec(s), JSON.stringify(s))
    }
  })

  test('is idempotent', () => {
    for (const s of ['  ＡＢ  c ', 'Ⅻ', 'İ']) assert.equal(normalize(normalize(s)), normalize(s))
  })

  test('a long text (a passage, kept once normalised) agrees with the spec formula every time it is asked', () => {
    const rng = rngFor(1, 'unit', 'normalize-long')
    const alphabet = ['a', 'B', ' ', '  ', '\n', '\u3000', 'Ｃ', 'İ', 'e\u0301', '😀']
    for (let i = 0; i < 50; i++) {
      const s = Array.from({ length: 200 + randInt(rng, 400) }, () => alphabet[randInt(rng, alphabet.length)]).join('')
      // the same text as a new string object too: the answer cannot depend on which one is asked first
      const copy = [...s].join('')
      for (const t of [s, copy, s]) assert.equal(normalize(t), spec(s))
    }
  })
})

describe('canonicalRow', () => {
  const rows: Record<string, unknown>[] = [
    { question: 'Q "1"?', subject: 'law', choices: ['a', 'b\n'], answer: 3n },
    { question: 'q', answer: true, passage: 'p' },
    { q_id: 7, choices: { text: ['x'], label: ['A'] }, é: null, B: undefined },
    {},
  ]

  test("gives the row's canonical JSON", () => {
    for (const row of rows) assert.equal(canonicalRow(row).json, canonicalJson(row))
    // anything else as canonicalJson has it
    for (const v of ['x', 1n, null, [1, 'a']]) assert.equal(canonicalRow(v).json, canonicalJson(v))
  })

  test('gives the canonical JSON of an object of some of its fields, as a content id hashes it', () => {
    const fieldLists = [
      ['question', 'choices', 'answer'],
      ['passage', 'answer', 'question'],
      ['choices'],
      ['missing', 'q_id'],
      ['B', 'é'],
      ['answer', 'answer'],
      [],
    ]
    for (const row of rows)
      for (const fields of fieldLists)
        assert.equal(canonicalRow(row).of(fields), canonicalJson(Object.fromEntries(fields.map((f) => [f, row[f]]))), fields.join())
  })

  test('rejects what canonicalJson rejects', () => {
    assert.throws(() => canonicalRow({ a: 'x', b: Number.NaN }), TypeError)
  })
})

describe('codePointLength', () => {
  test('counts astral characters once', () => {
    assert.equal(codePointLength(''), 0)
    assert.equal(codePointLength('abc'), 3)
    assert.equal('😀'.length, 2)
    assert.equal(codePointLength('😀'), 1)
    assert.equal(codePointLength('a😀b𝕏'), 4)
    assert.equal(codePointLength('日本語'), 3)
  })

  test('counts combining marks separately', () => {
    assert.equal(codePointLength('e\u0301'), 2)
  })
})

describe('compareStrings', () => {
  test('orders by UTF-16 code unit', () => {
    assert.deepEqual(['b', 'A', 'a', 'B', 'é'].sort(compareStrings), ['A', 'B', 'a', 'b', 'é'])
    assert.equal(compareStrings('x', 'x'), 0)
    assert.ok(compareStrings('ab', 'a') > 0)
  })
})
