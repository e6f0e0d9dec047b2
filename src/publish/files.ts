/** The files a publish uploads from the output folder, their hashes, and the checks they must pass first. */
import { join } from 'node:path'
import type { DataFileFacts } from '../check/card.ts'
import { matchManifest } from '../check/manifest-match.ts'
import { Manifest, recordLines } from '../emit/manifest.ts'
import { CONFIG_OUTPUTS, OUTPUT_FILES, outputSpec } from '../emit/outputs.ts'
import { JevError } from '../errors.ts'
import { readRegular } from '../util/files.ts'
import { gitBlobSha1, sha256Hex } from '../util/hash.ts'

/** Exactly these go up, nothing else from the output folder. */
export const PUBLISHED_FILES = OUTPUT_FILES

export interface LocalFile {
  path: string
  bytes: Buffer
  size: number
  sha256: string
  /** git blob sha1: what the Hub reports as the oid of a file not stored through LFS */
  gitSha1: string
}

export function describeLocal(path: string, bytes: Buffer): LocalFile {
  return {
    path,
    bytes,
    size: bytes.length,
    sha256: sha256Hex(bytes),
    gitSha1: gitBlobSha1(bytes),
  }
}

export async function readPublishFiles(outDir: string): Promise<LocalFile[]> {
  const files: LocalFile[] = []
  for (const path of PUBLISHED_FILES) {
    const abs = join(outDir, path)
    const bytes = await readRegular(abs).catch((e: NodeJS.ErrnoException) => {
      // an optional output (croissant.json) the build did not make; the own-manifest check catches one it lists
      if (e.code === 'ENOENT' && outputSpec(path)?.optional) return null
      const why = e.code === 'ENOENT' ? 'is missing; build it first (npm run build-dataset)' : `cannot be read: ${e.message}`
      throw new JevError('IO', `${abs} ${why}`, { file: abs })
    })
    if (bytes) files.push(describeLocal(path, bytes))
  }
  return files
}

/** Row count, size and record keys of each file the card's `configs` name, for the card check. */
export function dataFileFacts(files: readonly LocalFile[]): DataFileFacts[] {
  return files
    .filter((f) => CONFIG_OUTPUTS.some((o) => o.name === f.path))
    .map((f) => {
      const lines = recordLines(f.bytes.toString('utf8'))
      let keys: string[] = []
      try {
        keys = lines[0] ? Object.keys(JSON.parse(lines[0]) as object) : []
      } catch {
        // an unparsable record is the verify step's to report
      }
      return { path: f.path, bytes: f.size, rows: lines.length, keys }
    })
}

/**
 * The `--no-verify` floor: the folder must match its own manifest — every
 * output's sha256, size and rows, the dataset hash, and no file unaccounted for.
 */
export function checkOwnManifest(files: readonly LocalFile[]): string[] {
  const byPath = new Map(files.map((f) => [f.path, f]))
  let m: Manifest
  try {
    const parsed = Manifest.safeParse(JSON.parse(byPath.get('manifest.json')?.bytes.toString('utf8') ?? ''))
    if (!parsed.success) return [`manifest.json: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`]
    m = parsed.data
  } catch {
    return ['manifest.json: not JSON']
  }
  const problems: string[] = []
  const match = matchManifest(m, (path) => byPath.get(path)?.bytes)
  for (const path of match.unlisted) problems.push(`${path}: not listed in manifest.json`)
  match.outputs.forEach((f, i) => {
    const o = m.outputs[i]!
    if (f.sha256 === null) problems.push(`${o.path}: listed in manifest.json but not published`)
    else if (!f.sameContent)
      problems.push(`${o.path}: sha256 ${f.sha256} (${f.bytes} bytes), manifest.json says ${o.sha256} (${o.bytes} bytes)`)
    else if (f.rowsMatch === false) problems.push(`${o.path}: row count differs from manifest.json`)
  })
  if (problems.length === 0 && !match.datasetHashMatches())
    problems.push('manifest.json: datasetHash does not match the records in test.jsonl and val.jsonl')
  return problems
}
