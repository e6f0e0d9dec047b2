// Cut small, committed test fixtures from the local Hub mirror.
//   npx tsx scripts/make-fixtures.ts [--mirror DIR]   (DIR default: ../shared/hub-mirror, relative to the project root)
// Writes test/fixtures/hub/datasets/<owner>/<name>/<path>. Rows are picked by fixed rules and a sha256 rank of
// the row content (no randomness), kept in upstream file order, and written with the source file's own parquet
// schema; every fixture is read back with hyparquet and compared row for row with the picked source rows.
import { deepStrictEqual } from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { KeyValue, SchemaElement } from 'hyparquet'
import { asyncBufferFromFile, parquetMetadata, parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { parquetWriteBuffer } from 'hyparquet-writer'

type Row = Record<string, unknown>
interface Source {
  rows: Row[]
  schema: SchemaElement[]
  kv: KeyValue[]
}
interface Rule {
  label: string
  count: number
  pred: (r: Row) => boolean
  quiet?: boolean
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const argv = process.argv.slice(2)
const mirrorArg = argv.indexOf('--mirror') >= 0 ? argv[argv.indexOf('--mirror') + 1] : '../shared/hub-mirror'
if (!mirrorArg) throw new Error('--mirror needs a directory')
const MIRROR = path.resolve(ROOT, mirrorArg, 'datasets')
const OUT = path.join(ROOT, 'test/fixtures/hub/datasets')

const canon = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x))
const sha = (s: string): string => createHash('sha256').update(s).digest('hex')
const short = (s: unknown, n = 70): string => {
  const t = String(s).replace(/\s+/gu, ' ')
  return t.length > n ? `${t.slice(0, n)}…` : t
}
const log = (s: string): void => {
  process.stdout.write(`${s}\n`)
}

async function load(repoPath: string): Promise<Source> {
  const file = await asyncBufferFromFile(path.join(MIRROR, repoPath))
  const md = await parquetMetadataAsync(file)
  const rows = (await parquetReadObjects({ file, compressors })) as Row[]
  return { rows, schema: md.schema, kv: md.key_value_metadata ?? [] }
}

/** Indices of `pool`, ordered by sha256(salt + canonical row JSON), ties by file position. */
function ranked(rows: Row[], pool: number[], salt: string): number[] {
  const keyed = pool.map((i) => ({ i, h: sha(`${salt}\n${canon(rows[i])}`) }))
  return keyed.sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : a.i - b.i)).map((k) => k.i)
}

/** Forced rows, then for each rule top up (by rank) until `count` picked rows satisfy it, then fill from `fill`. */
function pick(
  rows: Row[],
  pool: number[],
  n: number,
  salt: string,
  rules: Rule[],
  forced: number[] = [],
  fill: (r: Row) => boolean = () => true,
): number[] {
  const order = ranked(rows, pool, salt)
  const picked = new Set<number>(forced)
  const take = (i: number, rule: Rule): void => {
    picked.add(i)
    if (!rule.quiet) log(`    + [${rule.label}] row ${i}: ${short(rows[i]!.id ?? rows[i]!.q_id ?? rows[i]!.question)}`)
  }
  for (const rule of rules) {
    let have = [...picked].filter((i) => rule.pred(rows[i]!)).length
    for (const i of order)
      if (have < rule.count && !picked.has(i) && rule.pred(rows[i]!)) {
        take(i, rule)
        have++
      }
    if (have < rule.count) log(`    ! only ${have}/${rule.count} rows for "${rule.label}"`)
  }
  for (const i of order) if (picked.size < n && !picked.has(i) && fill(rows[i]!)) picked.add(i)
  if (picked.size !== n) throw new Error(`${salt}: picked ${picked.size} rows, wanted ${n}`)
  return [...picked].sort((a, b) => a - b)
}

const fixtureSizes: Record<string, number> = {}

