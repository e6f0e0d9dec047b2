/**
 * Bad upstream data, one case at a time: a copy of the fixture Hub folder with
 * one file changed, built through the mirror fetcher. Each case ends in the
 * typed error README.md's "Bad input" table names — naming source, file, row
 * and field where there is a row — or in a counted drop that shows in the
 * manifest, the card and the CLI summary.
 */
import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { parquetMetadata, parquetReadObjects, parquetSchema, type SchemaElement } from 'hyparquet'
import { compressors as readers } from 'hyparquet-compressors'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { type BuiltDataset, buildFromSources } from '../src/build-io.ts'
import { buildDatasetCli } from '../src/cli/build-dataset.ts'
import { runCli } from '../src/cli/run.ts'
import { Manifest } from '../src/emit/manifest.ts'
import { outputBytes } from '../src/emit/outputs.ts'
import { ERROR_CODES, type ErrorCode, isJevError, type JevError } from '../src/errors.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { type Lock, readLock } from '../src/recipe/lock.ts'
import type { Recipe } from '../src/recipe/schema.ts'
import { normalize } from '../src/util/canonical.ts'
import { sha256Hex } from '../src/util/hash.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE, ROOT, runNode, STACK_FRAME } from './helpers/cli.ts'

type Row = Record<string, unknown>

/** Repo-relative fixture files, with the source and the path the recipe gives for each. */
const F = {
  arcC: {
    hub: 'allenai/ai2_arc/ARC-Challenge/test-00000-of-00001.parquet',
    source: 'arc_challenge',
    file: 'ARC-Challenge/test-00000-of-00001.parquet',
  },
  arcE: { hub: 'allenai/ai2_arc/ARC-Easy/test-00000-of-00001.parquet', source: 'arc_easy', file: 'ARC-Easy/test-00000-of-00001.parquet' },
  mmlu: { hub: 'cais/mmlu/all/test-00000-of-00001.parquet', source: 'mmlu', file: 'all/test-00000-of-00001.parquet' },
  jcqa: {
    hub: 'sbintuitions/JCommonsenseQA/data/validation-00000-of-00001.parquet',
    source: 'jcommonsenseqa',
    file: 'data/validation-00000-of-00001.parquet',
  },
  boolq: { hub: 'google/boolq/data/validation-00000-of-00001.parquet', source: 'boolq', file: 'data/validation-00000-of-00001.parquet' },
} as const
type FixtureFile = (typeof F)[keyof typeof F]

let tmp: string
let recipe: Recipe
let lock: Lock
let reference: BuiltDataset
let copies = 0

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-bad-input-'))
  recipe = await loadRecipe(FIXTURE_RECIPE)
  lock = (await readLock(join(ROOT, 'test/fixtures/recipe.lock.json')))!
  reference = await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { lock })
})
after(() => rm(tmp, { recursive: true, force: true }))

/** A fresh copy of the fixture Hub folder. */
async function hubCopy(): Promise<string> {
  const dir = join(tmp, `hub-${copies++}`)
  await cp(FIXTURE_HUB, dir, { recursive: true })
  return dir
}

const pathIn = (hub: string, f: FixtureFile) => join(hub, 'datasets', f.hub)

interface Rewrite {
  rows?: (rows: Row[]) => Row[]
  /** edits a copy of the flat schema element list (root first) */
  schema?: (schema: SchemaElement[]) => SchemaElement[]
  codec?: 'UNCOMPRESSED' | 'SNAPPY' | 'GZIP' | 'LZO' | 'BROTLI'
  compressors?: Record<string, (input: Uint8Array) => Uint8Array>
}

/** Writes `f` in `hub` again: other rows and/or another schema or codec; the rest as the file has it. */
async function rewrite(hub: string, f: FixtureFile, how: Rewrite): Promise<Uint8Array> {
  const file = pathIn(hub, f)
  const buf = await readFile(file)
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer
  const schema = (how.schema ?? ((s) => s))(structuredClone(parquetMetadata(ab).schema))
  const rows = (how.rows ?? ((r) => r))((await parquetReadObjects({ file: ab, compressors: readers })) as Row[])
  const names = parquetSchema({ schema } as Parameters<typeof parquetSchema>[0]).children.map((c) => c.element.name)
  const out = new Uint8Array(
    parquetWriteBuffer({
      columnData: names.map((name) => ({ name, data: rows.map((r) => r[name]) })),
      schema,
      codec: how.codec ?? 'SNAPPY',
      compressors: how.compressors,
    }),
  )
  await writeFile(file, out)
  return out
}

