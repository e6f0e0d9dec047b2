/**
 * The Parquet boundary (src/decode/parquet.ts): whatever hyparquet does with corrupt
 * bytes — loop for ever, leave a rejection unobserved — streamParquet ends in
 * the rows or a DATA error, and the process goes on. The two files here are
 * fixture files with a few bytes xor-ed, found by the fuzzing in fuzz.test.ts.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { parquetMetadata, parquetSchema } from 'hyparquet'
import { ByteWriter, parquetWriteBuffer } from 'hyparquet-writer'
import { writeMetadata } from 'hyparquet-writer/src/metadata.js'
import { decodeTimeoutMs, streamParquet } from '../src/decode/parquet.ts'
import { isJevError } from '../src/errors.ts'
import { FIXTURE_HUB, ROOT } from './helpers/cli.ts'
import { decodeParquet } from './helpers/parquet.ts'

async function corrupted(file: string, flips: [number, number][]): Promise<Uint8Array> {
  const bytes = new Uint8Array(await readFile(join(FIXTURE_HUB, 'datasets', file)))
  for (const [at, mask] of flips) bytes[at] = bytes[at]! ^ mask
  return bytes
}

const MMLU_VAL = 'cais/mmlu/all/validation-00000-of-00001.parquet'
const ARC_EASY_VAL = 'allenai/ai2_arc/ARC-Easy/validation-00000-of-00001.parquet'
const at = { source: 's', file: 'f.parquet' }

test('a column whose rejection hyparquet leaves unobserved: DATA, and no unhandled rejection reaches this process', async () => {
  // 6863: the answer column's path in the footer no longer matches the schema; 1153: a page that no longer decompresses
  const bytes = await corrupted(MMLU_VAL, [
    [1153, 42],
    [6863, 104],
  ])
  const unhandled: unknown[] = []
  const listen = (e: unknown) => void unhandled.push(e)
  process.on('unhandledRejection', listen)
  try {
    await assert.rejects(decodeParquet(bytes, at), (e: unknown) => {
      assert.ok(isJevError(e), String(e))
      assert.equal(e.code, 'DATA')
      assert.match(e.message, /^s: cannot decode f\.parquet: /)
      assert.deepEqual(e.context, at)
      return true
    })
    await new Promise((r) => setTimeout(r, 50))
  } finally {
    process.off('unhandledRejection', listen)
  }
  assert.deepEqual(unhandled, [])
})

test('a decode that never ends is stopped at its time limit: DATA; the next decode works', async () => {
  // a count read from a flipped byte sends hyparquet round a loop that does not end (it did not in 60 s)
  const bytes = await corrupted(ARC_EASY_VAL, [
    [2165, 28],
    [1151, 37],
    [304, 192],
    [2406, 102],
    [801, 82],
    [2133, 103],
  ])
  // the message comes only from the limit's timer: no clock is read, so a busy machine cannot fail it
  await assert.rejects(decodeParquet(bytes, at, { timeoutMs: 400 }), (e: unknown) => {
    assert.ok(isJevError(e), String(e))
    assert.equal(e.code, 'DATA')
    assert.match(e.message, /^s: cannot decode f\.parquet: decoding did not finish in 0\.4 s; the file is probably corrupt$/)
    return true
  })
  // the stuck decoder was replaced
  const clean = new Uint8Array(await readFile(join(FIXTURE_HUB, 'datasets', ARC_EASY_VAL)))
  assert.equal((await decodeParquet(clean, at)).rows.length, 20)
})

test('decodes run one at a time and each gets its own answer', async () => {
  const files = [MMLU_VAL, ARC_EASY_VAL, 'google/boolq/data/validation-00000-of-00001.parquet']
  const bytes = await Promise.all(files.map((f) => readFile(join(FIXTURE_HUB, 'datasets', f))))
  const bad = new Uint8Array(bytes[1]!.subarray(0, 100))
  const results = await Promise.allSettled([...bytes.map((b) => decodeParquet(new Uint8Array(b), at)), decodeParquet(bad, at)])
  assert.deepEqual(
    results.map((r) => (r.status === 'fulfilled' ? r.value.rows.length : (r.reason as Error).message)),
    [33, 20, 50, 's: f.parquet is not a readable Parquet file: parquet file invalid (footer != PAR1)'],
  )
})

test('the time limit grows with the file: 5 s, plus 1 s per MB', () => {
  assert.equal(decodeTimeoutMs(0), 5_000)
  assert.equal(decodeTimeoutMs(3_410_189), 8_411)
})

test('bytes the lock vouches for decode on this thread to the same rows as in the worker', async () => {
  const bytes = new Uint8Array(await readFile(join(FIXTURE_HUB, 'datasets', MMLU_VAL)))
  const isolated = await decodeParquet(bytes, at)
  const trusted = await decodeParquet(bytes, at, { trusted: true })
  assert.deepEqual(trusted, isolated)
  assert.ok(trusted.rows.length > 0)
})

test('trusted bytes are read where they lie, whole or a view into a larger buffer, and left as they were', async () => {
  const whole = new Uint8Array(await readFile(join(FIXTURE_HUB, 'datasets', MMLU_VAL)))
  const before = Buffer.from(whole).toString('base64')
  const expected = await decodeParquet(whole, at, { trusted: true })
  assert.equal(Buffer.from(whole).toString('base64'), before)
  const padded = new Uint8Array(whole.byteLength + 16)
  padded.set(whole, 7)
  assert.deepEqual(await decodeParquet(padded.subarray(7, 7 + whole.byteLength), at, { trusted: true }), expected)
})

test('bytes handed over go to the worker without a copy and read as empty after; bytes not handed over stay', async () => {
  const bytes = new Uint8Array(await readFile(join(FIXTURE_HUB, 'datasets', MMLU_VAL)))
  const size = bytes.byteLength
  const rows = (b: Uint8Array, handOver: boolean) => {
    const got: Record<string, unknown>[] = []
    return streamParquet(b, at, { handOver }, { columns() {}, rows: (r) => void got.push(...r) }).then(() => got)
  }
  const kept = await rows(bytes, false)
  assert.equal(bytes.byteLength, size)
  assert.deepEqual(await rows(bytes, true), kept)
  assert.equal(bytes.byteLength, 0)
  // a view into a larger buffer is copied, handed over or not: the rest of its buffer is not the caller's to give
  const padded = new Uint8Array(size + 8)
  padded.set(new Uint8Array(await readFile(join(FIXTURE_HUB, 'datasets', MMLU_VAL))), 8)
  const view = padded.subarray(8)
  assert.deepEqual(await rows(view, true), kept)
  assert.equal(view.byteLength, size)
})

/** The fixture's rows again, `size` to a row group. */
async function inGroups(file: string, size: number): Promise<Uint8Array> {
  const original = new Uint8Array(await readFile(join(FIXTURE_HUB, 'datasets', file)))
  const { rows } = await decodeParquet(original, at, { trusted: true })
  const { schema } = parquetMetadata(original.buffer as ArrayBuffer)
  const names = parquetSchema({ schema } as Parameters<typeof parquetSchema>[0]).children.map((c) => c.element.name)
  const columnData = names.map((name) => ({ name, data: rows.map((r) => r[name]) }))
  return new Uint8Array(parquetWriteBuffer({ columnData, schema, codec: 'SNAPPY', rowGroupSize: size }))
}

