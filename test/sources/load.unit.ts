/**
 * loadSource streams a file a row group at a time when the lock vouches for
 * its bytes: the rows, their numbers in errors and the rows hash must be what
 * a whole-file decode gives, however the file is cut into row groups.
 */
import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { parquetMetadata, parquetSchema } from 'hyparquet'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { createMirrorFetcher } from '../../src/fetch/mirror.ts'
import { loadSource } from '../../src/load-sources.ts'
import { loadRecipe } from '../../src/recipe/load.ts'
import type { SourceSpec } from '../../src/recipe/schema.ts'
import { sha256Hex } from '../../src/util/hash.ts'
import { NO_PROGRESS, type Progress } from '../../src/util/progress.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE } from '../helpers/cli.ts'
import { rejectsWith } from '../helpers/errors.ts'
import { type Row, readRows } from '../helpers/parquet.ts'

const PATH = 'all/test-00000-of-00001.parquet'
const TEST_FILE = `cais/mmlu/${PATH}`
let hub: string
let spec: SourceSpec

before(async () => {
  hub = await mkdtemp(join(tmpdir(), 'jev-load-'))
  await cp(FIXTURE_HUB, hub, { recursive: true })
  spec = (await loadRecipe(FIXTURE_RECIPE)).sources.find((s) => s.name === 'mmlu')!
})
after(() => rm(hub, { recursive: true, force: true }))

/** Rewrites the test file with these rows in row groups of `size`, returning its sha256. */
async function writeGroups(rows: Row[], size: number): Promise<string> {
  const file = join(hub, 'datasets', TEST_FILE)
  const original = await readFile(join(FIXTURE_HUB, 'datasets', TEST_FILE))
  const { schema } = parquetMetadata(original.buffer.slice(original.byteOffset, original.byteOffset + original.byteLength) as ArrayBuffer)
  const names = parquetSchema({ schema } as Parameters<typeof parquetSchema>[0]).children.map((c) => c.element.name)
  const bytes = new Uint8Array(
    parquetWriteBuffer({
      columnData: names.map((name) => ({ name, data: rows.map((r) => r[name]) })),
      schema,
      codec: 'SNAPPY',
      rowGroupSize: size,
    }),
  )
  const groups = parquetMetadata(bytes.buffer as ArrayBuffer).row_groups.length
  assert.equal(groups, Math.ceil(rows.length / size))
  await writeFile(file, bytes)
  return sha256Hex(bytes)
}

const load = (trusted: Set<string>) => loadSource(spec, spec.revision, createMirrorFetcher(hub), { trusted })

test('a file in several row groups loads to the same questions and rows hash as in one, trusted or not', async () => {
  const rows = await readRows(join(FIXTURE_HUB, 'datasets', TEST_FILE))
  assert.ok(rows.length > 10)
  await writeGroups(rows, rows.length)
  const whole = await load(new Set())
  const sha = await writeGroups(rows, 4)
  const streamed = await load(new Set([sha]))
  const isolated = await load(new Set())
  for (const got of [streamed, isolated]) {
    assert.deepEqual(got.questions, whole.questions)
    assert.deepEqual(
      got.files.map((f) => [f.path, f.rows, f.rowsHash]),
      whole.files.map((f) => [f.path, f.rows, f.rowsHash]),
    )
  }
  // row numbers run on across groups
  assert.deepEqual(
    streamed.questions.filter((q) => q.file === PATH).map((q) => q.row),
    rows.map((_, i) => i),
  )
})

test('a bad row in a later row group is named by its row in the file', async () => {
  const rows = await readRows(join(FIXTURE_HUB, 'datasets', TEST_FILE))
  const bad = 9
  rows[bad] = { ...rows[bad]!, answer: 7n }
  const sha = await writeGroups(rows, 4)
  const e = await rejectsWith(load(new Set([sha])), 'DATA')
  assert.deepEqual([e.context.file, e.context.row, e.context.field], [PATH, bad, 'answer'])
  assert.match(e.message, new RegExp(`${PATH} row ${bad}, field answer`))
})

test('rows are reported per file as they are decoded, of the total the Parquet metadata gives, a row group at a time, trusted or through the worker', async () => {
  const rows = await readRows(join(FIXTURE_HUB, 'datasets', TEST_FILE))
  const sha = await writeGroups(rows, 4)
  for (const trusted of [new Set([sha]), new Set<string>()]) {
    const seen: [string, number, number | undefined][] = []
    const progress: Progress = { ...NO_PROGRESS, rows: (label, n, total) => void seen.push([label, n, total]) }
    await loadSource(spec, spec.revision, createMirrorFetcher(hub), { trusted, progress })
    const test = seen.filter(([label]) => label === 'mmlu test')
    assert.deepEqual(test[0], ['mmlu test', 0, rows.length], 'the total first, before any row')
    assert.deepEqual(test.at(-1), ['mmlu test', rows.length, rows.length])
    assert.equal(test.length, 1 + Math.ceil(rows.length / 4), `one update per row group (${trusted.size ? 'trusted' : 'worker'})`)
    assert.ok(seen.some(([label, n, total]) => label === 'mmlu validation' && n === total && n > 0))
  }
})
