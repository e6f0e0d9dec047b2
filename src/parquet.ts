import { Worker } from 'node:worker_threads'
import { JevError } from './errors.ts'

export interface DecodedFile {
  columns: string[]
  rows: Record<string, unknown>[]
}

interface At {
  source: string
  file: string
}

/** A decode of a file this big should take far less: hyparquet reads ~25 MB/s; this allows ~1 MB/s. */
export function decodeTimeoutMs(bytes: number): number {
  return 5_000 + Math.ceil(bytes / 1_000)
}

/**
 * The decoder runs in a worker thread, because hyparquet on corrupt bytes can
 * loop for ever in synchronous code (a length or count read from a flipped
 * byte) or leave a column's rejection unobserved (an unhandledRejection that
 * would end the process); only another thread can stop the first, and a
 * worker's unhandled rejection is its own. Plain JS, so it runs the same
 * from src/ (tsx) and dist/.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const message = (e) => (e instanceof Error ? e.message : String(e))
let leaked = null
process.on('unhandledRejection', (e) => { leaked ??= e })
const ready = Promise.all([import(workerData.hyparquet), import(workerData.compressors)])
async function decode(buffer) {
  let modules
  try { modules = await ready } catch (e) { return { ok: false, stage: 'internal', message: message(e) } }
  const [{ parquetMetadata, parquetSchema, parquetReadObjects }, { compressors }] = modules
  let metadata, columns
  try {
    metadata = parquetMetadata(buffer)
    columns = parquetSchema(metadata).children.map((c) => c.element.name)
  } catch (e) { return { ok: false, stage: 'metadata', message: message(e) } }
  const codecs = new Set(['UNCOMPRESSED', ...Object.keys(compressors)])
  for (const group of metadata.row_groups ?? [])
    for (const chunk of group.columns ?? []) {
      const meta = chunk.meta_data
      if (meta && !codecs.has(meta.codec))
        return { ok: false, stage: 'codec', column: (meta.path_in_schema ?? []).join('.'), codec: meta.codec ?? null, supported: [...codecs] }
    }
  leaked = null
  try {
    const rows = await parquetReadObjects({ file: buffer, metadata, compressors })
    // a rejection hyparquet left unobserved is reported on a later turn
    await new Promise((r) => setImmediate(r))
    if (leaked) throw leaked
    return { ok: true, columns, rows }
  } catch (e) { return { ok: false, stage: 'decode', message: message(e) } }
}
parentPort.on('message', async ({ id, buffer }) => {
  const result = await decode(buffer)
  try { parentPort.postMessage({ id, ...result }) }
  catch (e) { parentPort.postMessage({ id, ok: false, stage: 'decode', message: message(e) }) }
})
`

type Reply =
  | { id: number; ok: true; columns: string[]; rows: Record<string, unknown>[] }
  | { id: number; ok: false; stage: 'internal' | 'metadata' | 'decode'; message: string }
  | { id: number; ok: false; stage: 'codec'; column: string; codec: string | null; supported: string[] }

/**
 * A count read from a corrupt byte can make hyparquet fill an array of
 * billions; the heap cap stops that. Decoded rows take up to ~16 times their
 * file's size (MMLU all/test, 3.4 MB, needs ~25 MB), so the cap grows with the file.
 */
export function workerHeapMb(bytes: number): number {
  return Math.max(1024, Math.ceil((bytes / 2 ** 20) * 16))
}

let worker: Worker | null = null
let workerHeap = 0
let nextId = 0
/** One decode at a time through the one worker. */
let queue: Promise<unknown> = Promise.resolve()

function startWorker(heapMb: number): Worker {
  workerHeap = heapMb
  const w = new Worker(WORKER_SOURCE, {
    eval: true,
    // plain JS: none of the parent's loaders (tsx) needed
    execArgv: [],
    workerData: { hyparquet: import.meta.resolve('hyparquet'), compressors: import.meta.resolve('hyparquet-compressors') },
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
  })
  // an idle decoder does not keep the process alive; a pending decode's timer does
  w.unref()
  return w
}

/**
 * Bytes whose sha256 the lock recorded were decoded before, when the lock was
 * written: they are read on this thread, which saves the worker's start-up and
 * the copy of every row across threads. Anything else goes to the worker.
 */
async function decodeTrusted(bytes: Uint8Array, at: At): Promise<DecodedFile> {
  let columns: string[] = []
  const rows: Record<string, unknown>[] = []
  await streamParquet(bytes, at, { trusted: true }, {
    columns: (names) => void (columns = names),
    rows: (group) => {
      for (const row of group) rows.push(row)
    },
  })
  return { columns, rows }
}

/** Where decoded rows go, a row group at a time; columns come first. */
export interface RowSink {
  columns(names: string[]): void
  rows(rows: Record<string, unknown>[], firstRow: number): void
}

