import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { JevError } from './errors.ts'

export interface DecodedFile {
  columns: string[]
  rows: Record<string, unknown>[]
}

interface At {
  source: string
  file: string
}

/** Decodes a whole Parquet file to row objects; int64 stays bigint. */
export async function decodeParquet(bytes: Uint8Array, at: At): Promise<DecodedFile> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
  let columns: string[]
  try {
    const metadata = parquetMetadata(buffer)
    columns = parquetSchema(metadata).children.map((c) => c.element.name)
  } catch (e) {
    throw new JevError('DATA', `${at.source}: ${at.file} is not a readable Parquet file: ${(e as Error).message}`, { ...at }, { cause: e })
  }
  try {
    const rows = (await parquetReadObjects({ file: buffer, compressors })) as Record<string, unknown>[]
    return { columns, rows }
  } catch (e) {
    throw new JevError('DATA', `${at.source}: cannot decode ${at.file}: ${(e as Error).message}`, { ...at }, { cause: e })
  }
}
