import { digestSetHash, sha256Digest } from './hash.ts'

/** Text as the spec compares it; never used to rewrite text. */
export function normalize(s: string): string {
  if (s.length < LONG) return normalizeNow(s)
  let n = LONG_TEXTS.get(s)
  if (n === undefined) {
    n = normalizeNow(s)
    // one text past the whole budget is not kept at all
    if (s.length + n.length > LONG_BUDGET) return n
    if (longChars > LONG_BUDGET) {
      LONG_TEXTS.clear()
      longChars = 0
    }
    LONG_TEXTS.set(s, n)
    longChars += s.length + n.length
  }
  return n
}

// A passage is normalised for its candidate, its one-per-passage key and every index of its group: the
// second time on is a lookup (the same string object, its hash kept by V8). Short texts are cheaper to redo.
const LONG = 256
const LONG_TEXTS = new Map<string, string>()
// characters held through the map (most are held by the candidates anyway; jev-bench's 10 M); past it, it starts again
const LONG_BUDGET = 16 << 20
let longChars = 0

function normalizeNow(s: string): string {
  const folded = s.normalize('NFKC')
  // most texts have nothing to collapse; testing first is about twice as fast
  return (NEEDS_COLLAPSE.test(folded) ? folded.replace(WHITESPACE, ' ') : folded).trim().toLowerCase()
}

// without the u flag \s matches the same code points and runs faster
const WHITESPACE = /\s+/g
// a run of two, or any white space other than U+0020 (ECMAScript's \s set)
const NEEDS_COLLAPSE = /\s\s|[\t\n\v\f\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/

/** Code-unit order: the same on every machine and locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * JSON with sorted keys and int64 (bigint) written as a decimal number, so the
 * same values hash the same however they were encoded upstream.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value)
    case 'bigint':
      return value.toString(10)
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot canonicalise ${value}`)
      return JSON.stringify(value)
    case 'object': {
      if (Array.isArray(value)) {
        // strings are concatenated, not joined: V8 ropes make this the cheapest way
        let out = '['
        for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i])
        return `${out}]`
      }
      if (value instanceof Date) return JSON.stringify(value.toISOString())
      const { sorted, prefixes } = shapeOf(Object.keys(value))
      if (sorted.length === 0) return '{}'
      let out = ''
      for (let i = 0; i < sorted.length; i++) out += prefixes[i]! + canonicalJson((value as Record<string, unknown>)[sorted[i]!])
      return `${out}}`
    }
    default:
      throw new TypeError(`cannot canonicalise a ${typeof value}`)
  }
}

/** A row's canonical JSON, and that of an object of some of its fields, put together from the same parts. */
export interface CanonicalRow {
  json: string
  /** canonicalJson of `{ [f]: row[f] }` over `fields` (a content id's), without serialising any value again */
  of(fields: readonly string[]): string
}

/** canonicalJson of a row, keeping each field's part for `of` when it is a plain object (as the decoder gives). */
export function canonicalRow(row: unknown): CanonicalRow {
  if (typeof row !== 'object' || row === null || Array.isArray(row) || row instanceof Date) {
    const json = canonicalJson(row)
    const field = (f: string) => (typeof row === 'object' && row !== null ? (row as Record<string, unknown>)[f] : undefined)
    return { json, of: (fields) => canonicalJson(Object.fromEntries(fields.map((f) => [f, field(f)]))) }
  }
  const { sorted, prefixes, quoted } = shapeOf(Object.keys(row))
  const parts = sorted.map((k) => canonicalJson((row as Record<string, unknown>)[k]))
  let json = '{}'
  if (sorted.length > 0) {
    json = ''
    for (let i = 0; i < sorted.length; i++) json += prefixes[i]! + parts[i]!
    json += '}'
  }
  return {
    json,
    of(fields) {
      let out = ''
      for (const f of sortedFields(fields)) {
        const i = sorted.indexOf(f)
        // a field the row lacks is undefined in the object, which canonicalJson writes as null
        out += `${out === '' ? '{' : ','}${i < 0 ? `${JSON.stringify(f)}:` : quoted[i]!}${i < 0 ? 'null' : parts[i]!}`
      }
      return out === '' ? '{}' : `${out}}`
    },
  }
}

// a mapping's field list is one array for all its rows: sorted (and de-duplicated, as an object's keys are) once
const SORTED_FIELDS = new WeakMap<readonly string[], string[]>()

function sortedFields(fields: readonly string[]): string[] {
  let sorted = SORTED_FIELDS.get(fields)
  if (!sorted) SORTED_FIELDS.set(fields, (sorted = [...new Set(fields)].sort(compareStrings)))
  return sorted
}

// Rows of one file share their keys: sorting and quoting them once per shape, not per row, halves the row hash's cost.
interface Shape {
  keys: string[]
  sorted: string[]
  /** `{"key":` for the first key, `,"key":` for the others */
  prefixes: string[]
  /** `"key":` */
  quoted: string[]
}
const SHAPES: Shape[] = []

function shapeOf(keys: string[]): Shape {
  for (const shape of SHAPES) if (sameKeys(shape.keys, keys)) return shape
  const sorted = keys.slice().sort(compareStrings)
  const quoted = sorted.map((k) => `${JSON.stringify(k)}:`)
  const shape = { keys, sorted, quoted, prefixes: quoted.map((q, i) => `${i ? ',' : '{'}${q}`) }
  if (SHAPES.length >= 16) SHAPES.pop()
  SHAPES.unshift(shape)
  return shape
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** The spec's decoded-rows hash: independent of Parquet encoding and row order. */
export function rowsHash(rows: readonly unknown[]): string {
  return digestSetHash(rows.map((r) => sha256Digest(canonicalJson(r))))
}

/** Unicode code points, as the borrow limit counts them. */
export function codePointLength(s: string): number {
  let n = 0
  // without surrogates every code unit is a code point
  if (!/[\ud800-\udfff]/.test(s)) return s.length
  for (const _ of s) n++
  return n
}
