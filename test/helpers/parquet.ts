import { readFile, writeFile } from 'node:fs/promises'
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { streamParquet } from '../../src/decode/parquet.ts'

export type Row = Record<string, unknown>

/** A whole Parquet file's columns and rows, as the build streams them (src/decode/parquet.ts); int64 stays bigint. */
export async function decodeParquet(
  bytes: Uint8Array,
  at: { source: string; file: string },
  options: { timeoutMs?: number; trusted?: boolean } = {},
): Promise<{ columns: string[]; rows: Row[] }> {
  let columns: string[] = []
  const rows: Row[] = []
  await streamParquet(bytes, at, options, {
    columns: (names) => void (columns = names),
    rows: (group) => {
      for (const row of group) rows.push(row)
    },
  })
  return { columns, rows }
}

export async function readRows(file: string): Promise<Row[]> {
  const buf = await readFile(file)
  return (await parquetReadObjects({
    file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer,
    compressors,
  })) as Row[]
}

/** Rewrites a Parquet file in place with other rows, keeping its own schema. */
export async function rewriteRows(file: string, change: (rows: Row[]) => Row[]): Promise<void> {
  const buf = await readFile(file)
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer
  const { schema } = parquetMetadata(ab)
  const rows = change((await parquetReadObjects({ file: ab, compressors })) as Row[])
  const names = parquetSchema({ schema } as Parameters<typeof parquetSchema>[0]).children.map((c) => c.element.name)
  const out = parquetWriteBuffer({ columnData: names.map((name) => ({ name, data: rows.map((r) => r[name]) })), schema, codec: 'SNAPPY' })
  await writeFile(file, new Uint8Array(out))
}

/** Rewrites a flat Parquet file (string and int64 columns only) with its int64 columns as INT32. */
export async function narrowInt64(file: string): Promise<string[]> {
  const rows = await readRows(file)
  const names = Object.keys(rows[0] ?? {})
  const narrowed = names.filter((n) => typeof rows[0]![n] === 'bigint')
  const columnData = names.map((name) =>
    narrowed.includes(name)
      ? { name, data: rows.map((r) => Number(r[name] as bigint)), type: 'INT32' as const }
      : { name, data: rows.map((r) => r[name]), type: 'STRING' as const },
  )
  await writeFile(file, new Uint8Array(parquetWriteBuffer({ columnData, codec: 'SNAPPY' })))
  return narrowed
}
