/** What the decode worker (parquet-worker.ts) and its parent (parquet-decoder.ts) send each other. */
import type { UnreadableCodec } from './parquet-read.ts'

/** Sent once, when the thread has loaded its modules: a decode's time limit starts after it. */
export const READY = 'ready'

/** The parent's request: a whole file's bytes, handed over, and the most its decoded rows may take. */
export interface DecodeRequest {
  id: number
  buffer: ArrayBuffer
  maxBytes: number
}

/** The parent has taken a row group's rows: the worker may send the next (it decodes it meanwhile). */
export interface DecodeAck {
  id: number
  ack: true
}

export type DecodeFailure = { ok: false; stage: 'metadata' | 'decode'; message: string } | ({ ok: false; stage: 'codec' } & UnreadableCodec)

/** A decode's answers, in order: the columns, each row group's rows (each waiting for its ack), then the end; or a failure at any point. */
export type WorkerReply = { id: number } & (
  | { kind: 'columns'; columns: string[]; total: number }
  | { kind: 'rows'; rows: Record<string, unknown>[]; first: number }
  | { kind: 'end' }
  | ({ kind: 'failed' } & DecodeFailure)
)
