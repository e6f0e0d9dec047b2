/**
 * The decode worker's thread (started by parquet-decoder.ts): decodes whole files it is sent and
 * answers each with its rows or what failed. A rejection hyparquet leaves unobserved ends up
 * here as this thread's own, never the build's.
 */
import { parentPort } from 'node:worker_threads'
import { type DecodeOutcome, type DecodeRequest, READY } from './parquet-protocol.ts'
import { type Footer, readFooter, readRows, unreadableCodec } from './parquet-read.ts'

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))
let leaked: unknown = null

async function decode(buffer: ArrayBuffer): Promise<DecodeOutcome> {
  let footer: Footer
  try {
    footer = readFooter(buffer)
  } catch (e) {
    return { ok: false, stage: 'metadata', message: message(e) }
  }
  const codec = unreadableCodec(footer.metadata)
  if (codec) return { ok: false, stage: 'codec', ...codec }
  leaked = null
  try {
    const rows = await readRows(buffer, footer.metadata)
    // a rejection hyparquet left unobserved is reported on a later turn
    await new Promise((r) => setImmediate(r))
    if (leaked) throw leaked
    return { ok: true, columns: footer.columns, rows }
  } catch (e) {
    return { ok: false, stage: 'decode', message: message(e) }
  }
}

// only as a worker: imported on the main thread (by mistake) it must not catch the build's rejections
const port = parentPort
if (port) {
  process.on('unhandledRejection', (e) => {
    leaked ??= e
  })
  port.on('message', async ({ id, buffer }: DecodeRequest) => {
    const result = await decode(buffer)
    try {
      port.postMessage({ id, ...result })
    } catch (e) {
      // rows that cannot be copied across threads
      port.postMessage({ id, ok: false, stage: 'decode', message: message(e) })
    }
  })
  port.postMessage(READY)
}
