/**
 * The data an evaluation reads: a built folder or a Hub dataset repo at a revision, every file
 * checked against manifest.json (and the records against its datasetHash) before any request.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { matchManifest } from '../check/manifest-match.ts'
import { type Manifest, Manifest as ManifestSchema } from '../emit/manifest.ts'
import { JevError } from '../errors.ts'
import type { FileFetcher } from '../fetch/types.ts'
import { sha256Hex } from '../util/hash.ts'

export type EvalSplit = 'val' | 'test'

/** One question as the protocol sends it, with what the breakdowns need. */
export interface EvalItem {
  id: string
  split: EvalSplit
  source: string
  question: string
  context: string | null
  choices: string[]
  gold: number
  n: number
  /** options carried from the record's own upstream question (provenance.jsonl); null when the sidecar is absent */
  upstreamKept: number | null
  /** whether provenance.jsonl flags the record as contaminated; null when it marks nothing (or is absent) */
  contaminated: boolean | null
}

export interface EvalData {
  /** where it came from: `DIR/` or `OWNER/NAME@REV` */
  origin: string
  manifest: Manifest
  /** sha256 of manifest.json's bytes */
  manifestSha256: string
  /** the splits in the order the protocol runs them (val first), records in file order */
  splits: Record<EvalSplit, EvalItem[]>
  /** records skipped because their choices are not all distinct strings, by split */
  skipped: Record<EvalSplit, string[]>
}

const changed = (origin: string, what: string, file: string) =>
  new JevError('INTEGRITY', `${origin}: ${what}; the data is not the data its manifest describes, so no request was sent`, {
    file,
    hint: 'evaluate an unmodified build (rebuild it, or fetch it again from the Hub); a changed dataset gives numbers comparable with nothing',
  })

/** Reads `path` of the dataset, or null when it does not exist. */
type ReadFile = (path: string) => Promise<Uint8Array | null>

/** A built folder's files. */
export function folderFiles(dir: string): ReadFile {
  return async (path) => {
    try {
      return await readFile(join(dir, path))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw new JevError('IO', `cannot read ${join(dir, path)}: ${(e as Error).message}`, { file: join(dir, path) })
    }
  }
}

/** A Hub dataset repo's files at a revision, through the builder's Hub fetcher (cache, HF_ENDPOINT, HF_TOKEN, offline). */
export function hubFiles(fetcher: FileFetcher, repo: string, revision: string): ReadFile {
  return async (path) => {
    try {
      return (await fetcher.fetchFile(repo, revision, path)).bytes
    } catch (e) {
      if (e instanceof JevError && e.code === 'NOT_FOUND' && path !== 'manifest.json') return null
      throw e
    }
  }
}

const text = (b: Uint8Array) => new TextDecoder('utf-8', { fatal: false }).decode(b)

function parseRecords(origin: string, file: string, body: string, split: EvalSplit, marks: Map<string, ProvenanceMarks>) {
  const items: EvalItem[] = []
  const skipped: string[] = []
  const lines = body.split('\n')
  lines.forEach((line, i) => {
    if (line.trim() === '') return
    const bad = (why: string) =>
      new JevError('DATA', `${origin}${file} line ${i + 1}: ${why}`, {
        file,
        row: i + 1,
        hint: 'the record does not have the fields the protocol reads',
      })
    let r: Record<string, unknown>
    try {
      r = JSON.parse(line) as Record<string, unknown>
    } catch {
      throw bad('not JSON')
    }
    const { id, source, question, context, choices, answer_idx, n_choices } = r
    if (typeof id !== 'string' || typeof source !== 'string' || typeof question !== 'string')
      throw bad('id, source or question is not a string')
    if (context !== null && typeof context !== 'string') throw bad('context is neither a string nor null')
    if (!Array.isArray(choices) || !choices.every((c) => typeof c === 'string')) throw bad('choices is not a list of strings')
    if (!Number.isInteger(n_choices) || n_choices !== choices.length || choices.length < 2 || choices.length > 8)
      throw bad('n_choices is not the number of choices (2 to 8)')
    if (!Number.isInteger(answer_idx) || (answer_idx as number) < 0 || (answer_idx as number) >= choices.length)
      throw bad('answer_idx is not an index into choices')
    // a question whose options are not all distinct has no single right answer: skipped, as the protocol does
    if (new Set(choices).size !== choices.length) {
      skipped.push(id)
      return
    }
    items.push({
      id,
      split,
      source,
      question,
      context: context as string | null,
      choices: choices as string[],
      gold: answer_idx as number,
      n: n_choices as number,
      upstreamKept: marks.get(`${split}\t${id}`)?.kept ?? null,
      contaminated: marks.get(`${split}\t${id}`)?.contaminated ?? null,
    })
  })
  return { items, skipped }
}