/** Changes one row (by position) with `edit`, which gets a deep copy. */
const editRow = (i: number, edit: (r: Row) => void) => (rows: Row[]) =>
  rows.map((r, j) => {
    if (j !== i) return r
    const copy = structuredClone(r)
    edit(copy)
    return copy
  })

/** A top-level leaf column removed from the schema (and so from the file). */
const withoutLeaf = (name: string) => (schema: SchemaElement[]) => {
  const i = schema.findIndex((e, k) => k > 0 && e.name === name && !e.num_children)
  assert.ok(i > 0, `leaf ${name} in the schema`)
  const root = { ...schema[0]!, num_children: schema[0]!.num_children! - 1 }
  return [root, ...schema.slice(1, i), ...schema.slice(i + 1)]
}

const build = (hub: string) => buildFromSources(recipe, createMirrorFetcher(hub), { lock: null })

interface Named {
  source: string
  file: string
  row?: number
  field?: string
}

/** The build fails with `code`, and the error names what `want` lists — in its context and its message. */
async function expectError(p: Promise<unknown>, code: ErrorCode, want: Named): Promise<JevError> {
  let caught: unknown
  await assert.rejects(p, (e: unknown) => {
    caught = e
    return true
  })
  assert.ok(isJevError(caught), `a JevError, not ${String(caught)}`)
  const e = caught
  assert.equal(e.code, code, e.message)
  assert.equal(e.context.source, want.source, `context.source in ${e.message}`)
  assert.equal(e.context.file, want.file, `context.file in ${e.message}`)
  assert.ok(e.message.startsWith(`${want.source}: `), `message starts with the source: ${e.message}`)
  assert.ok(e.message.includes(want.file), `message names the file: ${e.message}`)
  if (want.row !== undefined) {
    assert.equal(e.context.row, want.row, `context.row in ${e.message}`)
    assert.match(e.message, new RegExp(`\\brows? (\\d+ and )?${want.row}\\b`), `message names row ${want.row}`)
  }
  if (want.field !== undefined) {
    assert.equal(e.context.field, want.field, `context.field in ${e.message}`)
    assert.ok(e.message.includes(want.field), `message names the field ${want.field}: ${e.message}`)
  }
  assert.ok(!e.message.includes('\n'), 'one line')
  return e
}

