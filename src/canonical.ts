import { createHash } from 'node:crypto'

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
  return createHash('sha256').update(data).digest('hex')
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
  const parts: string[] = []
  writeCanonical(value, parts)
  return parts.join('')
}

function writeCanonical(value: unknown, out: string[]): void {
  if (value === null || value === undefined) {
    out.push('null')
    return
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      out.push(JSON.stringify(value))
      return
    case 'bigint':
      out.push(value.toString(10))
      return
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot canonicalise ${value}`)
      out.push(JSON.stringify(value))
      return
    case 'object': {
      if (Array.isArray(value)) {
        out.push('[')
        value.forEach((v, i) => {
          if (i) out.push(',')
          writeCanonical(v, out)
        })
        out.push(']')
        return
      }
      if (value instanceof Date) {
        out.push(JSON.stringify(value.toISOString()))
        return
      }
      out.push('{')
      Object.keys(value)
        .sort(compareStrings)
        .forEach((k, i) => {
          out.push(i ? ',' : '', JSON.stringify(k), ':')
          writeCanonical((value as Record<string, unknown>)[k], out)
        })
      out.push('}')
      return
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
  for (const _ of s) n++
  return n
}
