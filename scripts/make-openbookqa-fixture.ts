// Writes the OpenBookQA-shaped test fixture: a source no built-in kind covers, added by a recipe alone.
//   npx tsx scripts/make-openbookqa-fixture.ts
// Writes test/fixtures/openbookqa/hub/datasets/allenai/openbookqa/main/{test,validation}-00000-of-00001.parquet
// in the schema of allenai/openbookqa's `main` config (id, question_stem, choices struct<text, label>, answerKey).
// OpenBookQA is not in the mirror, so the rows are written here by hand in its style, not cut from upstream data.
// Deterministic: the same bytes every run; each file is read back and compared with its rows.
import { deepStrictEqual } from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parquetReadObjects, type SchemaElement } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { parquetWriteBuffer } from 'hyparquet-writer'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const OUT = path.join(ROOT, 'test/fixtures/openbookqa/hub/datasets/allenai/openbookqa/main')

type Row = { id: string; question_stem: string; choices: { text: string[]; label: string[] }; answerKey: string }
const row = (id: string, question_stem: string, text: string[], answerKey: string): Row => ({
  id,
  question_stem,
  choices: { text, label: ['A', 'B', 'C', 'D'] },
  answerKey,
})

const TEST: Row[] = [
  row(
    '7-980',
    'The sun is responsible for',
    [
      'puppies learning new tricks',
      'children growing up and getting old',
      'flowers wilting in a vase',
      'plants sprouting, blooming and wilting',
    ],
    'D',
  ),
  row('7-584', 'When water freezes it becomes', ['a gas', 'a solid', 'a plasma', 'warmer'], 'B'),
  row(
    '8-376',
    'Which of these would let the most heat travel through?',
    ['a wooden spoon', 'a plastic cup', 'a steel pan', 'a wool sock'],
    'C',
  ),
  row('9-743', 'A magnet will stick to', ['a glass window', 'an iron nail', 'a rubber ball', 'a paper bag'], 'B'),
  row('9-1163', 'Seeds are often spread by', ['rocks', 'animals', 'clouds', 'shadows'], 'B'),
  row('8-183', 'The moon shines at night because it', ['makes its own light', 'reflects sunlight', 'is on fire', 'is made of ice'], 'B'),
  row('7-1186', 'Which animal has fur to stay warm?', ['a trout', 'a lizard', 'a bear', 'a frog'], 'C'),
  row('9-794', 'A plant needs which of these to make food?', ['sand', 'sunlight', 'darkness', 'salt'], 'B'),
  row('8-451', 'An example of a renewable resource is', ['coal', 'oil', 'wind', 'natural gas'], 'C'),
  row('7-118', 'Sound travels fastest through', ['a vacuum', 'air', 'steel', 'a pillow'], 'C'),
  row('9-322', 'Erosion of a riverbank is mostly caused by', ['moving water', 'moonlight', 'birdsong', 'frost on leaves'], 'A'),
  row('8-27', 'The main job of the roots of a tree is to', ['catch insects', 'take in water', 'make flowers', 'shed bark'], 'B'),
]
const VALIDATION: Row[] = [
  row('8-255', 'A thermometer is used to measure', ['length', 'mass', 'temperature', 'speed'], 'C'),
  row('7-455', 'Which of these is a source of light?', ['a mirror', 'a candle flame', 'a window', 'a puddle'], 'B'),
  row('9-57', 'Rain falls from clouds because of', ['gravity', 'magnetism', 'friction', 'sound'], 'A'),
  row('8-910', 'A caterpillar later turns into a', ['beetle', 'butterfly', 'spider', 'worm'], 'B'),
  row('7-33', 'The Earth takes about how long to orbit the sun?', ['one day', 'one month', 'one year', 'one hour'], 'C'),
  row(
    '9-640',
    'Ice melting on a warm day is an example of',
    ['a chemical change', 'a phase change', 'condensation', 'evaporation of metal'],
    'B',
  ),
]

const string = (name: string): SchemaElement => ({
  type: 'BYTE_ARRAY',
  repetition_type: 'OPTIONAL',
  name,
  converted_type: 'UTF8',
  logical_type: { type: 'STRING' },
})
const list = (name: string): SchemaElement[] => [
  { repetition_type: 'OPTIONAL', name, num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
  { repetition_type: 'REPEATED', name: 'list', num_children: 1 },
  string('element'),
]
// the layout the Hub's converter gives a Sequence of {text, label} (as allenai/ai2_arc's choices, in the other fixtures)
const SCHEMA: SchemaElement[] = [
  { name: 'arrow_schema', num_children: 4 },
  string('id'),
  string('question_stem'),
  { repetition_type: 'OPTIONAL', name: 'choices', num_children: 2 },
  ...list('text'),
  ...list('label'),
  string('answerKey'),
]
const FEATURES = {
  info: {
    features: {
      id: { dtype: 'string', _type: 'Value' },
      question_stem: { dtype: 'string', _type: 'Value' },
      choices: { feature: { text: { dtype: 'string', _type: 'Value' }, label: { dtype: 'string', _type: 'Value' } }, _type: 'Sequence' },
      answerKey: { dtype: 'string', _type: 'Value' },
    },
  },
}

async function write(split: string, rows: Row[]): Promise<void> {
  const columns = ['id', 'question_stem', 'choices', 'answerKey'] as const
  const buf = parquetWriteBuffer({
    columnData: columns.map((name) => ({ name, data: rows.map((r) => r[name]) })),
    schema: SCHEMA,
    codec: 'SNAPPY',
    kvMetadata: [{ key: 'huggingface', value: JSON.stringify(FEATURES) }],
    createdBy: 'hyparquet-writer 0.17.0 (jev-bench scripts/make-openbookqa-fixture.ts)',
  })
  const back = await parquetReadObjects({ file: buf, compressors })
  deepStrictEqual(back, rows)
  mkdirSync(OUT, { recursive: true })
  writeFileSync(path.join(OUT, `${split}-00000-of-00001.parquet`), new Uint8Array(buf))
  process.stdout.write(`${split}: ${rows.length} rows, ${buf.byteLength} bytes\n`)
}

await write('test', TEST)
await write('validation', VALIDATION)
