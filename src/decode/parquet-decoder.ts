/**
 * The one decode worker (src/decode/parquet-worker.ts) and its queue: one decode at a time, each
 * bounded in time (the worker's decoding of the whole file) and heap (the worker's, which holds
 * a row group or two). hyparquet on corrupt bytes can loop for ever in synchronous code; only
 * another thread can stop that, so a decode past its limit ends the worker, and the next decode
 * starts a fresh one. Rows come a row group at a time, into a sink.
 */
import { Worker } from 'node:worker_threads'
import { type DecodeAck, type DecodeFailure, type DecodeRequest, READY, type WorkerReply } from './parquet-protocol.ts'

export type DecoderFailure = DecodeFailure | { ok: false; stage: 'timeout' | 'crash' | 'internal'; message: string }

/** Where a decode's rows go: the columns and row count first, then each row group's rows. */
export interface DecodeSink {
  columns(names: string[], total: number): void
  rows(rows: Record<string, unknown>[], first: number): void
}

/**
 * A count read from a corrupt byte can make hyparquet fill an array of
 * billions; the heap cap stops that. Decoded rows take up to ~16 times their
 * file's size (MMLU all/test, 3.4 MB, needs ~25 MB); the worker holds a row
 * group or two of them, and one group can be the whole file, so the cap grows with the file.
 */
export function workerHeapMb(bytes: number): number {
  return Math.max(1024, Math.ceil((bytes / 2 ** 20) * 16))
}

/** Loading the worker's modules (tsx compiles them first when run from src/) may take this long. */
const START_LIMIT_MS = 60_000

// run from src/ (the tests, through tsx) the worker is TypeScript, which a worker thread loads only through tsx (ts-worker.mjs)
const fromSource = import.meta.url.endsWith('.ts')
const WORKER_URL = new URL(fromSource ? './parquet-worker.ts' : './parquet-worker.js', import.meta.url)
const TS_WORKER_URL = new URL('./ts-worker.mjs', import.meta.url)

interface Running {
  worker: Worker
  heapMb: number
  /** resolves when the thread has loaded its modules; rejects if it cannot */
  ready: Promise<void>
}

let running: Running | null = null
let nextId = 0
/** One decode at a time through the one worker. */
let queue: Promise<unknown> = Promise.resolve()

function start(heapMb: number): Running {
  const worker = new Worker(fromSource ? TS_WORKER_URL : WORKER_URL, {
    // none of the parent's flags: the worker needs no more than its own modules
    execArgv: [],
    workerData: { entry: WORKER_URL.href },
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
  })
  // an idle decoder does not keep the process alive; a pending decode's timer does
  worker.unref()
  // a worker stopped while out of memory may still report it after its decode has let go: never an unhandled 'error'
  worker.on('error', () => {})
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`the decoder did not start in ${START_LIMIT_MS / 1000} s`)), START_LIMIT_MS)
    const onMessage = (m: unknown) => {
      if (m !== READY) return
      settle()
      resolve()
    }
    const fail = (e: Error) => {
      settle()
      reject(e)
    }
    const onExit = (code: number) => fail(new Error(`the decoder stopped while starting (exit code ${code})`))
    const settle = () => {
      clearTimeout(timer)
      worker.off('message', onMessage)
      worker.off('error', fail)
      worker.off('exit', onExit)
    }
    worker.on('message', onMessage)
    worker.on('error', fail)
    worker.on('exit', onExit)
  })
  ready.catch(() => {}) // awaited by the decode that started it
  return { worker, heapMb, ready }
}

function stop(r: Running): void {
  if (running === r) running = null
  void r.worker.terminate()
}

/** What the worker's thread has been busy with since `base` (decoding, copying rows out), in ms; waits for an ack are idle. */
const busySince = (w: Worker, base: ReturnType<Worker['performance']['eventLoopUtilization']>) =>
  w.performance.eventLoopUtilization(base).active

