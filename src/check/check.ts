import { kindOf } from '../adapt/kinds.ts'
import { type Audit, computeAudit } from '../emit/audit.ts'
import { choicesTable, countsTable, positionsTable } from '../emit/card/card.ts'
import { auditSection, auditTables, changesSection } from '../emit/card/distractors.ts'
import { CROISSANT_FILE, croissantJson, makesCroissant } from '../emit/croissant.ts'
import { FIGURES, figureLink, renderFigures } from '../emit/figures.ts'
import { Manifest } from '../emit/manifest.ts'
import { OUTPUTS } from '../emit/outputs.ts'
import { type ProvenanceLine, parseProvenance } from '../emit/provenance.ts'
import { DataRecord, type SourceChanges } from '../emit/schema.ts'
import { computeStats, type DatasetStats } from '../emit/stats.ts'
import { N_CHOICES, type Recipe, SPLITS, type Split } from '../recipe/schema.ts'
import { normalize } from '../util/canonical.ts'
import { checkCardMetadata } from './card.ts'
import { rootCausesFirst } from './check-order.ts'
import { checkContamination } from './contamination.ts'
import { checkCroissant } from './croissant.ts'
import { checkJudged } from './judged.ts'
import { matchManifest } from './manifest-match.ts'
import { checkPlacement } from './placement.ts'
import { checkProvenance } from './provenance.ts'
import { readOutputs } from './read-outputs.ts'

const KEY_ORDER = ['id', 'source', 'question', 'context', 'choices', 'answer_idx', 'n_choices']
const CARD_SECTIONS = [
  '## Splits and counts',
  '## Option counts',
  '## Answer positions',
  '## What was dropped',
  '## How it was built',
  '## Distractor audit',
  '## Evaluating',
  '## Caveats',
  '## Licence and attribution',
]

export interface ReadDataset {
  /** each output file's bytes, null when missing */
  raw: Record<string, Buffer | null>
  records: Record<Split, DataRecord[]>
  /** null when provenance.jsonl is missing or has a malformed line */
  provenance: ProvenanceLine[] | null
  /** what could not be read or parsed, by file and line */
  problems: string[]
}

/** Reads a built folder's files, as of one build (src/check/read-outputs.ts), and parses its records and provenance, line by line. */
export async function readDataset(dir: string): Promise<ReadDataset> {
  const raw = await readOutputs(dir)
  // an optional output is required only where the recipe or the manifest says it was made
  const problems = OUTPUTS.filter((o) => !o.optional && raw[o.name] === null).map((o) => `${o.name}: missing`)
  const records: Record<Split, DataRecord[]> = { test: [], val: [] }
  for (const split of SPLITS) {
    const buf = raw[`${split}.jsonl`]
    if (!buf) continue
    const file = `${split}.jsonl`
    if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) problems.push(`${file}: starts with a BOM`)
    const text = buf.toString('utf8')
    if (Buffer.from(text, 'utf8').compare(buf) !== 0) problems.push(`${file}: not valid UTF-8`)
    if (text.includes('\r')) problems.push(`${file}: has \\r line ends`)
    if (text.length && !text.endsWith('\n')) problems.push(`${file}: no final newline`)
    const lines = text.split('\n')
    lines.forEach((line, i) => {
      if (line === '' && i === lines.length - 1) return
      let obj: unknown
      try {
        obj = JSON.parse(line)
      } catch {
        problems.push(`${file} line ${i + 1}: not JSON`)
        return
      }
      const keys = obj && typeof obj === 'object' ? Object.keys(obj) : []
      if (keys.join(',') !== KEY_ORDER.join(','))
        problems.push(`${file} line ${i + 1}: keys ${keys.join(',')} are not ${KEY_ORDER.join(',')}`)
      const r = DataRecord.safeParse(obj)
      if (!r.success) {
        problems.push(`${file} line ${i + 1}: ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`)
        return
      }
      records[split].push(r.data)
    })
  }
  let provenance: ProvenanceLine[] | null = null
  if (raw['provenance.jsonl']) {
    const parsed = parseProvenance(raw['provenance.jsonl'].toString('utf8'))
    problems.push(...parsed.problems)
    if (parsed.problems.length === 0) provenance = parsed.lines
  }
  return { raw, records, provenance, problems }
}

