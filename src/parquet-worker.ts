/**
 * The decode worker's thread (started by parquet-decoder.ts): decodes the files it is sent a row
 * group at a time, sending each group's rows once the parent has taken the previous ones (decoding
 * the next meanwhile), so neither thread holds a big file's rows all at once; or says what failed.
 * A rejection hyparquet leaves unobserved ends up here as this thread's own, never the build's.
 */
import { performance } from 'node:perf_hooks'
import { parentPort } from 'node:worker_threads'
import { type DecodeAck, type DecodeRequest, READY, type WorkerReply } from './parquet-protocol.ts'
import { type Footer, readFooter, readRows, rowGroupSizes, unreadableCodec } from './parquet-read.ts'

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))
let leaked: unknown = null

/** A row group's rows and the ms its decoding took, or what failed. */
type Decoded = { rows: Record<string, unknown>[]; ms: number } | { error: unknown }

/** One row group's rows, or what failed (a rejection hyparquet left unobserved included). */
async function group(buffer: ArrayBuffer, footer: Footer, rowStart: number, rowEnd: number): Promise<Decoded> {
  const began = performance.now()
  try {
    const rows = await readRows(buffer, footer.metadata, { rowStart, rowEnd })
    // a rejection hyparquet left unobserved is reported on a later turn
    await new Promise((r) => setImmediate(r))
    if (leaked) throw leaked
    return { rows, ms: performance.now() - began }
  } catch (e) {
    return { error: e }
  }
}

// only as a worker: imported on the main thread (by mistake) it must not catch the build's rejections
const port = parentPort
if (port) {
  /** per decode, what the parent's next ack resolves */
  const acks = new Map<number, () => void>()
  const send = (reply: WorkerReply) => port.postMessage(reply)

  async function decode(id: number, buffer: ArrayBuffer): Promise<void> {
    let footer: Footer
    try {
      footer = readFooter(buffer)
    } catch (e) {
      return send({ id, kind: 'failed', ok: false, stage: 'metadata', message: message(e) })
    }
    const codec = unreadableCodec(footer.metadata)
    if (codec) return send({ id, kind: 'failed', ok: false, stage: 'codec', ...codec })
    const sizes = rowGroupSizes(footer.metadata)
    const total = Number(footer.metadata.num_rows)
    // a footer can list a row group many times over (or make up its counts): the rows would have no end
    const held = sizes.reduce((n, k) => n + k, 0)
    if (held !== total)
      return send({
        id,
        kind: 'failed',
        ok: false,
        stage: 'metadata',
        message: `its row groups hold ${held} rows, its footer says ${total}`,
      })
    send({ id, kind: 'columns', columns: footer.columns, total })
    leaked = null
    let spent = 0
    let start = 0
    let next = sizes.length > 0 ? group(buffer, footer, 0, sizes[0]!) : null
    for (let g = 0; g < sizes.length; g++) {
      const got = await next!
      if ('error' in got) return send({ id, kind: 'failed', ok: false, stage: 'decode', message: message(got.error) })
      const end = start + sizes[g]!
      spent += got.ms
      const acked = new Promise<void>((resolve) => acks.set(id, resolve))
      try {
        send({ id, kind: 'rows', rows: got.rows, first: start, spent })
      } catch (e) {
        // rows that cannot be copied across threads
        acks.delete(id)
        return send({ id, kind: 'failed', ok: false, stage: 'decode', message: message(e) })
      }
      // the next group decodes while the parent takes this one
      next = g + 1 < sizes.length ? group(buffer, footer, end, end + sizes[g + 1]!) : null
      await acked
      start = end
    }
    // a rejection of the last group's that came while the parent took its rows
    if (leaked) return send({ id, kind: 'failed', ok: false, stage: 'decode', message: message(leaked) })
    send({ id, kind: 'end' })
  }

  process.on('unhandledRejection', (e) => {
    leaked ??= e
  })
  port.on('message', (m: DecodeRequest | DecodeAck) => {
    if ('ack' in m) {
      const ack = acks.get(m.id)
      acks.delete(m.id)
      ack?.()
      return
    }
    // anything that throws outside a row group's decode is this decode's failure, not a wait until its time limit
    decode(m.id, m.buffer).catch((e: unknown) => send({ id: m.id, kind: 'failed', ok: false, stage: 'decode', message: message(e) }))
  })
  port.postMessage(READY)
}
