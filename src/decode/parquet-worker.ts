/**
 * The decode worker's thread (started by parquet-decoder.ts): decodes the files it is sent a row
 * group at a time, sending each group's rows once the parent has taken the previous ones (decoding
 * the next meanwhile), so neither thread holds a big file's rows all at once; or says what failed.
 * A rejection hyparquet leaves unobserved ends up here as this thread's own, never the build's.
 */
import { parentPort } from 'node:worker_threads'
import { type DecodeAck, type DecodeRequest, READY, type WorkerReply } from './parquet-protocol.ts'
import { type Footer, readFooter, readRows, rowGroupSizes, unreadableCodec } from './parquet-read.ts'

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))
let leaked: unknown = null

type Decoded = { rows: Record<string, unknown>[] } | { error: unknown }

/** One row group's rows, or what failed (a rejection hyparquet left unobserved included). */
async function group(buffer: ArrayBuffer, footer: Footer, rowStart: number, rowEnd: number): Promise<Decoded> {
  try {
    const rows = await readRows(buffer, footer.metadata, { rowStart, rowEnd })
    // a rejection hyparquet left unobserved is reported on a later turn
    await new Promise((r) => setImmediate(r))
    if (leaked) throw leaked
    return { rows }
  } catch (e) {
    return { error: e }
  }
}

/**
 * Roughly what `value` takes once copied to the parent: 2 bytes a code unit, 8 a number. A copy does not share
 * what the decoder does (a dictionary's one string, repeated), so this counts every reference in full.
 */
function copiedBytes(value: unknown): number {
  if (typeof value === 'string') return 2 * value.length
  if (value === null || typeof value !== 'object') return 8
  let n = 8
  if (Array.isArray(value)) for (const v of value) n += copiedBytes(v)
  else if (!ArrayBuffer.isView(value)) for (const v of Object.values(value)) n += copiedBytes(v)
  else n += value.byteLength
  return n
}

// only as a worker: imported on the main thread (by mistake) it must not catch the build's rejections
const port = parentPort
if (port) {
  /** per decode, what the parent's next ack resolves */
  const acks = new Map<number, () => void>()
  const send = (reply: WorkerReply) => port.postMessage(reply)

  async function decode(id: number, buffer: ArrayBuffer, maxBytes: number): Promise<void> {
    let footer: Footer
    try {
      footer = readFooter(buffer)
    } catch (e) {
      return send({ id, kind: 'failed', ok: false, stage: 'metadata', message: message(e) })
    }
    const codec = unreadableCodec(footer.metadata)
    if (codec) return send({ id, kind: 'failed', ok: false, stage: 'codec', ...codec })
    const sizes = rowGroupSizes(footer.metadata)
    send({ id, kind: 'columns', columns: footer.columns, total: Number(footer.metadata.num_rows) })
    leaked = null
    // what the parent has been sent: bounded as the whole file's rows once were by this thread's heap, since a
    // footer can list one row group many times over, or a dictionary repeat one long string
    let sent = 0
    let start = 0
    let next = sizes.length > 0 ? group(buffer, footer, 0, sizes[0]!) : null
    for (let g = 0; g < sizes.length; g++) {
      const got = await next!
      if ('error' in got) return send({ id, kind: 'failed', ok: false, stage: 'decode', message: message(got.error) })
      const end = start + sizes[g]!
      sent += copiedBytes(got.rows)
      if (sent > maxBytes)
        return send({ id, kind: 'failed', ok: false, stage: 'decode', message: `its rows take more than ${maxBytes >> 20} MB decoded` })
      const acked = new Promise<void>((resolve) => acks.set(id, resolve))
      try {
        send({ id, kind: 'rows', rows: got.rows, first: start })
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
    decode(m.id, m.buffer, m.maxBytes).catch((e: unknown) =>
      send({ id: m.id, kind: 'failed', ok: false, stage: 'decode', message: message(e) }),
    )
  })
  port.postMessage(READY)
}
