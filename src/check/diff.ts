// diff-dataset's comparison of two built folders (or a folder and a git revision's
// out/): the files, the records (through compare.ts), totals by source and option
// count, and the manifests' leaf-by-leaf differences.
import { execFileSync } from 'node:child_process'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { recordLines } from '../emit/manifest.ts'
import { OUTPUT_FILES } from '../emit/outputs.ts'
import type { DataRecord } from '../emit/schema.ts'
import { JevError } from '../errors.ts'
import { SPLITS, type Split } from '../recipe/schema.ts'
import { compareStrings } from '../util/canonical.ts'
import { readRegular } from '../util/files.ts'
import { sha256Hex } from '../util/hash.ts'
import { compareBuilds, diffRecords, type RecordDiff, type SourceChanges } from './compare.ts'

/** A build's files by name; null: not there. */
export type BuildFiles = ReadonlyMap<string, Buffer | null>

export interface FileChange {
  file: string
  status: 'identical' | 'differs' | 'added' | 'removed'
  a?: { sha256: string; bytes: number }
  b?: { sha256: string; bytes: number }
}
type Counts = { test: number; val: number }
export interface DatasetDiff {
  identical: boolean
  a: string
  b: string
  files: FileChange[]
  records: Record<Split, RecordDiff>
  /** per source: records in A and in B, and how B's relate to A's (as the card's "Changes from" counts them) */
  bySource: Record<string, { a: Counts; b: Counts } & SourceChanges>
  /** per split and option count: records in A and in B */
  byChoices: Record<Split, Record<string, { a: number; b: number }>>
  /** the manifests' differing leaves, by JSON path */
  manifest: { path: string; a?: unknown; b?: unknown }[]
}

function outputsNamed(manifest: Buffer | null): string[] {
  try {
    const m = JSON.parse(manifest?.toString('utf8') ?? '') as { outputs?: { path?: unknown }[] }
    return (m.outputs ?? []).map((o) => o.path).filter((p): p is string => typeof p === 'string' && !p.includes('..'))
  } catch {
    return []
  }
}

/** The builder's output files, and any others the build's own manifest lists. */
async function readBuild(get: (name: string) => Promise<Buffer | null>): Promise<BuildFiles> {
  const manifest = await get('manifest.json')
  const files = new Map<string, Buffer | null>()
  for (const name of new Set([...OUTPUT_FILES, ...outputsNamed(manifest)]))
    files.set(name, name === 'manifest.json' ? manifest : await get(name))
  return files
}

export async function readBuildDir(dir: string): Promise<BuildFiles> {
  const st = await stat(dir).catch(() => null)
  // worded as check-dataset and --mirror word it
  if (!st?.isDirectory()) throw new JevError('IO', `${dir}: ${st ? 'is not a folder' : 'no such folder'}`, { file: dir })
  // a FIFO or a folder in a file's place is as good as missing, and never blocks the read
  return readBuild((name) => readRegular(join(dir, name)).catch(() => null))
}