test('through the worker a file comes a row group at a time; a sink that throws part way stops it, its error unchanged, and the next decode works', async () => {
  const bytes = await inGroups(MMLU_VAL, 4)
  const groups = parquetMetadata(bytes.buffer as ArrayBuffer).row_groups.length
  assert.ok(groups >= 3, `${groups} row groups`)
  const calls: [number, number][] = []
  await streamParquet(bytes, at, {}, { columns: () => {}, rows: (rows, first) => void calls.push([first, rows.length]) })
  assert.equal(calls.length, groups)
  assert.deepEqual(
    calls.map(([first]) => first),
    calls.map((_, g) => 4 * g),
  )
  const mine = new Error('the sink is full')
  let taken = 0
  await assert.rejects(
    streamParquet(
      bytes,
      at,
      {},
      {
        columns: () => {},
        rows: () => {
          if (++taken === 2) throw mine
        },
      },
    ),
    (e: unknown) => e === mine,
  )
  assert.equal(taken, 2)
  assert.equal((await decodeParquet(bytes, at)).rows.length, (await decodeParquet(bytes, at, { trusted: true })).rows.length)
})

/**
 * A small file whose footer lists its one row group `times` times (its row count agreeing): each group decodes
 * well within a limit, the whole file does not. Readers take the row groups a footer lists, whatever they overlap.
 */