/**
 * Checks a built output folder against the recipe's counts and the spec's
 * invariants; returns every problem found (empty when the folder is good).
 */
export async function checkFolder(dir: string, recipe: Recipe, read?: ReadDataset): Promise<string[]> {
  const { raw, records, provenance, problems } = read ?? (await readDataset(dir))
  problems.push(...checkRecords(records, recipe))
  if (provenance) problems.push(...checkProvenance(records, provenance, recipe), ...checkPlacement(records, provenance, recipe))
  // the audit is only as good as the provenance it is computed from
  const audit = provenance ? computeAudit(records, provenance, recipe) : null
  if (raw['README.md']) problems.push(...checkCard(raw['README.md'].toString('utf8'), records, recipe, raw, audit))
  if (raw['manifest.json']) problems.push(...checkManifest(raw['manifest.json'].toString('utf8'), raw, records, audit))
  if (provenance) {
    let manifest: unknown = null
    try {
      manifest = raw['manifest.json'] ? JSON.parse(raw['manifest.json'].toString('utf8')) : null
    } catch {} // checkManifest reports it
    problems.push(...checkContamination(recipe, provenance, manifest, raw['README.md']?.toString('utf8') ?? null))
  }
  problems.push(...checkCroissantFile(raw, recipe))
  problems.push(...(await checkJudged(recipe, raw)))
  if (audit)
    problems.push(
      ...checkFigures(
        raw,
        computeStats(
          records,
          recipe.sources.map((s) => s.name),
        ),
        audit,
      ),
    )
  return rootCausesFirst(problems)
}

/** croissant.json: required when the recipe has a publication or the manifest lists it; checked when present. */
function checkCroissantFile(raw: Record<string, Buffer | null>, recipe: Recipe): string[] {
  const buf = raw[CROISSANT_FILE]
  const listed = listsOutput(raw['manifest.json'], CROISSANT_FILE)
  if (!buf)
    return makesCroissant(recipe) || listed
      ? [`${CROISSANT_FILE}: missing (${makesCroissant(recipe) ? 'the recipe has a publication' : 'manifest.json lists it'})`]
      : []
  const problems = checkCroissant(buf.toString('utf8'), (path) => raw[path])
  if (!makesCroissant(recipe)) problems.push(`${CROISSANT_FILE}: the recipe has no publication to describe`)
  else if (problems.length === 0) {
    const test = raw['test.jsonl']
    const val = raw['val.jsonl']
    if (test && val && !buf.equals(Buffer.from(croissantJson({ recipe, files: { test, val } }), 'utf8')))
      problems.push(`${CROISSANT_FILE}: not what the recipe's publication and the data files give`)
  }
  return problems
}

function manifestChanges(manifest: Buffer | null | undefined, version: string): Record<string, SourceChanges> | undefined {
  try {
    const m = Manifest.safeParse(JSON.parse(manifest?.toString('utf8') ?? ''))
    return m.success && m.data.changesFrom?.version === version ? m.data.changesFrom.bySource : undefined
  } catch {
    return undefined
  }
}

function listsOutput(manifest: Buffer | null | undefined, name: string): boolean {
  try {
    const m = JSON.parse(manifest?.toString('utf8') ?? '') as { outputs?: { path?: unknown }[] }
    return Array.isArray(m.outputs) && m.outputs.some((o) => o?.path === name)
  } catch {
    return false
  }
}

