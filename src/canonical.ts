import { createHash, hash } from 'node:crypto'

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

export function sha256Hex(data: string | Uint8Array): string {
  // the one-shot API: several times faster than createHash for short inputs
  return hash('sha256', data, 'hex')
}

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
      const keys = Object.keys(value).sort(compareStrings)
      let out = '{'
      for (let i = 0; i < keys.length; i++)
        out += `${i ? ',' : ''}${JSON.stringify(keys[i])}:${canonicalJson((value as Record<string, unknown>)[keys[i]!])}`
      return `${out}}`
    }
    default:
      throw new TypeError(`cannot canonicalise a ${typeof value}`)
  }
}

/** Order-independent hash of a set of items: sha256 over the sorted per-item hashes. */
export function setHash(itemHashes: Iterable<string>): string {
  const sorted = [...itemHashes].sort(compareStrings)
  const h = createHash('sha256')
  for (const x of sorted) h.update(`${x}\n`)
  return h.digest('hex')
}

/** The spec's decoded-rows hash: independent of Parquet encoding and row order. */
export function rowsHash(rows: readonly unknown[]): string {
  return setHash(rows.map((r) => sha256Hex(canonicalJson(r))))
}

/** Unicode code points, as the borrow limit counts them. */
export function codePointLength(s: string): number {
  let n = 0
  // without surrogates every code unit is a code point
  if (!/[\ud800-\udfff]/.test(s)) return s.length
  for (const _ of s) n++
  return n
}