/** `dir` (default out) as committed at `rev`, read through `git show REV:out/<file>` in `cwd`. */
export async function readBuildAtRev(rev: string, dir = 'out', cwd = process.cwd()): Promise<BuildFiles> {
  const git = (args: string[]) => execFileSync('git', args, { cwd, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] })
  try {
    git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`])
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw new JevError('IO', '--rev reads the revision with git, which is not installed (not on PATH)')
    throw new JevError('USAGE', `--rev ${JSON.stringify(rev)} is not a commit of the git repository at ${cwd}`)
  }
  return readBuild(async (name) => {
    try {
      return git(['show', '--end-of-options', `${rev}:${dir}/${name}`])
    } catch {
      return null
    }
  })
}

function parsedRecords(text: string): DataRecord[] {
  const out: DataRecord[] = []
  for (const line of recordLines(text)) {
    try {
      const r = JSON.parse(line) as DataRecord
      if (typeof r?.id === 'string' && typeof r.source === 'string') out.push(r)
    } catch {
      // an unparsable line is a change diffRecords names; it counts toward no total
    }
  }
  return out
}

/** Leaves of two JSON values that differ, by path (`outputs[0].sha256`). */
export function jsonDiff(a: unknown, b: unknown, path = ''): DatasetDiff['manifest'] {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null
  if (isObj(a) && isObj(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    return keys.flatMap((k) => jsonDiff(a[k], b[k], Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k))
  }
  if (JSON.stringify(a) === JSON.stringify(b)) return []
  return [{ path: path || '.', ...(a === undefined ? {} : { a }), ...(b === undefined ? {} : { b }) }]
}

function parseJson(buf: Buffer | null | undefined): unknown {
  try {
    return buf ? JSON.parse(buf.toString('utf8')) : undefined
  } catch {
    return `<not JSON: sha256 ${sha256Hex(buf!)}>`
  }
}

/** What changed from build A to build B (`a`, `b`: how to name them). */
export function diffBuilds(A: BuildFiles, B: BuildFiles, a = 'A', b = 'B'): DatasetDiff {
  const facts = (buf: Buffer) => ({ sha256: sha256Hex(buf), bytes: buf.length })
  const files: FileChange[] = []
  for (const file of [...new Set([...A.keys(), ...B.keys()])]) {
    const x = A.get(file) ?? null
    const y = B.get(file) ?? null
    if (!x && !y) continue
    const status = !x ? 'added' : !y ? 'removed' : x.equals(y) ? 'identical' : 'differs'
    files.push({ file, status, ...(x ? { a: facts(x) } : {}), ...(y ? { b: facts(y) } : {}) })
  }
  const text = (m: BuildFiles, split: Split) => m.get(`${split}.jsonl`)?.toString('utf8') ?? ''
  const recs = (m: BuildFiles) => Object.fromEntries(SPLITS.map((s) => [s, parsedRecords(text(m, s))])) as Record<Split, DataRecord[]>
  const [ra, rb] = [recs(A), recs(B)]
  const records = Object.fromEntries(SPLITS.map((s) => [s, diffRecords(text(A, s), text(B, s))])) as Record<Split, RecordDiff>

  const changes = compareBuilds(ra, rb)
  const sources = [...new Set(SPLITS.flatMap((s) => [...ra[s], ...rb[s]].map((r) => r.source)))].sort(compareStrings)
  const count = (rs: Record<Split, DataRecord[]>, keep: (r: DataRecord) => boolean) =>
    Object.fromEntries(SPLITS.map((s) => [s, rs[s].filter(keep).length])) as Counts
  const bySource: DatasetDiff['bySource'] = {}
  for (const s of sources)
    bySource[s] = {
      a: count(ra, (r) => r.source === s),
      b: count(rb, (r) => r.source === s),
      ...(changes[s] ?? { kept: 0, optionsChanged: 0, replaced: 0 }),
    }
  const byChoices = {} as DatasetDiff['byChoices']
  for (const split of SPLITS) {
    const n = (r: DataRecord) => String(Array.isArray(r.choices) ? r.choices.length : r.n_choices)
    const keys = [...new Set([...ra[split], ...rb[split]].map(n))].sort((x, y) => Number(x) - Number(y))
    byChoices[split] = Object.fromEntries(
      keys.map((k) => [k, { a: ra[split].filter((r) => n(r) === k).length, b: rb[split].filter((r) => n(r) === k).length }]),
    )
  }
  const manifest = jsonDiff(parseJson(A.get('manifest.json')), parseJson(B.get('manifest.json')))
  const identical = files.every((f) => f.status === 'identical')
  return { identical, a, b, files, records, bySource, byChoices, manifest }
}

const SHOW = 5
const short = (f?: { sha256: string; bytes: number }) => (f ? `${f.sha256.slice(0, 12)} ${f.bytes} bytes` : '-')
const show = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v))

/** The diff as text: files, records (first few of each kind, totals always), totals, manifest. */
export function formatDiff(d: DatasetDiff): string[] {
  if (d.identical) return [`ok: ${d.a} and ${d.b} are identical (${d.files.length} files)`]
  const lines = [`${d.a} → ${d.b}:`, 'files:']
  for (const f of d.files) if (f.status !== 'identical') lines.push(`  ${f.file}: ${f.status} (${short(f.a)} → ${short(f.b)})`)
  lines.push('records:')
  for (const split of SPLITS) {
    const r = d.records[split]
    const repeated = r.repeated.length ? `, ${r.repeated.length} repeated in ${d.a}` : ''
    lines.push(
      `  ${split}: ${r.reordered ? 'same records in another order' : `${r.added.length} added, ${r.removed.length} removed, ${r.changed.length} changed${repeated}`}`,
    )
    for (const id of r.added.slice(0, SHOW)) lines.push(`    added ${id}`)
    for (const id of r.removed.slice(0, SHOW)) lines.push(`    removed ${id}`)
    for (const c of r.changed.slice(0, SHOW)) {
      const o = c.options
      const opts =
        o && o.added.length + o.removed.length
          ? ` (options ${[...o.added.map((x) => `+${JSON.stringify(x)}`), ...o.removed.map((x) => `-${JSON.stringify(x)}`)].join(' ')})`
          : ''
      lines.push(`    changed ${c.id}: ${c.fields.join(', ')}${opts}`)
    }
  }
  lines.push(`by source (test, val in ${d.a} → ${d.b}; of ${d.b}'s records: kept, options changed, replaced):`)
  for (const [s, c] of Object.entries(d.bySource))
    lines.push(
      `  ${s.padEnd(16)} ${c.a.test}, ${c.a.val} → ${c.b.test}, ${c.b.val}; ${c.kept} kept, ${c.optionsChanged} options changed, ${c.replaced} replaced`,
    )
  lines.push(`by option count (${d.a} → ${d.b}):`)
  for (const split of SPLITS)
    lines.push(
      `  ${split}: ${Object.entries(d.byChoices[split])
        .map(([n, c]) => `${n}: ${c.a} → ${c.b}`)
        .join(', ')}`,
    )
  lines.push(`manifest.json: ${d.manifest.length} field${d.manifest.length === 1 ? '' : 's'} differ`)
  for (const m of d.manifest.slice(0, 4 * SHOW)) lines.push(`  ${m.path}: ${show(m.a)} → ${show(m.b)}`)
  if (d.manifest.length > 4 * SHOW) lines.push(`  … and ${d.manifest.length - 4 * SHOW} more (--json lists them all)`)
  return lines
}