describe('errors: the build stops, naming source, file, row and field', () => {
  test('a missing column: SCHEMA naming source, file and column, before any row', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.arcC, { schema: withoutLeaf('answerKey') })
    const e = await expectError(build(hub), 'SCHEMA', { source: F.arcC.source, file: F.arcC.file, field: 'answerKey' })
    assert.match(e.message, /has no column "answerKey" \(columns: id, question, choices\)/)
    assert.equal(e.context.row, undefined, 'a whole-file problem names no row')
  })

  test('a renamed column: SCHEMA naming the column the adapter needs, and listing the ones there are', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.mmlu, {
      schema: (s) => s.map((e) => (e.name === 'answer' ? { ...e, name: 'label' } : e)),
      rows: (rows) => rows.map(({ answer, ...r }) => ({ ...r, label: answer })),
    })
    const e = await expectError(build(hub), 'SCHEMA', { source: 'mmlu', file: F.mmlu.file, field: 'answer' })
    assert.match(e.message, /\(columns: question, subject, choices, label\)/)
  })

  test('a column of the wrong type (MMLU answer as a string): DATA at the first row, naming the field', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.mmlu, {
      schema: (s) =>
        s.map((e) =>
          e.name === 'answer'
            ? { name: 'answer', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8', logical_type: { type: 'STRING' } }
            : e,
        ),
      rows: (rows) => rows.map((r) => ({ ...r, answer: String(r.answer) })),
    })
    const e = await expectError(build(hub), 'DATA', { source: 'mmlu', file: F.mmlu.file, row: 0, field: 'answer' })
    assert.match(e.message, /expected an integer/, 'says what was expected')
  })

  test('a struct column of the wrong type (ARC choices as a string): DATA naming row 0 and choices', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.arcE, {
      schema: (s) => {
        const i = s.findIndex((e) => e.name === 'choices')
        // choices is a group of 6 elements: choices, text, list, element, label, list, element → 7 in all
        const leaf: SchemaElement = {
          name: 'choices',
          type: 'BYTE_ARRAY',
          repetition_type: 'OPTIONAL',
          converted_type: 'UTF8',
          logical_type: { type: 'STRING' },
        }
        return [...s.slice(0, i), leaf, ...s.slice(i + 7)]
      },
      rows: (rows) => rows.map((r) => ({ ...r, choices: JSON.stringify(r.choices) })),
    })
    await expectError(build(hub), 'DATA', { source: 'arc_easy', file: F.arcE.file, row: 0, field: 'choices' })
  })

  test('null question text (ARC): DATA naming the row and question', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.arcC, { rows: editRow(7, (r) => (r.question = null)) })
    await expectError(build(hub), 'DATA', { source: 'arc_challenge', file: F.arcC.file, row: 7, field: 'question' })
  })

  test('a null option inside a list (ARC choices.text[2]): DATA naming the row and choices.text.2', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.arcC, { rows: editRow(11, (r) => ((r.choices as { text: unknown[] }).text[2] = null)) })
    await expectError(build(hub), 'DATA', { source: 'arc_challenge', file: F.arcC.file, row: 11, field: 'choices.text.2' })
  })

  test('a null option column (JCommonsenseQA choice3): DATA naming the row and choice3', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.jcqa, { rows: editRow(4, (r) => (r.choice3 = null)) })
    await expectError(build(hub), 'DATA', { source: 'jcommonsenseqa', file: F.jcqa.file, row: 4, field: 'choice3' })
  })

  test('a null passage (BoolQ): DATA naming the row and passage', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.boolq, { rows: editRow(30, (r) => (r.passage = null)) })
    await expectError(build(hub), 'DATA', { source: 'boolq', file: F.boolq.file, row: 30, field: 'passage' })
  })

  test('answer index out of range: MMLU answer 4 of 4 choices, MMLU −1, JCommonsenseQA label 5', async () => {
    let hub = await hubCopy()
    await rewrite(hub, F.mmlu, { rows: editRow(13, (r) => (r.answer = BigInt((r.choices as unknown[]).length))) })
    let e = await expectError(build(hub), 'DATA', { source: 'mmlu', file: F.mmlu.file, row: 13, field: 'answer' })
    assert.match(e.message, /index 4 is outside the 4 choices/)

    hub = await hubCopy()
    await rewrite(hub, F.mmlu, { rows: editRow(2, (r) => (r.answer = -1n)) })
    await expectError(build(hub), 'DATA', { source: 'mmlu', file: F.mmlu.file, row: 2, field: 'answer' })

    hub = await hubCopy()
    await rewrite(hub, F.jcqa, { rows: editRow(21, (r) => (r.label = 5n)) })
    e = await expectError(build(hub), 'DATA', { source: 'jcommonsenseqa', file: F.jcqa.file, row: 21, field: 'label' })
    assert.match(e.message, /index 5 is outside the 5 choices/)
  })

  test('an ARC answer key that is not one of the labels: DATA naming answerKey', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.arcE, { rows: editRow(3, (r) => (r.answerKey = 'Z')) })
    const e = await expectError(build(hub), 'DATA', { source: 'arc_easy', file: F.arcE.file, row: 3, field: 'answerKey' })
    assert.match(e.message, /"Z" is not one of the labels/)
  })

  test('ARC texts and labels of different lengths: DATA naming choices', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.arcE, { rows: editRow(9, (r) => (r.choices as { label: unknown[] }).label.pop()) })
    await expectError(build(hub), 'DATA', { source: 'arc_easy', file: F.arcE.file, row: 9, field: 'choices' })
  })

  test('empty option lists: ARC choices.text [] and MMLU choices [] are DATA errors naming the list', async () => {
    let hub = await hubCopy()
    await rewrite(hub, F.arcC, { rows: editRow(5, (r) => (r.choices = { text: [], label: [] })) })
    await expectError(build(hub), 'DATA', { source: 'arc_challenge', file: F.arcC.file, row: 5, field: 'choices.text' })

    hub = await hubCopy()
    await rewrite(hub, F.mmlu, { rows: editRow(6, (r) => (r.choices = [])) })
    await expectError(build(hub), 'DATA', { source: 'mmlu', file: F.mmlu.file, row: 6, field: 'choices' })
  })

  test('the same ARC id twice with different content: DATA naming both rows and the id', async () => {
    const hub = await hubCopy()
    const rows = await readRowsOf(F.arcC)
    const id = String(rows[2]!.id)
    await rewrite(hub, F.arcC, { rows: editRow(17, (r) => (r.id = id)) })
    const e = await expectError(build(hub), 'DATA', { source: 'arc_challenge', file: F.arcC.file, row: 17 })
    assert.match(e.message, new RegExp(`${F.arcC.file} row 2 and ${F.arcC.file} row 17 share the id arc_challenge-${id} but differ`))
    assert.equal(e.context.field, 'id')
    assert.equal(e.context.id, `arc_challenge-${id}`)
  })

  test('the same JCommonsenseQA q_id twice with different content: DATA naming both rows', async () => {
    const hub = await hubCopy()
    const rows = await readRowsOf(F.jcqa)
    await rewrite(hub, F.jcqa, { rows: editRow(40, (r) => (r.q_id = rows[1]!.q_id)) })
    const e = await expectError(build(hub), 'DATA', { source: 'jcommonsenseqa', file: F.jcqa.file, row: 40 })
    assert.match(e.message, /row 1 and .* row 40 share the id jcommonsenseqa-\d+ but differ/)
  })

  test('a value JSON cannot hold (NaN in an extra DOUBLE column): DATA naming the row and that column, not a crash', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.boolq, {
      schema: (s) => [
        { ...s[0]!, num_children: s[0]!.num_children! + 1 },
        ...s.slice(1),
        { name: 'score', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
      ],
      rows: (rows) => rows.map((r, i) => ({ ...r, score: i === 12 ? Number.NaN : i / 2 })),
    })
    await expectError(build(hub), 'DATA', { source: 'boolq', file: F.boolq.file, row: 12, field: 'score' })
  })

  test('a truncated file, an empty file and a file that is not Parquet: DATA naming source and file', async () => {
    for (const [what, bytes] of [
      ['truncated', async (b: Buffer) => b.subarray(0, Math.floor(b.length / 2))],
      ['cut before the footer', async (b: Buffer) => b.subarray(0, b.length - 9)],
      ['empty', async () => Buffer.alloc(0)],
      ['CSV', async () => Buffer.from('id,question,answerKey\nMercury_1,Which is a gas?,A\n')],
      ['magic only', async () => Buffer.from('PAR1PAR1')],
    ] as const) {
      const hub = await hubCopy()
      const file = pathIn(hub, F.jcqa)
      await writeFile(file, await bytes(await readFile(file)))
      const e = await expectError(build(hub), 'DATA', { source: 'jcommonsenseqa', file: F.jcqa.file })
      assert.match(e.message, /is not a readable Parquet file/, what)
    }
  })

  test('a compression codec the decoder cannot read (LZO, a real Parquet codec): DATA naming source, file and column', async () => {
    const hub = await hubCopy()
    // the bytes are stored as they are; the footer says LZO, which hyparquet-compressors does not implement
    await rewrite(hub, F.mmlu, { codec: 'LZO', compressors: { LZO: (b) => b } })
    const e = await expectError(build(hub), 'DATA', { source: 'mmlu', file: F.mmlu.file, field: 'question' })
    assert.match(
      e.message,
      /column question: compression codec LZO cannot be read \(supported: UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD, LZ4, LZ4_RAW\)/,
    )
    assert.equal(e.context.codec, 'LZO')
  })

  test('a codec id no Parquet version defines (63, patched into the footer): DATA naming the column', async () => {
    const hub = await hubCopy()
    // the same rows stored uncompressed and "LZO" (identity) differ only in the footer's codec fields
    const plain = await rewrite(hub, F.boolq, { codec: 'UNCOMPRESSED' })
    const lzo = await rewrite(hub, F.boolq, { codec: 'LZO', compressors: { LZO: (b) => b } })
    assert.equal(plain.length, lzo.length)
    const diff = [...plain.keys()].filter((i) => plain[i] !== lzo[i])
    assert.deepEqual(
      diff.map((i) => [plain[i], lzo[i]]),
      diff.map(() => [0x00, 0x06]),
      'zigzag varints of codec 0 and 3',
    )
    assert.equal(diff.length, 3, 'one codec field per column')
    const patched = plain.slice()
    for (const i of diff) patched[i] = 0x7e // zigzag 63: one byte, like the others
    await writeFile(pathIn(hub, F.boolq), patched)
    const e = await expectError(build(hub), 'DATA', { source: 'boolq', file: F.boolq.file, field: 'question' })
    assert.match(e.message, /compression codec \(unknown\) cannot be read/)
  })
})

