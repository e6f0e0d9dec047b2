/**
 * The hyparquet calls, once: the footer and column names, the codec check, a range of rows.
 * The decode worker (parquet-worker.ts) and the trusted path on the main thread (parquet.ts) share them.
 */
import { type FileMetaData, parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'

export interface Footer {
  metadata: FileMetaData
  columns: string[]
}

/** The file's metadata and top-level column names; throws hyparquet's error for bytes that are not Parquet. */
export function readFooter(buffer: ArrayBuffer): Footer {
  const metadata = parquetMetadata(buffer)
  return { metadata, columns: parquetSchema(metadata).children.map((c) => c.element.name) }
}

export interface UnreadableCodec {
  column: string
  codec: string | null
  supported: string[]
}

/** The first column chunk compressed with a codec this build cannot read, or null. */
export function unreadableCodec(metadata: FileMetaData): UnreadableCodec | null {
  const codecs = new Set(['UNCOMPRESSED', ...Object.keys(compressors)])
  for (const group of metadata.row_groups ?? [])
    for (const chunk of group.columns ?? []) {
      const meta = chunk.meta_data
      if (meta && !codecs.has(meta.codec))
        return { column: (meta.path_in_schema ?? []).join('.'), codec: meta.codec ?? null, supported: [...codecs] }
    }
  return null
}

/** Rows [rowStart, rowEnd) as objects (all of them without a range); int64 stays bigint. */
export async function readRows(
  buffer: ArrayBuffer,
  metadata: FileMetaData,
  range: { rowStart?: number; rowEnd?: number } = {},
): Promise<Record<string, unknown>[]> {
  return (await parquetReadObjects({ file: buffer, metadata, compressors, ...range })) as Record<string, unknown>[]
}

/** The row groups' row counts, in file order. */
export function rowGroupSizes(metadata: FileMetaData): number[] {
  return metadata.row_groups.map((g) => Number(g.num_rows))
}
