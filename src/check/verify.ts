import { join } from 'node:path'
import type { BuiltDataset } from '../build-io.ts'
import { Manifest } from '../emit/manifest.ts'
import { outputBytes, outputSpec, outputText } from '../emit/outputs.ts'
import { readRegular } from '../util/files.ts'
import { diffRecords, type RecordDiff } from './compare.ts'
import { matchManifest } from './manifest-match.ts'
import { readOutputs } from './read-outputs.ts'

export type Cause = 'out-edited' | 'sources-changed' | 'recipe-changed' | 'builder-changed' | 'prepared-cache'

export interface FileDiff {
  file: string
  status: 'identical' | 'differs' | 'missing'
  records?: RecordDiff
}

export interface VerifyResult {
  identical: boolean
  files: FileDiff[]
  cause?: Cause
  /** one sentence per finding that supports the cause */
  reasons: string[]
}

async function readOrNull(path: string): Promise<Buffer | null> {
  // a FIFO or a folder in its place is as good as missing, and never blocks the read
  return readRegular(path).catch(() => null)
}

/** Why does the folder (`dir`, as the user named it) differ from the rebuild? Looks at the evidence in the order of how direct it is. */
function findCause(existing: ReadonlyMap<string, Buffer | null>, rebuilt: BuiltDataset, dir: string): { cause: Cause; reasons: string[] } {
  const reasons: string[] = []
  const rawManifest = existing.get('manifest.json')
  let old: Manifest | null = null
  try {
    old = rawManifest ? Manifest.parse(JSON.parse(rawManifest.toString('utf8'))) : null
  } catch {
    reasons.push(`${dir}/manifest.json is not a valid manifest`)
  }
  if (!old) {
    if (!rawManifest) reasons.push(`${dir}/manifest.json is missing`)
    return { cause: 'out-edited', reasons }
  }
  const match = matchManifest(old, (path) => existing.get(path))
  for (const o of match.outputs) {
    if (o.sha256 === null) reasons.push(`${dir}/${o.path} is missing`)
    else if (!o.sameContent) reasons.push(`${dir}/${o.path} no longer matches the sha256 in ${dir}/manifest.json`)
  }
  if (reasons.length === 0 && !match.datasetHashMatches()) reasons.push(`${dir}/manifest.json does not describe the records in ${dir}/`)
  if (reasons.length) return { cause: 'out-edited', reasons }

  const now = rebuilt.manifest
  for (const s of now.sources) {
    const before = old.sources.find((x) => x.name === s.name)
    const changed = s.files.filter((f) => before?.files.find((g) => g.path === f.path)?.rowsHash !== f.rowsHash)
    if (!before || before.commit !== s.commit || changed.length)
      reasons.push(`source ${s.name} changed${changed.length ? `: ${changed.map((f) => f.path).join(', ')}` : ''}`)
  }
  if (reasons.length) return { cause: 'sources-changed', reasons }
  if (old.recipe.hash !== now.recipe.hash || old.seed !== now.seed)
    return { cause: 'recipe-changed', reasons: [`recipe hash ${old.recipe.hash} → ${now.recipe.hash}`] }
  // the training files the contamination check read: an optional one that one place serves and another lacks changes the card
  const state = (f: NonNullable<Manifest['contamination']>['files'][number] | undefined) =>
    !f ? 'not listed' : f.checked ? `checked, ${f.rows} rows at ${f.commit}` : (f.reason ?? 'not checked')
  for (const f of now.contamination?.files ?? []) {
    const before = old.contamination?.files.find((g) => g.source === f.source && g.split === f.split && g.path === f.path)
    if (state(before) !== state(f))
      reasons.push(`training file ${f.source} ${f.split} (${f.repo}/${f.path}): ${state(before)} → ${state(f)}`)
  }
  if (reasons.length) return { cause: 'sources-changed', reasons }
  const same = old.builder.version === now.builder.version
  return {
    cause: 'builder-changed',
    reasons: [
      same
        ? `same inputs, other output: builder ${now.builder.version} changed without a version bump`
        : `builder ${old.builder.version} → ${now.builder.version} with the same inputs`,
    ],
  }
}

/** Compares an output folder, read as of one build (./read-outputs.ts), with a fresh in-memory build, byte for byte. */
export async function compareWithRebuild(outDir: string, rebuilt: BuiltDataset): Promise<VerifyResult> {
  const raw = await readOutputs(outDir)
  const existing = new Map<string, Buffer | null>()
  for (const name of rebuilt.files.keys()) existing.set(name, Object.hasOwn(raw, name) ? raw[name]! : await readOrNull(join(outDir, name)))
  return verifyFiles(existing, rebuilt, outDir)
}

/**
 * The same, for bytes already read (null: missing). A publish verifies the
 * very bytes it uploads: reading the folder again could see other files.
 */
export function verifyFiles(existing: ReadonlyMap<string, Buffer | null>, rebuilt: BuiltDataset, dir = 'out'): VerifyResult {
  const files: FileDiff[] = []
  for (const [name, content] of rebuilt.files) {
    const buf = existing.get(name)
    if (!buf) {
      files.push({ file: name, status: 'missing' })
      continue
    }
    if (buf.equals(outputBytes(content))) {
      files.push({ file: name, status: 'identical' })
      continue
    }
    const diff: FileDiff = { file: name, status: 'differs' }
    if (outputSpec(name)?.hasRows) diff.records = diffRecords(buf.toString('utf8'), outputText(content))
    files.push(diff)
  }
  if (files.every((f) => f.status === 'identical')) return { identical: true, files, reasons: [] }
  return { identical: false, files, ...findCause(existing, rebuilt, dir) }
}

const SHOW = 5

export function formatVerify(outDir: string, r: VerifyResult): string[] {
  if (r.identical) return [`ok: ${outDir}/ is byte-identical to a rebuild (${r.files.length} files)`]
  const lines = [`${outDir}/ differs from a rebuild:`]
  for (const f of r.files) {
    if (f.status === 'identical') continue
    if (!f.records) {
      lines.push(`  ${f.file}: ${f.status}`)
      continue
    }
    const d = f.records
    const repeated = d.repeated.length ? `, ${d.repeated.length} repeated` : ''
    lines.push(
      `  ${f.file}: ${d.reordered ? 'same records in another order' : `${d.changed.length} changed, ${d.added.length} added (in the rebuild, not in ${outDir}/), ${d.removed.length} removed (in ${outDir}/, not in the rebuild)${repeated}`}`,
    )
    for (const c of d.changed.slice(0, SHOW)) lines.push(`    changed ${c.id}: ${c.fields.join(', ')}`)
    for (const id of d.added.slice(0, SHOW)) lines.push(`    added ${id}`)
    for (const id of d.removed.slice(0, SHOW)) lines.push(`    removed ${id}`)
    for (const id of d.repeated.slice(0, SHOW)) lines.push(`    on more than one line of ${outDir}/ ${id}`)
  }
  for (const reason of r.reasons) lines.push(`  ${reason}`)
  lines.push(`cause: ${r.cause}`)
  return lines
}