async function runOnce(buffer: ArrayBuffer, timeoutMs: number, maxBytes: number, sink: DecodeSink): Promise<DecoderFailure | null> {
  const heapMb = workerHeapMb(buffer.byteLength)
  // a file too big for the running decoder's cap gets a new decoder with a bigger one
  if (running && running.heapMb < heapMb) stop(running)
  const r = (running ??= start(heapMb))
  try {
    await r.ready
  } catch (e) {
    stop(r)
    return { ok: false, stage: 'internal', message: (e as Error).message }
  }
  const w = r.worker
  const id = nextId++
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined
    const timeout = () => {
      stop(r)
      finish()
      resolve({ ok: false, stage: 'timeout', message: `decoding did not finish in ${(timeoutMs / 1000).toFixed(1)} s` })
    }
    // the limit is on the worker's busy time for this file, read off its event loop (decoding and copying rows out,
    // not waiting for the build to take them); a timer for what is left of it runs from each request or ack to the next answer
    const base = w.performance.eventLoopUtilization()
    const arm = () => {
      timer = setTimeout(timeout, Math.max(0, timeoutMs - busySince(w, base)))
    }
    const finish = () => {
      clearTimeout(timer)
      w.off('message', onMessage)
      w.off('error', onError)
      w.off('exit', onExit)
    }
    /** the sink's own error: the decode is abandoned (with its worker) and the error passes through unchanged */
    const take = (f: () => void): boolean => {
      try {
        f()
        return true
      } catch (e) {
        stop(r)
        finish()
        reject(e)
        return false
      }
    }
    const onMessage = (reply: WorkerReply) => {
      if (reply.id !== id) return
      clearTimeout(timer)
      switch (reply.kind) {
        case 'columns':
          if (take(() => sink.columns(reply.columns, reply.total))) arm()
          return
        case 'rows':
          if (busySince(w, base) > timeoutMs) return timeout()
          if (!take(() => sink.rows(reply.rows, reply.first))) return
          w.postMessage({ id, ack: true } satisfies DecodeAck)
          arm()
          return
        case 'end':
          finish()
          resolve(null)
          return
        case 'failed': {
          finish()
          const { id: _, kind: __, ...failure } = reply
          resolve(failure)
          return
        }
        default: {
          // a worker built from other code than this thread's
          reply satisfies never
          stop(r)
          finish()
          resolve({
            ok: false,
            stage: 'internal',
            message: `the decoder sent an unknown reply (${JSON.stringify((reply as { kind?: unknown }).kind)})`,
          })
        }
      }
    }
    const onError = (e: Error) => {
      stop(r)
      finish()
      resolve({ ok: false, stage: 'crash', message: e.message })
    }
    const onExit = (code: number) => {
      stop(r)
      finish()
      resolve({ ok: false, stage: 'crash', message: `the decoder stopped (exit code ${code})` })
    }
    w.on('message', onMessage)
    w.on('error', onError)
    w.on('exit', onExit)
    arm()
    w.postMessage({ id, buffer, maxBytes } satisfies DecodeRequest, [buffer])
  })
}

/**
 * Decodes a file in the worker, after the decodes queued before it, its rows into `sink` a row group at a
 * time; null once every row is in, else what failed. `buffer` is handed over. A sink's throw rejects with it.
 * `maxBytes`: the most its rows may take (default: the worker's heap cap, which bounded them when they were sent whole).
 */
export function streamInWorker(
  buffer: ArrayBuffer,
  limits: { timeoutMs: number; maxBytes?: number },
  sink: DecodeSink,
): Promise<DecoderFailure | null> {
  const maxBytes = limits.maxBytes ?? workerHeapMb(buffer.byteLength) * 2 ** 20
  const run = queue.then(() => runOnce(buffer, limits.timeoutMs, maxBytes, sink))
  queue = run.catch(() => {})
  return run
}
