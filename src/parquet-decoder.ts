/**
 * The one decode worker (src/parquet-worker.ts) and its queue: one decode at a time, each
 * bounded in time and heap. hyparquet on corrupt bytes can loop for ever in synchronous code;
 * only another thread can stop that, so a decode past its limit ends the worker, and the next
 * decode starts a fresh one.
 */
import { Worker } from 'node:worker_threads'
import { type DecodeOutcome, type DecodeRequest, READY, type WorkerReply } from './parquet-protocol.ts'

export type DecoderOutcome = DecodeOutcome | { ok: false; stage: 'timeout' | 'crash' | 'internal'; message: string }

/**
 * A count read from a corrupt byte can make hyparquet fill an array of
 * billions; the heap cap stops that. Decoded rows take up to ~16 times their
 * file's size (MMLU all/test, 3.4 MB, needs ~25 MB), so the cap grows with the file.
 */
export function workerHeapMb(bytes: number): number {
  return Math.max(1024, Math.ceil((bytes / 2 ** 20) * 16))
}

/** Loading the worker's modules (tsx compiles them first when run from src/) may take this long. */
const START_LIMIT_MS = 60_000

// run from src/ the worker is TypeScript, which a worker thread can load only through tsx (bin/ts-worker.mjs)
const fromSource = import.meta.url.endsWith('.ts')
const WORKER_URL = new URL(fromSource ? './parquet-worker.ts' : './parquet-worker.js', import.meta.url)
const TS_WORKER_URL = new URL('../bin/ts-worker.mjs', import.meta.url)

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

async function runOnce(buffer: ArrayBuffer, timeoutMs: number): Promise<DecoderOutcome> {
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
  return new Promise((resolve) => {
    const done = (outcome: DecoderOutcome) => {
      clearTimeout(timer)
      w.off('message', onMessage)
      w.off('error', onError)
      w.off('exit', onExit)
      resolve(outcome)
    }
    const onMessage = (reply: WorkerReply) => {
      if (reply.id !== id) return
      const { id: _, ...outcome } = reply
      done(outcome)
    }
    const onError = (e: Error) => {
      stop(r)
      done({ ok: false, stage: 'crash', message: e.message })
    }
    const onExit = (code: number) => {
      stop(r)
      done({ ok: false, stage: 'crash', message: `the decoder stopped (exit code ${code})` })
    }
    const timer = setTimeout(() => {
      stop(r)
      done({ ok: false, stage: 'timeout', message: `decoding did not finish in ${(timeoutMs / 1000).toFixed(1)} s` })
    }, timeoutMs)
    w.on('message', onMessage)
    w.on('error', onError)
    w.on('exit', onExit)
    w.postMessage({ id, buffer } satisfies DecodeRequest, [buffer])
  })
}

/** Decodes a whole file in the worker, after the decodes queued before it; `buffer` is handed over. */
export function decodeInWorker(buffer: ArrayBuffer, timeoutMs: number): Promise<DecoderOutcome> {
  const run = queue.then(() => runOnce(buffer, timeoutMs))
  queue = run.catch(() => {})
  return run
}
