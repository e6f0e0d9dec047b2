import { z } from 'zod'
import { JevError } from '../errors.ts'
import { type CanonicalRow, canonicalJson, canonicalRow } from '../util/canonical.ts'
import { sha256Hex } from '../util/hash.ts'

/** One upstream question in the builder's own terms, whatever dataset it came from. */
export interface UpstreamQuestion {
  source: string
  /** record id: `<source>-<upstream id>` or `<source>-<16 hex of content hash>` */
  id: string
  /** borrowing group within the source (the MMLU subject), before the recipe decides */
  subject: string | null
  question: string
  context: string | null
  options: string[]
  answer: number
  /** the upstream split it came from (not test or val), for error messages and the card */
  upstreamSplit: string
  file: string
  row: number
}

export type AdaptedRow = Pick<UpstreamQuestion, 'id' | 'subject' | 'question' | 'context' | 'options' | 'answer'>

export interface RowAt {
  source: string
  file: string
  row: number
}

/** Maps one upstream dataset's rows to questions; `columns` are checked before any row. */
export interface Adapter<Row> {
  /** whether the record id's local part is an upstream id column or a content hash (the provenance says which) */
  idFrom: 'column' | 'content'
  columns: readonly string[]
  row: z.ZodType<Row>
  /** `canonical`: the raw row's canonical JSON (the rows hash's), whose parts a content id can reuse */
  toQuestion(row: Row, at: RowAt, canonical?: CanonicalRow): AdaptedRow
}

/**
 * An integer column. Parquet int64 decodes to bigint and int32 to number; the
 * rows hash writes both alike, so a copy of the data that narrowed a column
 * must build as the lock says it does.
 */
export const IntColumn = z
  .union([z.bigint(), z.int()], { error: 'expected an integer (an int64 or int32 column)' })
  .transform((v) => BigInt(v))

/** For datasets without an upstream id: a hash of the canonical content that makes the question. */
export function contentId(source: string, content: Record<string, unknown>): string {
  return contentIdOf(source, canonicalJson(content))
}

/** The same, from the content's canonical JSON. */
export function contentIdOf(source: string, json: string): string {
  return recordId(source, sha256Hex(json).slice(0, 16))
}

/**
 * `<source>-<local id>` as one flat string: a template literal would keep a
 * concatenation (and for a content id the whole 64-digit hash) alive per question.
 */
export function recordId(source: string, local: string): string {
  return [source, local].join('-')
}

/**
 * An upstream row's canonical JSON (what the rows hash hashes; canonical.ts's canonicalRow), or a DATA
 * error naming the field JSON cannot hold (NaN, ±Infinity).
 */
export function canonicalRowAt(row: unknown, at: RowAt): CanonicalRow {
  try {
    return canonicalRow(row)
  } catch (e) {
    const bad = Object.entries(typeof row === 'object' && row !== null ? row : {}).find(([, v]) => {
      try {
        canonicalJson(v)
        return false
      } catch {
        return true
      }
    })
    throw dataError(at, bad?.[0] ?? '(row)', (e as Error).message)
  }
}

export function dataError(at: RowAt, field: string, message: string): JevError {
  return new JevError('DATA', `${at.source}: ${at.file} row ${at.row}, field ${field}: ${message}`, {
    source: at.source,
    file: at.file,
    row: at.row,
    field,
  })
}

/** Parses one row with the adapter's schema, naming the first bad field. */
export function adaptRow<Row>(adapter: Adapter<Row>, raw: unknown, at: RowAt, canonical?: CanonicalRow): AdaptedRow {
  const parsed = adapter.row.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue?.path.join('.') || '(row)'
    throw dataError(at, field, issue?.message ?? 'invalid row')
  }
  return adapter.toQuestion(parsed.data, at, canonical)
}
