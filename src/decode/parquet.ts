/**
 * The Parquet boundary: bytes in, rows or a DATA error naming source and file out, a row group at a
 * time. Bytes the lock vouches for are read on this thread; anything else is decoded in a worker
 * (parquet-decoder.ts), where corrupt bytes can neither hang nor crash the build.
 */
import { JevError } from '../errors.ts'
import { type DecoderFailure, streamInWorker } from './parquet-decoder.ts'
import { type Footer, readFooter, readRows, rowGroupSizes } from './parquet-read.ts'

interface At {
  source: string
  file: string
}

/** Where decoded rows go, a row group at a time; columns come first. */
export interface RowSink {
  columns(names: string[]): void
  /** the file's row count, from its metadata, before any row (for progress) */
  total?(rows: number): void
  rows(rows: Record<string, unknown>[], firstRow: number): void
}

/** A decode of a file this big should take far less: hyparquet reads ~25 MB/s; this allows ~1 MB/s. */
export function decodeTimeoutMs(bytes: number): number {
  return 5_000 + Math.ceil(bytes / 1_000)
}

/** A copy of the bytes as their own ArrayBuffer: one the worker can take over, or a view's bytes alone. */
const ownBuffer = (bytes: Uint8Array) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer

/** The bytes as an ArrayBuffer to read: their own when they are all of it (a file read whole is), else a copy. */
const wholeBuffer = (bytes: Uint8Array) =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
    ? bytes.buffer
    : ownBuffer(bytes)

/**
 * Bytes whose sha256 the lock recorded were decoded before, when the lock was written: read
 * here, which saves the worker's start-up and the copy of every row across threads.
 */
async function streamTrusted(bytes: Uint8Array, at: At, sink: RowSink): Promise<void> {
  // only read: a file's bytes are decoded where they lie, not copied first
  const buffer = wholeBuffer(bytes)
  const fail = (e: unknown) => new JevError('DATA', `${at.source}: cannot decode ${at.file}: ${(e as Error).message}`, { ...at })
  let footer: Footer
  try {
    footer = readFooter(buffer)
  } catch (e) {
    throw fail(e)
  }
  sink.columns(footer.columns)
  sink.total?.(Number(footer.metadata.num_rows))
  let start = 0
  for (const size of rowGroupSizes(footer.metadata)) {
    const end = start + size
    let rows: Record<string, unknown>[]
    try {
      rows = await readRows(buffer, footer.metadata, { rowStart: start, rowEnd: end })
    } catch (e) {
      throw fail(e)
    }
    // outside the try: a sink's own error passes through unchanged
    sink.rows(rows, start)
    start = end
  }
}

/** What a failed isolated decode means for the build: a DATA error (naming the column, for a codec that cannot be read). */
function failureError(r: DecoderFailure, at: At): Error {
  const ctx = { ...at }
  switch (r.stage) {
    case 'metadata':
      return new JevError('DATA', `${at.source}: ${at.file} is not a readable Parquet file: ${r.message}`, {
        ...ctx,
        hint: 'the file is not Parquet: check that the mirror or cache holds the real file (not an error page, a Git LFS pointer or a cut-off download)',
      })
    case 'codec':
      return new JevError(
        'DATA',
        `${at.source}: ${at.file}, column ${r.column}: compression codec ${r.codec ?? '(unknown)'} cannot be read (supported: ${r.supported.join(', ')})`,
        { ...ctx, field: r.column, codec: r.codec },
      )
    case 'timeout':
      return new JevError('DATA', `${at.source}: cannot decode ${at.file}: ${r.message}; the file is probably corrupt`, ctx)
    case 'internal':
      return new Error(`the Parquet decoder could not start: ${r.message}`)
    default:
      return new JevError('DATA', `${at.source}: cannot decode ${at.file}: ${r.message}`, ctx)
  }
}

/** Whatever the bytes, their rows into `sink` or a DATA error; a sink's own error passes through unchanged. */
async function streamIsolated(
  bytes: Uint8Array,
  at: At,
  limits: { timeoutMs: number; maxBytes?: number },
  handOver: boolean,
  sink: RowSink,
): Promise<void> {
  // a big file's bytes copied is another allocation as big, and at scale each one past V8's limit on array memory is a full collection
  const failed = await streamInWorker(handOver ? wholeBuffer(bytes) : ownBuffer(bytes), limits, {
    columns(names, total) {
      sink.columns(names)
      sink.total?.(total)
    },
    rows: (rows, first) => sink.rows(rows, first),
  })
  if (failed) throw failureError(failed, at)
}

/**
 * Rows into `sink` a row group at a time, so a big file's rows are never all held: trusted bytes on
 * this thread, anything else through the worker (its work on the file bounded by `timeoutMs`, the
 * decoded rows by `maxBytes`, default parquet-decoder.ts's heap cap).
 * Either way the columns reach the sink first and each group's rows before the next is read, so a
 * sink's error (a missing column, a bad row) comes before a later group's decode error; it passes
 * through unchanged, and rows of a file that fails part way may have reached the sink (the build then fails).
 * `handOver`: the caller is done with `bytes`, so the worker may take their buffer over instead of a
 * copy; when it does (untrusted bytes that are a whole buffer) they read as empty after.
 */
export async function streamParquet(
  bytes: Uint8Array,
  at: At,
  options: { trusted?: boolean; timeoutMs?: number; maxBytes?: number; handOver?: boolean },
  sink: RowSink,
): Promise<void> {
  if (options.trusted) return streamTrusted(bytes, at, sink)
  const timeoutMs = options.timeoutMs ?? decodeTimeoutMs(bytes.byteLength)
  const limits = options.maxBytes === undefined ? { timeoutMs } : { timeoutMs, maxBytes: options.maxBytes }
  return streamIsolated(bytes, at, limits, options.handOver === true, sink)
}