async function writeFixture(repoPath: string, src: Source, idx: number[]): Promise<void> {
  const rows = idx.map((i) => src.rows[i]!)
  const names = parquetSchema({ schema: src.schema } as Parameters<typeof parquetSchema>[0]).children.map((c) => c.element.name)
  const buf = parquetWriteBuffer({
    columnData: names.map((name) => ({ name, data: rows.map((r) => r[name]) })),
    schema: src.schema, // the mirror's own schema elements: nested groups, LIST/STRING annotations, OPTIONAL everywhere
    codec: 'SNAPPY',
    kvMetadata: src.kv.filter((kv) => kv.key === 'huggingface'),
    createdBy: 'hyparquet-writer 0.17.0 (jev-bench scripts/make-fixtures.ts)',
  })
  const out = path.join(OUT, repoPath)
  mkdirSync(path.dirname(out), { recursive: true })
  writeFileSync(out, new Uint8Array(buf))
  // verification: read back from disk, same schema, same rows (BigInt int64s, struct/list shapes included)
  const file = await asyncBufferFromFile(out)
  const back = (await parquetReadObjects({ file, compressors })) as Row[]
  deepStrictEqual(back, rows)
  deepStrictEqual(parquetMetadata(buf).schema, src.schema)
  fixtureSizes[repoPath] = buf.byteLength
  log(`  wrote ${repoPath}: ${rows.length} rows, ${buf.byteLength} bytes (read back: equal)`)
}

// ---------- ARC ----------
type ArcChoices = { text: string[]; label: string[] }
const nOpts = (r: Row): number => (r.choices as ArcChoices).text.length
const numKey = (r: Row): boolean => /^[0-9]$/u.test(String(r.answerKey))
for (const config of ['ARC-Challenge', 'ARC-Easy']) {
  for (const [split, n, k] of [
    ['test', 40, 2],
    ['validation', 20, 1],
  ] as const) {
    const repoPath = `allenai/ai2_arc/${config}/${split}-00000-of-00001.parquet`
    log(`${repoPath}`)
    const src = await load(repoPath)
    const rules: Rule[] = [
      { label: '3 options, numeric key', count: 1, pred: (r) => nOpts(r) === 3 && numKey(r) },
      { label: 'numeric key', count: k + 1, pred: numKey },
      { label: '3 options', count: k, pred: (r) => nOpts(r) === 3 },
      { label: '5 options', count: k, pred: (r) => nOpts(r) === 5 },
    ]
    const all = src.rows.map((_r, i) => i)
    const idx = pick(src.rows, all, n, repoPath, rules, [], (r) => nOpts(r) === 4 && !numKey(r))
    await writeFixture(repoPath, src, idx)
  }
}

// ---------- MMLU ----------
const MMLU_TEST = 'cais/mmlu/all/test-00000-of-00001.parquet'
const MMLU_VAL = 'cais/mmlu/all/validation-00000-of-00001.parquet'
const SUBJECTS: Record<string, { test: number; validation: number }> = {
  moral_scenarios: { test: 20, validation: 10 },
  public_relations: { test: 30, validation: 12 },
  us_foreign_policy: { test: 30, validation: 11 },
}
const mTest = await load(MMLU_TEST)
const mVal = await load(MMLU_VAL)
const opts = (r: Row): string[] => r.choices as string[]
const norm = (s: string): string => s.normalize('NFKC').replace(/\s+/gu, ' ').trim().toLowerCase()
const qc = (r: Row): string => canon([r.question, r.choices])
const fullKey = (r: Row): string => canon(r)
const countBy = (rows: Row[], key: (r: Row) => string): Map<string, number> => {
  const m = new Map<string, number>()
  for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + 1)
  return m
}
const fullCounts = countBy(mTest.rows, fullKey)
const testQc = countBy(mTest.rows, qc)
const nonDistinct = (r: Row): boolean => new Set(opts(r).map(norm)).size !== opts(r).length
const isDup = (r: Row): boolean => (fullCounts.get(fullKey(r)) ?? 0) > 1
const inPicked = (r: Row): boolean => String(r.subject) in SUBJECTS
const valInTest = (r: Row): boolean => inPicked(r) && testQc.has(qc(r))
const valQc = new Set(mVal.rows.filter(valInTest).map(qc))