function oneGroupListed(times: number): Uint8Array {
  const R = 5000
  const one = parquetWriteBuffer({
    columnData: [{ name: 'q', data: Array.from({ length: R }, (_, i) => `question ${i} `.repeat(4)), type: 'STRING' }],
    rowGroupSize: R,
  })
  const meta = parquetMetadata(one)
  const footer = new DataView(one).getUint32(one.byteLength - 8, true)
  const w = new ByteWriter()
  w.appendBytes(new Uint8Array(one, 0, one.byteLength - 8 - footer))
  writeMetadata(w, { ...meta, num_rows: BigInt(R * times), row_groups: Array(times).fill(meta.row_groups[0]) })
  w.appendUint32(0x31524150)
  return new Uint8Array(w.getBuffer())
}

test('through the worker the limit is on the whole file: a footer listing one row group 2,000 times is stopped at it, however fast each group is', async () => {
  const bytes = oneGroupListed(2000)
  let groups = 0
  await assert.rejects(streamParquet(bytes, at, { timeoutMs: 300 }, { columns: () => {}, rows: () => void groups++ }), (e: unknown) => {
    assert.ok(isJevError(e) && e.code === 'DATA', String(e))
    assert.match(e.message, /^s: cannot decode f\.parquet: decoding did not finish in 0\.3 s; the file is probably corrupt$/)
    return true
  })
  // each group takes the worker a few ms: without a limit on the whole file every one of them would have come
  assert.ok(groups < 2000, `${groups} groups taken`)
})

test('through the worker the decoded rows are bounded too: past the most they may take, DATA and no more rows', async () => {
  // ~0.6 MB of rows a group, copied in full
  const bytes = oneGroupListed(50)
  let groups = 0
  const limits = { maxBytes: 2 ** 20 }
  await assert.rejects(streamParquet(bytes, at, limits, { columns: () => {}, rows: () => void groups++ }), (e: unknown) => {
    assert.ok(isJevError(e) && e.code === 'DATA', String(e))
    assert.equal(e.message, 's: cannot decode f.parquet: its rows take more than 1 MB decoded')
    return true
  })
  assert.equal(groups, 1)
  // by default the bound is the worker's heap cap, far above a real file's rows
  let rows = 0
  await streamParquet(oneGroupListed(3), at, {}, { columns: () => {}, rows: (r) => void (rows += r.length) })
  assert.equal(rows, 15000)
})

test('compiled (dist/, as the CLIs run), the worker decodes the same rows as from src/ through tsx', async () => {
  // the tests run from src/, so the compiled worker is taken only in a child of its own
  const file = join(FIXTURE_HUB, 'datasets', MMLU_VAL)
  const script = `
    import { readFile } from 'node:fs/promises'
    import { streamParquet } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/decode/parquet.js')).href)}
    const rows = []
    await streamParquet(new Uint8Array(await readFile(${JSON.stringify(file)})), { source: 's', file: 'f.parquet' }, {}, {
      columns: () => {},
      rows: (group) => rows.push(...group),
    })
    process.stdout.write(JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? String(v) : v)))
  `
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  })
  assert.equal(r.status, 0, r.stderr)
  const here = await decodeParquet(new Uint8Array(await readFile(file)), at)
  assert.equal(
    r.stdout,
    JSON.stringify(here.rows, (_, v) => (typeof v === 'bigint' ? String(v) : v)),
  )
  assert.ok(here.rows.length > 0)
})
