// The blind judging protocol of docs/judging.md: draw a seeded sample of grown items, render the sheets a
// judge sees (question and options only, in the record's order), read the marks back and score them
// against provenance.jsonl. Pure functions; src/review/judge.ts does the file and network work.

import { ProvenanceLine } from '../emit/provenance.ts'
import { DataRecord } from '../emit/schema.ts'
import { JevError } from '../errors.ts'
import { SPLITS, type Split } from '../recipe/schema.ts'
import { keyedHash } from '../shape/rng.ts'
import { compareStrings } from '../util/canonical.ts'
import { sheetInstructions } from './prompts.ts'

export const MARKS = { b: 'belongs', f: 'obviously foreign', m: 'may also be right' } as const
export type Mark = keyof typeof MARKS

export interface SampleItem {
  /** its number on the sheets, from 1 */
  n: number
  split: Split
  id: string
}

export interface Build {
  records: Record<Split, DataRecord[]>
  provenance: ProvenanceLine[]
}

const LETTERS = 'ABCDEFGH'

export function parseBuild(files: Record<Split | 'provenance', string>): Build {
  const lines = (text: string) => text.split('\n').filter((l) => l !== '')
  const records = Object.fromEntries(
    SPLITS.map((s) => [s, lines(files[s]).map((l) => DataRecord.parse(JSON.parse(l)))]),
  ) as Build['records']
  return { records, provenance: lines(files.provenance).map((l) => ProvenanceLine.parse(JSON.parse(l))) }
}

function provenanceOf(build: Build): Map<string, ProvenanceLine> {
  return new Map(build.provenance.map((p) => [`${p.split}\u0000${p.id}`, p]))
}

const isGrown = (p: ProvenanceLine | undefined) => p?.choices.some((c) => c.from === 'borrowed') ?? false

/**
 * The first `counts[split]` grown items of each split in the order of a keyed
 * hash of the judging seed and the id; numbered test first, then val.
 */
export function drawSample(build: Build, seed: number, counts: Record<Split, number>): SampleItem[] {
  const prov = provenanceOf(build)
  const out: SampleItem[] = []
  for (const split of SPLITS) {
    const grown = build.records[split]
      .filter((r) => isGrown(prov.get(`${split}\u0000${r.id}`)))
      .map((r) => ({ id: r.id, k: keyedHash(seed, 'judging', `${split}\u0000${r.id}`) }))
      .sort((a, b) => compareStrings(a.k, b.k) || compareStrings(a.id, b.id))
    if (grown.length < counts[split])
      throw new JevError('USAGE', `${split}: ${grown.length} grown items, ${counts[split]} asked for`, {
        usage: null,
        hint: `ask for at most ${grown.length} with --${split} N`,
      })
    for (const g of grown.slice(0, counts[split])) out.push({ n: 0, split, id: g.id })
  }
  // sheets show the items mixed, so a judge cannot tell a split or a source by its place
  return out
    .map((s) => ({ s, k: keyedHash(seed, 'judging-order', `${s.split}\u0000${s.id}`) }))
    .sort((a, b) => compareStrings(a.k, b.k))
    .map(({ s }, i) => ({ ...s, n: i + 1 }))
}

/** One sheet: the instructions, then the items, each question with its options lettered A–H. */
export function renderSheet(build: Build, items: readonly SampleItem[], title: string): string {
  const byId = recordsById(build)
  const parts = [`# ${title}`, '', sheetInstructions('judge'), '']
  for (const item of items) parts.push(questionText(byId.get(`${item.split}\u0000${item.id}`)!, item.n))
  return `${parts.join('\n')}\n`
}

/** One question as a judge sees it, numbered `n`: its context and question, then its options lettered A–H. */
export function questionText(r: DataRecord, n: number): string {
  const lines = [`## ${n}`, '', r.context ? `${r.context}\n\n${r.question}` : r.question, '']
  for (const [i, c] of r.choices.entries()) lines.push(`${LETTERS[i]}. ${c}`)
  lines.push('')
  return lines.join('\n')
}

export function recordsById(build: Build): Map<string, DataRecord> {
  return new Map(SPLITS.flatMap((s) => build.records[s].map((r) => [`${s}\u0000${r.id}`, r] as const)))
}

