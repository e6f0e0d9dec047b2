import { digestSetHash, sha256Digest } from './hash.ts'

/** Text as the spec compares it; never used to rewrite text. */
export function normalize(s: string): string {
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

// Rows of one file share their keys: sorting and quoting them once per shape, not per row, halves the row hash's cost.
interface Shape {
  keys: string[]
  sorted: string[]
  /** `{"key":` for the first key, `,"key":` for the others */
  prefixes: string[]
}
const SHAPES: Shape[] = []

function shapeOf(keys: string[]): Shape {
  for (const shape of SHAPES) if (sameKeys(shape.keys, keys)) return shape
  const sorted = keys.slice().sort(compareStrings)
  const shape = { keys, sorted, prefixes: sorted.map((k, i) => `${i ? ',' : '{'}${JSON.stringify(k)}:`) }
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