/**
 * Trusted bytes are decoded a row group at a time, so a big file's rows are
 * never all held at once; anything else is decoded whole, in the worker.
 * A sink's own error passes through unchanged.
 */
export async function streamParquet(bytes: Uint8Array, at: At, options: { trusted?: boolean }, sink: RowSink): Promise<void> {
  if (!options.trusted) {
    const { columns, rows } = await decodeParquet(bytes, at, options)
    sink.columns(columns)
    sink.rows(rows, 0)
    return
  }
  const { parquetMetadata, parquetReadObjects, parquetSchema } = await import('hyparquet')
  const { compressors } = await import('hyparquet-compressors')
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
  const fail = (e: unknown) => new JevError('DATA', `${at.source}: cannot decode ${at.file}: ${(e as Error).message}`, { ...at })
  let metadata, columns
  try {
    metadata = parquetMetadata(buffer)
    columns = parquetSchema(metadata).children.map((c) => c.element.name)
  } catch (e) {
    throw fail(e)
  }
  sink.columns(columns)
  let start = 0
  for (const group of metadata.row_groups) {
    const end = start + Number(group.num_rows)
    let rows: Record<string, unknown>[]
    try {
      rows = (await parquetReadObjects({ file: buffer, metadata, compressors, rowStart: start, rowEnd: end })) as Record<string, unknown>[]
    } catch (e) {
      throw fail(e)
    }
    sink.rows(rows, start)
    start = end
  }
}

function stopWorker(w: Worker): void {
  if (worker === w) worker = null
  void w.terminate()
}

function runInWorker(buffer: ArrayBuffer, timeoutMs: number): Promise<Reply | { id: number; ok: false; stage: 'timeout' | 'crash'; message: string }> {
  const heapMb = workerHeapMb(buffer.byteLength)
  // a file too big for the running decoder's cap gets a new decoder with a bigger one
  if (worker && workerHeap < heapMb) stopWorker(worker)
  const w = (worker ??= startWorker(heapMb))
  const id = nextId++
  return new Promise((resolve) => {
    const done = (r: Parameters<typeof resolve>[0]) => {
      clearTimeout(timer)
      w.off('message', onMessage)
      w.off('error', onError)
      w.off('exit', onExit)
      resolve(r)
    }
    const onMessage = (r: Reply) => {
      if (r.id === id) done(r)
    }
    const onError = (e: Error) => {
      stopWorker(w)
      done({ id, ok: false, stage: 'crash', message: e.message })
    }
    const onExit = (code: number) => {
      stopWorker(w)
      done({ id, ok: false, stage: 'crash', message: `the decoder stopped (exit code ${code})` })
    }
    const timer = setTimeout(() => {
      stopWorker(w)
      done({ id, ok: false, stage: 'timeout', message: `decoding did not finish in ${(timeoutMs / 1000).toFixed(1)} s` })
    }, timeoutMs)
    w.on('message', onMessage)
    w.on('error', onError)
    w.on('exit', onExit)
    w.postMessage({ id, buffer }, [buffer])
  })
}

/**
 * Decodes a whole Parquet file to row objects; int64 stays bigint. Whatever
 * the bytes, the outcome is the rows or a DATA error naming source and file
 * (and the column, for a compression codec that cannot be read).
 */
export async function decodeParquet(
  bytes: Uint8Array,
  at: At,
  options: { timeoutMs?: number; trusted?: boolean } = {},
): Promise<DecodedFile> {
  if (options.trusted) return decodeTrusted(bytes, at)
  // a copy, handed over to the worker
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
  const timeoutMs = options.timeoutMs ?? decodeTimeoutMs(bytes.byteLength)
  const run = queue.then(() => runInWorker(buffer, timeoutMs))
  queue = run.catch(() => {})
  const r = await run
  if (r.ok) return { columns: r.columns, rows: r.rows }
  const ctx = { ...at }
  switch (r.stage) {
    case 'metadata':
      throw new JevError('DATA', `${at.source}: ${at.file} is not a readable Parquet file: ${r.message}`, {
        ...ctx,
        hint: 'the file is not Parquet: check that the mirror or cache holds the real file (not an error page, a Git LFS pointer or a cut-off download)',
      })
    case 'codec':
      throw new JevError(
        'DATA',
        `${at.source}: ${at.file}, column ${r.column}: compression codec ${r.codec ?? '(unknown)'} cannot be read (supported: ${r.supported.join(', ')})`,
        { ...ctx, field: r.column, codec: r.codec },
      )
    case 'timeout':
      throw new JevError('DATA', `${at.source}: cannot decode ${at.file}: ${r.message}; the file is probably corrupt`, ctx)
    case 'internal':
      throw new Error(`the Parquet decoder could not start: ${r.message}`)
    default:
      throw new JevError('DATA', `${at.source}: cannot decode ${at.file}: ${r.message}`, ctx)
  }
}
