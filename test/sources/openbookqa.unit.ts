/**
 * The proof that a source is data: test/fixtures/openbookqa/recipe.json adds a
 * fifth source, OpenBookQA-shaped (`question_stem`, `choices.{text,label}`,
 * `answerKey`), with an inline `mapping` and `card` and nothing else. No file
 * under src/ knows of it — this test needs no src/ edit to pass. It builds
 * through the CLI from the fixture hub plus the OpenBookQA fixture, and
 * check-dataset must accept the result.
 */
import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildDatasetCli } from '../../src/cli/build-dataset.ts'
import { checkDatasetCli } from '../../src/cli/check-dataset.ts'
import { runCli } from '../../src/cli/run.ts'
import type { DataRecord } from '../../src/emit/schema.ts'
import { SPLITS } from '../../src/recipe/schema.ts'
import { collectIo, FIXTURE_HUB, ROOT } from '../helpers/cli.ts'
import { readRows } from '../helpers/parquet.ts'

const FIXTURE = join(ROOT, 'test/fixtures/openbookqa')
const RECIPE = join(FIXTURE, 'recipe.json')
const FILES = { test: 'main/test-00000-of-00001.parquet', val: 'main/validation-00000-of-00001.parquet' }
let tmp: string
let out: string
let card: string
const records: Record<string, DataRecord[]> = {}
type ObqaRow = { id: string; question_stem: string; choices: { text: string[]; label: string[] }; answerKey: string }
const upstream: Record<string, ObqaRow[]> = {}

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-openbookqa-'))
  // one mirror: the four sources' fixtures and OpenBookQA's, in Hub layout
  const mirror = join(tmp, 'hub')
  await cp(FIXTURE_HUB, mirror, { recursive: true })
  await cp(join(FIXTURE, 'hub'), mirror, { recursive: true })
  out = join(tmp, 'out')
  const c = collectIo()
  const status = await runCli(
    () => buildDatasetCli(['--recipe', RECIPE, '--mirror', mirror, '--out', out, '--lock', join(tmp, 'lock.json')], {}, c.io),
    c.io,
    false,
  )
  assert.equal(status, 0, c.text())
  card = await readFile(join(out, 'README.md'), 'utf8')
  for (const split of SPLITS) {
    const lines = (await readFile(join(out, `${split}.jsonl`), 'utf8')).trimEnd().split('\n')
    records[split] = lines.map((l) => JSON.parse(l) as DataRecord).filter((r) => r.source === 'openbookqa')
    upstream[split] = (await readRows(join(mirror, 'datasets/allenai/openbookqa', FILES[split]))) as ObqaRow[]
  }
})
after(() => rm(tmp, { recursive: true, force: true }))

test('the fifth source gives the counts the recipe asks for, each record its upstream row', () => {
  assert.equal(records.test!.length, 8)
  assert.equal(records.val!.length, 4)
  for (const split of SPLITS) {
    for (const r of records[split]!) {
      // the upstream id column, prefixed with the source
      const row = upstream[split]!.find((u) => `openbookqa-${u.id}` === r.id)
      assert.ok(row, `${split} ${r.id} is a row of ${FILES[split]}`)
      assert.equal(r.question, row.question_stem)
      assert.equal(r.context, null)
      // the right option is the text under the answerKey's label
      assert.equal(r.choices[r.answer_idx], row.choices.text[row.choices.label.indexOf(row.answerKey)])
    }
  }
})

test('the card attributes it from the recipe and lists it as a source', () => {
  assert.ok(
    card.includes(
      '\n- OpenBookQA — Apache 2.0; Mihaylov et al., 2018, "Can a Suit of Armor Conduct Electricity? A New Dataset for Open Book Question Answering"\n',
    ),
    'licence and citation line',
  )
  assert.match(card, /^source_datasets:\n(- .+\n)*- allenai\/openbookqa\n/m)
  assert.match(card, /\| source \| string \| jcommonsenseqa, mmlu, arc_challenge, arc_easy, boolq, openbookqa \|/)
  assert.match(card, /\| openbookqa \| `allenai\/openbookqa` \| main \|/)
})

test('check-dataset accepts the build', async () => {
  const c = collectIo()
  const status = await runCli(() => checkDatasetCli([out, '--recipe', RECIPE], {}, c.io), c.io, false)
  assert.equal(status, 0, c.text())
  assert.deepEqual(c.out, [`ok: ${out}/ meets the spec`])
})