describe('readable but different encodings build the same dataset', () => {
  test('GZIP, BROTLI and UNCOMPRESSED copies of the same rows: byte-identical output; the frozen lock only warns', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.mmlu, { codec: 'GZIP', compressors: { GZIP: (b) => gzipSync(b) } })
    await rewrite(hub, F.boolq, { codec: 'BROTLI', compressors: { BROTLI: (b) => brotliCompressSync(b) } })
    await rewrite(hub, F.arcC, { codec: 'UNCOMPRESSED' })
    const built = await buildFromSources(recipe, createMirrorFetcher(hub), { lock })
    for (const [name, content] of reference.files) assert.equal(built.files.get(name), content, name)
    for (const f of [F.mmlu, F.boolq, F.arcC])
      assert.ok(
        built.warnings.some((w) => w.startsWith(`${f.source}: ${f.file} has other bytes than the lock`)),
        `${f.source} warned`,
      )
    assert.equal(built.warnings.length, 3)
  })
})

describe('counted drops: in the manifest, the card and the CLI summary', () => {
  test('empty option text, empty question, options not distinct and an exact repeat row', async () => {
    const hub = await hubCopy()
    // arc_challenge: one option emptied, and row 0 repeated exactly at the end
    await rewrite(hub, F.arcC, {
      rows: (rows) => [...editRow(8, (r) => ((r.choices as { text: string[] }).text[1] = ''))(rows), structuredClone(rows[0]!)],
    })
    // arc_easy: two options equal once normalised (case, surrounding and inner white space)
    await rewrite(hub, F.arcE, {
      rows: editRow(20, (r) => {
        const t = (r.choices as { text: string[] }).text
        t[2] = `  ${t[0]!.toUpperCase().replace(' ', '   ')}  `
      }),
    })
    // jcommonsenseqa: a question of white space only
    await rewrite(hub, F.jcqa, { rows: editRow(15, (r) => (r.question = ' \u3000 ')) })

    const want = {
      arc_challenge: { empty_text: 1, duplicate_row: 1 },
      arc_easy: { options_not_distinct: 1 },
      jcommonsenseqa: { empty_text: 1 },
    }
    const before = Object.fromEntries([...reference.drops].map(([s, d]) => [s, Object.fromEntries(d)]))
    for (const [s, d] of Object.entries(want))
      for (const r of Object.keys(d)) assert.equal(before[s]?.[r], undefined, `the reference build has no ${s} ${r} drop`)

    // through the CLI, in-process: exit 0, a summary, and the written manifest and card
    const out = join(tmp, 'drops-out')
    const io = collectIo()
    const status = await runCli(
      () =>
        buildDatasetCli(
          ['--recipe', FIXTURE_RECIPE, '--mirror', hub, '--out', out, '--update-lock', '--lock', join(tmp, 'drops.lock.json')],
          {},
          io.io,
        ),
      io.io,
      false,
    )
    assert.equal(status, 0, io.text())
    const manifest = Manifest.parse(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')))
    const card = await readFile(join(out, 'README.md'), 'utf8')
    const sources = recipe.sources.map((s) => s.name)
    for (const [source, reasons] of Object.entries(want)) {
      for (const [reason, n] of Object.entries(reasons)) {
        assert.equal(manifest.drops[source]?.[reason], n, `manifest: ${source} ${reason}`)
        assert.ok(io.out.includes(`  ${source}: ${reason} ${n}`), `summary line "${source}: ${reason} ${n}" in\n${io.text()}`)
        // the card's drop table: one row per reason, one column per source, then the total
        const row = card.split('\n').find((l) => l.startsWith(`| ${reason} — `))
        assert.ok(row, `card has a ${reason} row`)
        const cells = row
          .split('|')
          .slice(2, -1)
          .map((c) => Number(c.trim()))
        assert.equal(cells[sources.indexOf(source)], n, `card: ${source} ${reason} in ${row}`)
      }
    }
    // everything else is as in the reference build
    for (const [source, reasons] of Object.entries(manifest.drops))
      for (const [reason, n] of Object.entries(reasons))
        if (!(want as Record<string, Record<string, number>>)[source]?.[reason])
          assert.equal(n, before[source]?.[reason], `${source} ${reason} unchanged`)
  })
})

describe('the CLI', () => {
  test('a DATA error as a subprocess: one error[DATA] line naming source, file, row and field, a hint, exit 3, no stack, no output', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.mmlu, { rows: editRow(13, (r) => (r.answer = 9n)) })
    const out = join(tmp, 'cli-data-out')
    const r = await runNode('build-dataset.ts', [
      '--recipe',
      FIXTURE_RECIPE,
      '--mirror',
      hub,
      '--out',
      out,
      '--update-lock',
      '--lock',
      join(tmp, 'cli.lock.json'),
    ])
    assert.equal(r.status, ERROR_CODES.DATA.exit)
    assert.equal(r.status, 3)
    assert.equal(r.stdout, '')
    assert.equal(
      r.stderr,
      `error[DATA]: mmlu: ${F.mmlu.file} row 13, field answer: index 9 is outside the 4 choices\nhint: ${ERROR_CODES.DATA.hint}\n`,
    )
    assert.ok(!r.stderr.split('\n').some((l) => STACK_FRAME.test(l)))
    await assert.rejects(readFile(join(out, 'manifest.json')), 'nothing written')
  })

  test('a SCHEMA error in-process: error[SCHEMA] line, the hint, exit 3', async () => {
    const hub = await hubCopy()
    await rewrite(hub, F.boolq, { schema: withoutLeaf('passage') })
    const io = collectIo()
    const status = await runCli(
      () =>
        buildDatasetCli(
          [
            '--recipe',
            FIXTURE_RECIPE,
            '--mirror',
            hub,
            '--out',
            join(tmp, 'cli-schema-out'),
            '--update-lock',
            '--lock',
            join(tmp, 's.lock.json'),
          ],
          {},
          io.io,
        ),
      io.io,
      false,
    )
    assert.equal(status, 3)
    assert.deepEqual(io.err, [
      `error[SCHEMA]: boolq: ${F.boolq.file} has no column "passage" (columns: question, answer)`,
      `hint: ${ERROR_CODES.SCHEMA.hint}`,
    ])
  })
})