/** Each figure must be the one its records and provenance draw (a missing one is already reported as missing). */
export function checkFigures(raw: Record<string, Buffer | null>, stats: DatasetStats, audit: Audit): string[] {
  return renderFigures(stats, audit).flatMap((f) => {
    const buf = raw[f.name]
    return buf && !buf.equals(Buffer.from(f.svg, 'utf8')) ? [`${f.name}: not the figure the records and provenance.jsonl draw`] : []
  })
}

export function checkRecords(records: Record<Split, readonly DataRecord[]>, recipe: Recipe): string[] {
  const problems: string[] = []
  const sources = new Map(recipe.sources.map((s) => [s.name, s]))
  const ids = new Map<string, Split>()
  const texts = new Map<string, string>()
  for (const split of SPLITS) {
    for (const r of records[split]) {
      const spec = sources.get(r.source)
      if (!spec) problems.push(`${split} ${r.id}: unknown source ${r.source}`)
      else if (!r.id.startsWith(`${r.source}-`)) problems.push(`${split} ${r.id}: id is not prefixed with its source`)
      if (spec?.fixedChoices !== undefined && r.n_choices !== spec.fixedChoices)
        problems.push(`${split} ${r.id}: ${r.source} items must have ${spec.fixedChoices} options`)
      const kind = spec && kindOf(spec)
      // fixed options that are neither shuffled nor grown stay exactly as the kind gives them
      const fixed = kind?.fixedOptions
      if (spec && fixed && !spec.shuffle && spec.fixedChoices === fixed.length && JSON.stringify(r.choices) !== JSON.stringify(fixed))
        problems.push(`${split} ${r.id}: ${kind.card.title} choices must be ${JSON.stringify(fixed)} in that order`)
      const context = kind?.card.context
      if ((r.context !== null) !== (context !== undefined)) problems.push(`${split} ${r.id}: context must be ${context ?? 'null'}`)
      if (new Set(r.choices.map(normalize)).size !== r.choices.length) problems.push(`${split} ${r.id}: options not all distinct`)
      const seen = ids.get(r.id)
      if (seen) problems.push(`${split} ${r.id}: id also in ${seen}`)
      ids.set(r.id, split)
      const text = `${normalize(r.question)}\u0000${r.context === null ? '' : normalize(r.context)}`
      const other = texts.get(text)
      if (other) problems.push(`${split} ${r.id}: same question text as ${other}`)
      texts.set(text, `${split} ${r.id}`)
    }
  }
  const stats = computeStats(
    records,
    recipe.sources.map((s) => s.name),
  )
  for (const split of SPLITS) {
    for (const s of recipe.sources) {
      const got = stats.bySource[s.name]?.[split] ?? 0
      if (got !== s[split].count) problems.push(`${split}: ${s.name} has ${got} items, the recipe wants ${s[split].count}`)
    }
    for (const n of N_CHOICES) {
      const got = stats.byChoices[split][String(n)] ?? 0
      if (got !== recipe.quotas[split][n])
        problems.push(`${split}: ${got} items with ${n} options, the quota is ${recipe.quotas[split][n]}`)
    }
  }
  return problems
}

