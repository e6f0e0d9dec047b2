import { createHash } from 'node:crypto'

/** Text as the spec compares it; never used to rewrite text. */
export function normalize(s: string): string {
  return s.normalize('NFKC').replace(/\s+/gu, ' ').trim().toLowerCase()
}

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
  if (value === null || value === undefined) return 'null'
  switch (typeof value) {
    case 'bigint':
      return value.toString(10)
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot canonicalise ${value}`)
      return JSON.stringify(value)
    case 'string':
    case 'boolean':
      return JSON.stringify(value)
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
      if (value instanceof Date) return JSON.stringify(value.toISOString())
      const entries = Object.keys(value)
        .sort(compareStrings)
        .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      return `{${entries.join(',')}}`
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