describe("a recipe's pinned screening file", () => {
  /** The fixture recipe, written into its own folder with a screening file beside it, read back as a build reads it. */
  async function screenedRecipe(
    name: string,
    text: string,
    pin?: string,
    screened = true,
    quotas?: unknown,
    allowUnscreened = false,
  ): Promise<Recipe> {
    const dir = join(tmp, `screened-${name}`)
    await cp(join(ROOT, 'test/fixtures'), dir, { recursive: true })
    const json = JSON.parse(await readFile(join(dir, 'recipe.json'), 'utf8'))
    const screen = screened
      ? { screened: { path: 'screened.json', sha256: pin ?? sha256Hex(text), ...(allowUnscreened && { allowUnscreened }) } }
      : {}
    json.distractors.borrow.plausible = { ...json.distractors.borrow.plausible, ...screen }
    if (quotas) json.quotas = quotas
    await writeFile(join(dir, 'screened.json'), text)
    await writeFile(join(dir, 'recipe.json'), JSON.stringify(json))
    return loadRecipe(join(dir, 'recipe.json'))
  }
  const refusal = (code: ErrorCode, says: RegExp) => (e: unknown) => isJevError(e) && e.code === code && says.test(e.message)

  test('is checked against its sha256, and must be JSON of the screening schema; each error names the file', async () => {
    const good = JSON.stringify({ protocol: 'p', items: { x: { shown: ['a'], marks: 'a' } } })
    await assert.rejects(
      buildFromSources(await screenedRecipe('sha', good, '0'.repeat(64)), createMirrorFetcher(FIXTURE_HUB), { lock: null }),
      refusal('LOCK', /screened\.json: sha256 is [0-9a-f]{64}, the recipe pins 0{64}/),
    )
    await assert.rejects(
      buildFromSources(await screenedRecipe('json', '{'), createMirrorFetcher(FIXTURE_HUB), { lock: null }),
      refusal('RECIPE', /screened\.json: not JSON/),
    )
    const bad = JSON.stringify({ protocol: 'p', items: { x: { shown: ['a', 'b'], marks: 'a' } } })
    await assert.rejects(
      buildFromSources(await screenedRecipe('schema', bad), createMirrorFetcher(FIXTURE_HUB), { lock: null }),
      refusal('RECIPE', /screened\.json: not a screened-candidates file: at \$\.items\.x: one mark per candidate shown/),
    )
  })

  test("that names none of the recipe's items is refused, and one that names some others is a warning", async () => {
    const strangers = JSON.stringify({ protocol: 'p', items: { 'arc_easy-nowhere': { shown: ['a'], marks: 'a' } } })
    await assert.rejects(
      buildFromSources(await screenedRecipe('none', strangers), createMirrorFetcher(FIXTURE_HUB), { lock: null }),
      refusal('RECIPE', /screened\.json screens none of the recipe's items \(1 ids, e\.g\. arc_easy-nowhere\)/),
    )
    // unless the recipe lets items borrow unscreened: then the build goes on, and says every option was lent unscreened
    const unscreened = await buildFromSources(
      await screenedRecipe('none-open', strangers, undefined, true, undefined, true),
      createMirrorFetcher(FIXTURE_HUB),
      { lock: null },
    )
    assert.ok(
      unscreened.warnings.some((w) =>
        /screened\.json screens none of the recipe's items \(1 ids, .*\); every option is lent unscreened$/.test(w),
      ),
      unscreened.warnings.join('\n'),
    )
    // a screen that accepts what an unscreened build lent, plus one stranger: the build goes on, and says so
    const open = await buildFromSources(await screenedRecipe('open', '{}', undefined, false), createMirrorFetcher(FIXTURE_HUB), {
      lock: null,
    })
    const text = (path: string) => Buffer.from(outputBytes(open.files.get(path)!)).toString('utf8')
    const records = new Map(
      ['test.jsonl', 'val.jsonl'].flatMap((p) =>
        text(p)
          .split('\n')
          .filter((l) => l)
          .map((l) => {
            const r = JSON.parse(l) as { id: string; choices: string[] }
            return [r.id, r] as const
          }),
      ),
    )
    const items: Record<string, { shown: string[]; marks: string }> = { 'arc_easy-nowhere': { shown: ['a'], marks: 'a' } }
    for (const line of text('provenance.jsonl')
      .split('\n')
      .filter((l) => l)) {
      const p = JSON.parse(line) as { id: string; choices: { from: string }[] }
      const lent = p.choices.flatMap((c, i) => (c.from === 'borrowed' ? [normalize(records.get(p.id)!.choices[i]!)] : []))
      if (lent.length) items[p.id] = { shown: lent, marks: 'a'.repeat(lent.length) }
    }
    const some = Object.keys(items).length
    assert.ok(some > 1)
    // tables every item meets with its own options (BoolQ's two, three for the rest): a screen as tight as what one build
    // lent leaves the deal of option counts no room to trade, and the point here is the warning
    const zero = { '4': 0, '5': 0, '6': 0, '7': 0, '8': 0 }
    const own = { test: { '2': 10, '3': 64, ...zero }, val: { '2': 6, '3': 26, ...zero } }
    const built = await buildFromSources(
      await screenedRecipe('some', JSON.stringify({ protocol: 'p', items }), undefined, true, own),
      createMirrorFetcher(FIXTURE_HUB),
      { lock: null },
    )
    assert.ok(
      built.warnings.includes(
        `screened.json: 1 of its ${some} items are on no side of this recipe (e.g. arc_easy-nowhere); they lend nothing`,
      ),
      built.warnings.join('\n'),
    )
  })
})

async function readRowsOf(f: FixtureFile): Promise<Row[]> {
  const buf = await readFile(join(FIXTURE_HUB, 'datasets', f.hub))
  return (await parquetReadObjects({
    file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer,
    compressors: readers,
  })) as Row[]
}