/** Lines "12: b b f b": item number → one mark per option. Every item of the sample must be marked once, in full. */
export function parseMarks(text: string, items: readonly SampleItem[], build: Build, file = 'marks'): Map<number, Mark[]> {
  const bad = (line: number, what: string) =>
    new JevError('DATA', `${file}:${line}: ${what}`, {
      file,
      row: line,
      hint: 'correct the marks file: one line per question, "N: " and a letter per option',
    })
  const byId = recordsById(build)
  const wanted = new Map(items.map((i) => [i.n, byId.get(`${i.split}\u0000${i.id}`)!.choices.length]))
  const out = new Map<number, Mark[]>()
  text.split('\n').forEach((raw, lineNo) => {
    const line = raw.trim()
    if (line === '') return
    const m = /^(\d+)\s*:\s*([bfm](\s+[bfm])*)$/i.exec(line)
    if (!m) throw bad(lineNo + 1, `expected "<number>: b|f|m …", got ${JSON.stringify(line)}`)
    const n = Number(m[1])
    const marks = m[2]!.toLowerCase().split(/\s+/) as Mark[]
    const expect = wanted.get(n)
    if (expect === undefined) throw bad(lineNo + 1, `item ${n} is not on this sheet`)
    if (marks.length !== expect) throw bad(lineNo + 1, `item ${n} has ${expect} options, ${marks.length} marks`)
    if (out.has(n)) throw bad(lineNo + 1, `item ${n} marked twice`)
    out.set(n, marks)
  })
  return out
}

export interface Rates {
  items: number
  borrowed: number
  foreign: number
  /** grown items with a borrowed option marked "may also be right" */
  maybeRightItems: number
  /** the judge's strictness on what came from upstream: its own options marked foreign */
  upstream: number
  upstreamForeign: number
}

export interface Score {
  bySource: Record<string, Rates>
  all: Rates
  /** items of the sample no marks cover */
  unmarked: number[]
}

const zero = (): Rates => ({ items: 0, borrowed: 0, foreign: 0, maybeRightItems: 0, upstream: 0, upstreamForeign: 0 })

/** Joins the marks with provenance: which marked options were borrowed. */
export function scoreMarks(build: Build, items: readonly SampleItem[], marks: ReadonlyMap<number, Mark[]>): Score {
  const byId = recordsById(build)
  const prov = provenanceOf(build)
  const bySource: Record<string, Rates> = {}
  const all = zero()
  const unmarked: number[] = []
  for (const item of items) {
    const key = `${item.split}\u0000${item.id}`
    const r = byId.get(key)!
    const p = prov.get(key)!
    const m = marks.get(item.n)
    if (!m) {
      unmarked.push(item.n)
      continue
    }
    const rates = [(bySource[r.source] ??= zero()), all]
    let maybe = false
    p.choices.forEach((c, i) => {
      for (const t of rates)
        if (c.from === 'borrowed') {
          t.borrowed++
          if (m[i] === 'f') t.foreign++
        } else {
          t.upstream++
          if (m[i] === 'f') t.upstreamForeign++
        }
      if (c.from === 'borrowed' && m[i] === 'm') maybe = true
    })
    for (const t of rates) {
      t.items++
      if (maybe) t.maybeRightItems++
    }
  }
  const sorted = Object.fromEntries(
    Object.keys(bySource)
      .sort(compareStrings)
      .map((s) => [s, bySource[s]!]),
  )
  return { bySource: sorted, all, unmarked }
}

const pct = (a: number, b: number) => (b === 0 ? '–' : `${((100 * a) / b).toFixed(1)} %`)

export function scoreTable(score: Score): string {
  const rows = [
    '| source | grown items | borrowed options | obviously foreign | items with a borrowed option that may also be right | upstream options marked foreign |',
    '|---|---:|---:|---:|---:|---:|',
  ]
  for (const [name, r] of [...Object.entries(score.bySource), ['all', score.all] as const])
    rows.push(
      `| ${name} | ${r.items} | ${r.borrowed} | ${r.foreign} (${pct(r.foreign, r.borrowed)}) | ${r.maybeRightItems} (${pct(r.maybeRightItems, r.items)}) | ${r.upstreamForeign} of ${r.upstream} (${pct(r.upstreamForeign, r.upstream)}) |`,
    )
  return `${rows.join('\n')}\n`
}