interface ProvenanceMarks {
  kept: number
  contaminated: boolean | null
}

/** Upstream options kept per record, and its contamination flag where there is one, from provenance.jsonl. */
function provenanceMarks(body: string | null): Map<string, ProvenanceMarks> {
  const marks = new Map<string, ProvenanceMarks>()
  if (body === null) return marks
  for (const line of body.split('\n')) {
    if (line === '') continue
    const p = JSON.parse(line) as { id: string; split: string; choices: { from: string }[]; contamination?: { flagged: boolean } }
    marks.set(`${p.split}\t${p.id}`, {
      kept: p.choices.filter((c) => c.from === 'upstream').length,
      contaminated: typeof p.contamination?.flagged === 'boolean' ? p.contamination.flagged : null,
    })
  }
  return marks
}

/** The dataset, refused with INTEGRITY when any file differs from manifest.json. */
export async function loadEvalData(origin: string, read: ReadFile): Promise<EvalData> {
  const manifestBytes = await read('manifest.json')
  if (!manifestBytes)
    throw new JevError('IO', `${origin}: no manifest.json`, {
      file: 'manifest.json',
      hint: 'give a folder build-dataset wrote (or a repo publish-dataset published): its manifest is what the data is checked against',
    })
  let manifest: Manifest
  try {
    manifest = ManifestSchema.parse(JSON.parse(text(manifestBytes)))
  } catch (e) {
    throw new JevError('DATA', `${origin}manifest.json is not a manifest: ${(e as Error).message.split('\n')[0]}`, {
      file: 'manifest.json',
      hint: 'the manifest is malformed; rebuild or fetch the dataset again',
    })
  }
  const files = new Map<string, Uint8Array | null>()
  for (const o of manifest.outputs) files.set(o.path, await read(o.path))
  const match = matchManifest(manifest, (path) => files.get(path))
  for (const f of match.outputs) {
    if (f.sha256 === null) throw changed(origin, `${f.path} is listed in manifest.json but missing`, f.path)
    if (!f.sameContent) {
      const o = manifest.outputs.find((x) => x.path === f.path)!
      throw changed(
        origin,
        `${f.path} has sha256 ${f.sha256} (${f.bytes} bytes), manifest.json says ${o.sha256} (${o.bytes} bytes)`,
        f.path,
      )
    }
  }
  for (const split of ['test.jsonl', 'val.jsonl'])
    if (!files.get(split)) throw changed(origin, `${split} is not listed in manifest.json`, split)
  if (!match.datasetHashMatches()) throw changed(origin, "the records do not hash to manifest.json's datasetHash", 'manifest.json')
  const prov = files.get('provenance.jsonl')
  const marks = provenanceMarks(prov ? text(prov) : null)
  const val = parseRecords(origin, 'val.jsonl', text(files.get('val.jsonl')!), 'val', marks)
  const test = parseRecords(origin, 'test.jsonl', text(files.get('test.jsonl')!), 'test', marks)
  return {
    origin,
    manifest,
    manifestSha256: sha256Hex(manifestBytes),
    splits: { val: val.items, test: test.items },
    skipped: { val: val.skipped, test: test.skipped },
  }
}
