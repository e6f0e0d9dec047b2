// "Compare two builds", once: record by record keyed by split and id. verify-dataset
// (a folder against its rebuild), diff-dataset (two folders) and compare-builds (the
// card's "Changes from" figures) all read their differences from here.

import { recordLines } from '../emit/manifest.ts'
import { DataRecord, type SourceChanges } from '../emit/schema.ts'
import { SPLITS, type Split } from '../recipe/schema.ts'
import { compareStrings } from '../util/canonical.ts'
import { sha256Hex } from '../util/hash.ts'

export type { SourceChanges }

/**
 * Compares two builds record by record, keyed by split and id. Sources in
 * `order` (the recipe's) first, any others after them in code-unit order.
 */
export function compareBuilds(
  before: Record<Split, readonly DataRecord[]>,
  after: Record<Split, readonly DataRecord[]>,
  order: readonly string[] = [],
): Record<string, SourceChanges> {
  const out: Record<string, SourceChanges> = {}
  const seen = [...new Set(SPLITS.flatMap((s) => after[s].map((r) => r.source)))]
  const sources = [...order.filter((s) => seen.includes(s)), ...seen.filter((s) => !order.includes(s)).sort(compareStrings)]
  for (const s of sources) out[s] = { kept: 0, optionsChanged: 0, replaced: 0 }
  for (const split of SPLITS) {
    const old = new Map(before[split].map((r) => [r.id, r]))
    for (const r of after[split]) {
      const o = old.get(r.id)
      const c = out[r.source]!
      if (!o) c.replaced++
      else if (JSON.stringify(o) === JSON.stringify(r)) c.kept++
      else c.optionsChanged++
    }
  }
  return out
}

/**
 * compareBuilds over two builds' test.jsonl and val.jsonl text: compare-builds reads them from two
 * folders, each line checked against the record schema; a build, from its own two builds, need not
 * check the lines it wrote itself (`trusted`).
 */
export function compareBuildTexts(
  before: Record<Split, string>,
  after: Record<Split, string>,
  order: readonly string[] = [],
  trusted = false,
): Record<string, SourceChanges> {
  const record = trusted ? (l: string) => JSON.parse(l) as DataRecord : (l: string) => DataRecord.parse(JSON.parse(l))
  const read = (jsonl: Record<Split, string>) =>
    Object.fromEntries(SPLITS.map((s) => [s, recordLines(jsonl[s]).map(record)])) as Record<Split, DataRecord[]>
  return compareBuilds(read(before), read(after), order)
}

export interface ChangedRecord {
  id: string
  fields: string[]
  /** when `choices` changed: the options only the new record has, and those only the old one had */
  options?: { added: string[]; removed: string[] }
}

export interface RecordDiff {
  /** ids in the new text that the old one lacks */
  added: string[]
  /** ids in the old text that the new one lacks */
  removed: string[]
  changed: ChangedRecord[]
  /** ids on more lines of the old text than of the new (a repeated line) */
  repeated: string[]
  /** same records, other line order */
  reordered: boolean
}

function byId(jsonl: string): { records: Map<string, Record<string, unknown>>; lines: Map<string, number> } {
  const records = new Map<string, Record<string, unknown>>()
  const lines = new Map<string, number>()
  for (const line of recordLines(jsonl)) {
    let id: string
    let r: Record<string, unknown> = {}
    try {
      r = JSON.parse(line) as Record<string, unknown>
      id = String(r.id)
    } catch {
      id = `<unparsable line ${sha256Hex(line).slice(0, 8)}>`
    }
    if (!records.has(id)) records.set(id, r)
    lines.set(id, (lines.get(id) ?? 0) + 1)
  }
  return { records, lines }
}

function optionChanges(old: unknown, now: unknown): ChangedRecord['options'] {
  if (!Array.isArray(old) || !Array.isArray(now)) return undefined
  return { added: now.filter((o) => !old.includes(o)).map(String), removed: old.filter((o) => !now.includes(o)).map(String) }
}

/** Record-level difference of two JSONL files, keyed by id. */
export function diffRecords(oldText: string, newText: string): RecordDiff {
  const { records: a, lines: aLines } = byId(oldText)
  const { records: b, lines: bLines } = byId(newText)
  const diff: RecordDiff = { added: [], removed: [], changed: [], repeated: [], reordered: false }
  for (const [id, r] of b) {
    const old = a.get(id)
    if (!old) {
      diff.added.push(id)
      continue
    }
    const fields = [...new Set([...Object.keys(old), ...Object.keys(r)])].filter((k) => JSON.stringify(old[k]) !== JSON.stringify(r[k]))
    if (!fields.length) continue
    const options = fields.includes('choices') ? optionChanges(old.choices, r.choices) : undefined
    diff.changed.push({ id, fields, ...(options ? { options } : {}) })
  }
  for (const id of a.keys()) if (!b.has(id)) diff.removed.push(id)
  for (const [id, n] of aLines) if (b.has(id) && n > bLines.get(id)!) diff.repeated.push(id)
  diff.reordered = diff.added.length + diff.removed.length + diff.changed.length + diff.repeated.length === 0 && oldText !== newText
  return diff
}
