/**
 * Every file a build writes, in one list: write, verify, check, publish and the card's
 * `configs` iterate it, so adding an output (a figure, a Parquet copy) is one entry here
 * and its content in the build.
 */

import type { Split } from '../recipe/schema.ts'
import { sha256Hex } from '../util/hash.ts'

/** A split's records; provenance and the like beside them; the dataset card; a figure the card shows; machine-readable metadata; the manifest. */
export type OutputKind = 'split' | 'sidecar' | 'card' | 'figure' | 'metadata' | 'manifest'

export interface OutputSpec {
  readonly name: string
  readonly kind: OutputKind
  /** text is UTF-8; binary is written as it is */
  readonly encoding: 'text' | 'binary'
  /** the split a 'split' output holds */
  readonly split?: Split
  /** named in the card's `configs` data_files (the Hub's viewer loads these) */
  readonly inConfigs: boolean
  /** one JSON record per line: the manifest gives its rows */
  readonly hasRows: boolean
  /** where manifest.json's `outputs` lists it (their order since 1.0.0); null: not listed (the manifest itself) */
  readonly manifestOrder: number | null
  /** made only when the recipe asks for it (croissant.json: a `publication`); the manifest lists it when made */
  readonly optional?: boolean
}

/** In the order they are written, checked and published. */
export const OUTPUTS: readonly OutputSpec[] = [
  { name: 'test.jsonl', kind: 'split', encoding: 'text', split: 'test', inConfigs: true, hasRows: true, manifestOrder: 0 },
  { name: 'val.jsonl', kind: 'split', encoding: 'text', split: 'val', inConfigs: true, hasRows: true, manifestOrder: 1 },
  { name: 'provenance.jsonl', kind: 'sidecar', encoding: 'text', inConfigs: false, hasRows: true, manifestOrder: 3 },
  { name: 'README.md', kind: 'card', encoding: 'text', inConfigs: false, hasRows: false, manifestOrder: 2 },
  // the card's figures (src/emit/figures.ts), drawn from the same records and provenance as its tables
  { name: 'option-counts.svg', kind: 'figure', encoding: 'text', inConfigs: false, hasRows: false, manifestOrder: 4 },
  { name: 'answer-positions.svg', kind: 'figure', encoding: 'text', inConfigs: false, hasRows: false, manifestOrder: 5 },
  { name: 'borrowed-options.svg', kind: 'figure', encoding: 'text', inConfigs: false, hasRows: false, manifestOrder: 6 },
  // Croissant 1.0 metadata (src/emit/croissant.ts), for recipes with a `publication`
  {
    name: 'croissant.json',
    kind: 'metadata',
    encoding: 'text',
    inConfigs: false,
    hasRows: false,
    manifestOrder: 7,
    optional: true,
  },
  { name: 'manifest.json', kind: 'manifest', encoding: 'text', inConfigs: false, hasRows: false, manifestOrder: null },
]

/** What a build writes into its output folder. */
export const OUTPUT_FILES: readonly string[] = OUTPUTS.map((o) => o.name)
/** The splits' files: a dataset's records (provenance.jsonl is not a split). */
export const DATA_FILES: readonly string[] = OUTPUTS.filter((o) => o.kind === 'split').map((o) => o.name)
/** The card's figures. */
export const FIGURE_FILES: readonly string[] = OUTPUTS.filter((o) => o.kind === 'figure').map((o) => o.name)
/** What the card's `configs` list, with their split. */
export const CONFIG_OUTPUTS: readonly (OutputSpec & { split: Split })[] = OUTPUTS.filter(
  (o): o is OutputSpec & { split: Split } => o.inConfigs && o.split !== undefined,
)
/** The outputs manifest.json describes, in its order. */
export const MANIFEST_OUTPUTS: readonly OutputSpec[] = OUTPUTS.filter((o) => o.manifestOrder !== null).sort(
  (a, b) => a.manifestOrder! - b.manifestOrder!,
)

export const outputSpec = (name: string): OutputSpec | undefined => OUTPUTS.find((o) => o.name === name)

/** A text output's string or a binary output's bytes, exactly as written. */
export type OutputContent = string | Uint8Array

export function outputBytes(content: OutputContent): Uint8Array {
  return typeof content === 'string' ? Buffer.from(content, 'utf8') : content
}

/** A text output's content as a string (binary bytes are read as UTF-8 only where text is wanted). */
export function outputText(content: OutputContent): string {
  return typeof content === 'string' ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('utf8')
}

/** manifest.json's account of one output. */
export interface OutputFile {
  path: string
  bytes: number
  sha256: string
}

export function describeFile(path: string, content: OutputContent): OutputFile {
  const buf = outputBytes(content)
  return { path, bytes: buf.byteLength, sha256: sha256Hex(buf) }
}
