import { type Adapter, adaptRow, canonicalRowAt, type UpstreamQuestion } from './adapt/adapter.ts'
import { kindOf } from './adapt/kinds.ts'
import { JevError } from './errors.ts'
import type { FileFetcher, SourceFile } from './fetch/types.ts'
import { sourceFiles } from './recipe/load.ts'
import type { SourceSpec } from './recipe/schema.ts'
import { digestSetHash, sha256Digest } from './util/hash.ts'
import { NO_PROGRESS, type Progress } from './util/progress.ts'

/** Whether a source's record ids carry an upstream id or a content hash. */
export function idFromOf(spec: SourceSpec): Adapter<unknown>['idFrom'] {
  return kindOf(spec).adapter.idFrom
}

export interface LoadedFile {
  split: string
  path: string
  size: number
  sha256: string
  rows: number
  /** order- and encoding-independent hash of the decoded rows */
  rowsHash: string
}

export interface LoadedSource {
  spec: SourceSpec
  commit: string
  files: LoadedFile[]
  questions: UpstreamQuestion[]
}

/** Fetches a source's files, so the next source can download while one is being read. */
export function fetchSource(spec: SourceSpec, revision: string, fetcher: FileFetcher): Promise<SourceFile[]> {
  return Promise.all(sourceFiles(spec).map((j) => fetcher.fetchFile(spec.repo, revision, j.path)))
}

export interface LoadOptions {
  /** sha256 of bytes known to decode (the lock's); others are decoded in isolation */
  trusted?: ReadonlySet<string>
  /** takes each question as it is decoded; without it they are collected in `questions` */
  onQuestion?: (q: UpstreamQuestion) => void
  /** the files, when fetchSource was started earlier */
  prefetched?: Promise<SourceFile[]>
  /** rows decoded per file, of the file's total */
  progress?: Progress
  /** the time limit of an isolated decode (default: by the file's size, parquet.ts's decodeTimeoutMs) */
  decodeTimeoutMs?: number
}

export async function loadSource(
  spec: SourceSpec,
  revision: string,
  fetcher: FileFetcher,
  options: LoadOptions = {},
): Promise<LoadedSource> {
  const { trusted = new Set<string>(), onQuestion, prefetched, progress = NO_PROGRESS, decodeTimeoutMs } = options
  const { adapter } = kindOf(spec)
  const jobs = sourceFiles(spec)
  const fetched = await (prefetched ?? fetchSource(spec, revision, fetcher))
  const files: LoadedFile[] = []
  const questions: UpstreamQuestion[] = []
  const take = onQuestion ?? ((q: UpstreamQuestion) => void questions.push(q))
  let commit = revision
  // the decoder's modules (hyparquet and its codecs) only where a file is decoded: a warm build from prepared sources never is
  const { streamParquet } = await import('./decode/parquet.ts')
  for (const [i, job] of jobs.entries()) {
    const file = fetched[i]!
    fetched[i] = undefined as never // its bytes can go once decoded
    commit = file.commit
    const hashes: string[] = []
    // one line per file: the source, and its split or (several files to a split) its path
    const label =
      jobs.length === 1 ? spec.name : `${spec.name} ${jobs.filter((j) => j.split === job.split).length === 1 ? job.split : job.path}`
    let total: number | undefined
    await streamParquet(
      file.bytes,
      { source: spec.name, file: job.path },
      // its bytes are not read again: the worker may take them over
      { trusted: trusted.has(file.sha256), handOver: true, ...(decodeTimeoutMs === undefined ? {} : { timeoutMs: decodeTimeoutMs }) },
      {
        columns(columns) {
          for (const c of adapter.columns) {
            if (!columns.includes(c))
              throw new JevError('SCHEMA', `${spec.name}: ${job.path} has no column "${c}" (columns: ${columns.join(', ')})`, {
                source: spec.name,
                file: job.path,
                field: c,
              })
          }
        },
        total(n) {
          total = n
          progress.rows(label, 0, n)
        },
        rows(rows, first) {
          for (let r = 0; r < rows.length; r++) {
            const raw = rows[r]
            const at = { source: spec.name, file: job.path, row: first + r }
            // one serialisation for the rows hash and, where the id is a content hash, the id
            const canonical = canonicalRowAt(raw, at)
            hashes.push(sha256Digest(canonical.json))
            const q = adaptRow(adapter, raw, at, canonical)
            take({
              source: spec.name,
              id: q.id,
              subject: q.subject,
              question: q.question,
              context: q.context,
              options: q.options,
              answer: q.answer,
              upstreamSplit: job.split,
              file: job.path,
              row: at.row,
            })
          }
          progress.rows(label, hashes.length, total)
        },
      },
    )
    files.push({
      split: job.split,
      path: job.path,
      size: file.size,
      sha256: file.sha256,
      rows: hashes.length,
      rowsHash: digestSetHash(hashes),
    })
  }
  return { spec, commit, files, questions }
}