function checkCard(
  card: string,
  records: Record<Split, readonly DataRecord[]>,
  recipe: Recipe,
  raw: Record<string, Buffer | null>,
  audit: Audit | null,
): string[] {
  const problems: string[] = []
  const facts = SPLITS.flatMap((split) => {
    const buf = raw[`${split}.jsonl`]
    return buf ? [{ path: `${split}.jsonl`, bytes: buf.byteLength, rows: records[split].length, keys: KEY_ORDER }] : []
  })
  problems.push(...checkCardMetadata(card, facts)) // its problems already name README.md
  for (const h of CARD_SECTIONS) if (!card.includes(h)) problems.push(`README.md: no section "${h}"`)
  // every table and figure the card states must be what the records give
  const stats = computeStats(
    records,
    recipe.sources.map((s) => s.name),
  )
  const tables: [string, string][] = [
    ['counts', countsTable(stats)],
    ['option-count', choicesTable(stats)],
    ['answer-position', positionsTable(stats)],
  ]
  for (const [name, t] of tables) if (!card.includes(t)) problems.push(`README.md: the ${name} table does not match the records`)
  if (audit) {
    const names = ['borrowing-by-source', 'borrowing-by-option-count', 'baseline', ...SPLITS.map((s) => `${s} upstream-options-kept`)]
    auditTables(audit).forEach((t, i) => {
      if (!card.includes(t))
        problems.push(`README.md: the distractor audit's ${names[i]} table does not match the records and provenance.jsonl`)
    })
  }
  // and every sentence of the audit and of the changes section, as the builder writes them
  for (const f of FIGURES)
    if (!card.includes(figureLink(f.name))) problems.push(`README.md: does not show the figure ${f.name} (${figureLink(f.name)})`)
  if (audit && !card.includes(auditSection(audit, recipe)))
    problems.push('README.md: the distractor audit section is not what the records and provenance.jsonl give')
  if (recipe.changesFrom) {
    // typed into the recipe, or pinned in the lock and recorded in manifest.json
    const pinned = recipe.changesFrom.bySource ? undefined : manifestChanges(raw['manifest.json'], recipe.changesFrom.version)
    if (!recipe.changesFrom.bySource && !pinned)
      problems.push(
        `README.md: the "Changes from ${recipe.changesFrom.version}" figures are pinned in the lock, and manifest.json records none`,
      )
    else if (!card.includes(changesSection(recipe, pinned)))
      problems.push(
        `README.md: the "Changes from ${recipe.changesFrom.version}" section is not what the ${pinned ? "manifest's figures give" : 'recipe states'}`,
      )
  }
  const floor = stats.chanceFloor.test.toFixed(3)
  if (!card.includes(`**${floor}**`)) problems.push(`README.md: does not state the test chance floor ${floor} computed from test.jsonl`)
  if (!card.includes(`seed **${recipe.seed}**`)) problems.push(`README.md: does not state the seed ${recipe.seed}`)
  for (const s of recipe.sources) if (!card.includes(s.revision)) problems.push(`README.md: does not name the pinned revision of ${s.name}`)
  if (
    /\b(19|20)\d\d[-/]\d\d[-/]\d\d\b|\b\d\d:\d\d(:\d\d)?\b|\b(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2},? (19|20)\d\d\b/.test(
      card,
    )
  )
    problems.push('README.md: contains a date or time')
  return problems
}

function checkManifest(
  text: string,
  raw: Record<string, Buffer | null>,
  records: Record<Split, readonly DataRecord[]>,
  audit: Audit | null,
): string[] {
  let m: Manifest
  try {
    const parsed = Manifest.safeParse(JSON.parse(text))
    if (!parsed.success) return [`manifest.json: ${parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`]
    m = parsed.data
  } catch {
    return ['manifest.json: not JSON']
  }
  const problems: string[] = []
  const match = matchManifest(m, (path) => raw[path])
  for (const name of match.unlisted) problems.push(`manifest.json: outputs do not list ${name}`)
  if (audit && JSON.stringify(m.audit) !== JSON.stringify(audit))
    problems.push('manifest.json: audit does not match the records and provenance.jsonl')
  if (!match.datasetHashMatches()) problems.push('manifest.json: datasetHash does not match the records')
  const stats = computeStats(records, Object.keys(m.counts.bySource))
  if (JSON.stringify(stats.bySource) !== JSON.stringify(m.counts.bySource))
    problems.push('manifest.json: counts.bySource does not match the records')
  if (JSON.stringify(stats.byChoices) !== JSON.stringify(m.counts.byChoices))
    problems.push('manifest.json: counts.byChoices does not match the records')
  for (const o of match.outputs) {
    if (o.sha256 === null) continue
    if (!o.sameContent) problems.push(`${o.path}: does not match the manifest's sha256/bytes`)
    if (o.rowsMatch === false) problems.push(`${o.path}: row count differs from the manifest`)
  }
  return problems
}