log('MMLU all/test, whole-file search:')
mTest.rows.forEach((r, i) => {
  if (nonDistinct(r)) log(`  non-distinct options: row ${i} ${r.subject}: ${short(r.question, 50)} ${canon(r.choices)}`)
})
const extra = (m: Map<string, number>): number => [...m.values()].reduce((a, c) => a + c - 1, 0)
log(`  rows repeating an earlier row exactly: ${extra(fullCounts)}; repeating (question, choices): ${extra(testQc)}`)
mVal.rows.forEach((r, i) => {
  if (testQc.has(qc(r))) log(`  validation row ${i} (${r.subject}) = a test row: ${short(r.question, 60)}`)
})

const META: Array<[string, RegExp]> = [
  ['"All of the above"', /\ball of the above\b/iu],
  ['"None of the above"', /\bnone of the above\b/iu],
  ['"Both X and Y"', /^both \(?[a-d]\)? and \(?[a-d]\)?\b/iu],
]
const testIdx: number[] = []
const valIdx: number[] = []
for (const [subject, quota] of Object.entries(SUBJECTS)) {
  for (const [split, src, out] of [
    ['test', mTest, testIdx],
    ['validation', mVal, valIdx],
  ] as const) {
    log(`cais/mmlu ${split} ${subject}`)
    const pool = src.rows.flatMap((r, i) => (r.subject === subject ? [i] : []))
    const forcedRules: Rule[] =
      split === 'test'
        ? [
            { label: 'exact duplicate row', count: Infinity, pred: isDup },
            { label: 'non-distinct options', count: Infinity, pred: nonDistinct },
            { label: 'also in validation', count: Infinity, pred: (r) => valQc.has(qc(r)) },
          ]
        : [{ label: 'also in test', count: Infinity, pred: valInTest }]
    const forced: number[] = []
    for (const rule of forcedRules) {
      for (const i of pool)
        if (rule.pred(src.rows[i]!) && !forced.includes(i)) {
          forced.push(i)
          log(`    + [${rule.label}] row ${i}: ${short(src.rows[i]!.question)}`)
        }
    }
    const rules: Rule[] =
      split === 'test' ? META.map(([label, re]) => ({ label, count: 1, pred: (r: Row) => opts(r).some((o) => re.test(o.trim())) })) : []
    out.push(
      ...pick(
        src.rows,
        pool,
        quota[split],
        `${MMLU_TEST}#${split}#${subject}`,
        rules.filter((ru) => pool.some((i) => ru.pred(src.rows[i]!))),
        forced,
      ),
    )
  }
}
await writeFixture(
  MMLU_TEST,
  mTest,
  testIdx.sort((a, b) => a - b),
)
await writeFixture(
  MMLU_VAL,
  mVal,
  valIdx.sort((a, b) => a - b),
)

// ---------- JCommonsenseQA ----------
{
  const repoPath = 'sbintuitions/JCommonsenseQA/data/validation-00000-of-00001.parquet'
  log(repoPath)
  const src = await load(repoPath)
  const rules: Rule[] = [0n, 1n, 2n, 3n, 4n].map((l) => ({ label: `label ${l}`, count: 1, pred: (r: Row) => r.label === l }))
  await writeFixture(
    repoPath,
    src,
    pick(
      src.rows,
      src.rows.map((_r, i) => i),
      60,
      repoPath,
      rules,
    ),
  )
}

// ---------- BoolQ ----------
{
  const repoPath = 'google/boolq/data/validation-00000-of-00001.parquet'
  log(repoPath)
  const src = await load(repoPath)
  const rules: Rule[] = [true, false].map((a) => ({
    label: `answer ${a}`,
    count: a ? 30 : 20,
    pred: (r: Row) => r.answer === a,
    quiet: true,
  }))
  await writeFixture(
    repoPath,
    src,
    pick(
      src.rows,
      src.rows.map((_r, i) => i),
      50,
      repoPath,
      rules,
    ),
  )
}

const total = Object.values(fixtureSizes).reduce((a, b) => a + b, 0)
log(`done: ${Object.keys(fixtureSizes).length} files, ${total} bytes in ${path.relative(ROOT, OUT)}`)
