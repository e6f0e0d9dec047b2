/**
 * Do these files match their manifest? One answer for check-dataset, verify's cause and a
 * publish's own-manifest floor; each words the findings for its own report.
 */

import { datasetHash, type Manifest, recordLines } from '../emit/manifest.ts'
import { MANIFEST_OUTPUTS, outputText } from '../emit/outputs.ts'
import { sha256Hex } from '../util/hash.ts'

export interface OutputMatch {
  path: string
  /** null: the file is missing */
  sha256: string | null
  bytes: number | null
  /** sha256 and size are the manifest's */
  sameContent: boolean
  /** its record lines are the manifest's rows; null when the manifest gives no rows or the file is missing */
  rowsMatch: boolean | null
}

export interface ManifestMatch {
  /** outputs a manifest must list that this one does not */
  unlisted: string[]
  /** each output the manifest lists, in its order */
  outputs: OutputMatch[]
  /** the records of the split files hash to the manifest's datasetHash */
  datasetHashMatches(): boolean
}

/** `file(path)`: the bytes of one output, null or undefined when missing. */
export function matchManifest(m: Manifest, file: (path: string) => Uint8Array | null | undefined): ManifestMatch {
  const listed = new Set(m.outputs.map((o) => o.path))
  const outputs = m.outputs.map((o): OutputMatch => {
    const bytes = file(o.path)
    if (!bytes) return { path: o.path, sha256: null, bytes: null, sameContent: false, rowsMatch: null }
    const sha256 = sha256Hex(bytes)
    const rowsMatch = o.rows === undefined ? null : recordLines(outputText(bytes)).length === o.rows
    return { path: o.path, sha256, bytes: bytes.byteLength, sameContent: sha256 === o.sha256 && bytes.byteLength === o.bytes, rowsMatch }
  })
  const lines = (path: string) => {
    const bytes = file(path)
    return recordLines(bytes ? outputText(bytes) : '')
  }
  return {
    // an optional output must be listed only where it was made
    unlisted: MANIFEST_OUTPUTS.filter((o) => !o.optional || file(o.name))
      .map((o) => o.name)
      .filter((name) => !listed.has(name)),
    outputs,
    datasetHashMatches: () => datasetHash({ test: lines('test.jsonl'), val: lines('val.jsonl') }) === m.datasetHash,
  }
}
