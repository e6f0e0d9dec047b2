/** What the decode worker (parquet-worker.ts) and its parent (parquet-decoder.ts) send each other. */
import type { UnreadableCodec } from './parquet-read.ts'

/** Sent once, when the thread has loaded its modules: a decode's time limit starts after it. */
export const READY = 'ready'

/** The parent's request: a whole file's bytes, handed over. */
export interface DecodeRequest {
  id: number
  buffer: ArrayBuffer
}

export type DecodeOutcome =
  | { ok: true; columns: string[]; rows: Record<string, unknown>[] }
  | { ok: false; stage: 'metadata' | 'decode'; message: string }
  | ({ ok: false; stage: 'codec' } & UnreadableCodec)

export type WorkerReply = DecodeOutcome & { id: number }
