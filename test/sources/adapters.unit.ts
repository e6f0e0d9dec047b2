import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, test } from 'node:test'
import { adaptRow, canonicalRowAt, contentId, type RowAt } from '../../src/adapt/adapter.ts'
import { SourceDescriptor } from '../../src/adapt/descriptor.ts'
import { kindFromDescriptor, SOURCE_KINDS } from '../../src/adapt/kinds.ts'
import { isJevError } from '../../src/errors.ts'
import { sha256Digest } from '../../src/util/hash.ts'

/** A row's hash as the rows hash takes it (sources/load.ts): the digest of its canonical JSON. */
const hashRow = (row: unknown, at: RowAt) => sha256Digest(canonicalRowAt(row, at).json)

// the built-in kinds are descriptors over the one generic adapter
const { arc, mmlu, jcommonsenseqa, boolq } = Object.fromEntries(Object.entries(SOURCE_KINDS).map(([k, v]) => [k, v.adapter])) as Record<
  keyof typeof SOURCE_KINDS,
  (typeof SOURCE_KINDS)['arc']['adapter']
>

const at = (source: string, row = 7) => ({ source, file: 'x/test-00000-of-00001.parquet', row })

/** Asserts a DATA error that names the field, the file and the row. */
function dataError(field: string, row = 7) {
  return (e: unknown) => {
    assert.ok(isJevError(e), String(e))
    assert.equal(e.code, 'DATA')
    assert.equal(e.context.field, field)
    assert.equal(e.context.row, row)
    assert.equal(e.context.file, 'x/test-00000-of-00001.parquet')
    assert.match(e.message, new RegExp(`row ${row}\\b.*field ${field}\\b`))
    return true
  }
}

describe('arc', () => {
  const row = (answerKey: string, label = ['A', 'B', 'C', 'D']) => ({
    id: 'Mercury_7175875',
    question: 'Which is a gas?',
    choices: { text: ['ice', 'steam', 'rock', 'sand'].slice(0, label.length), label },
    answerKey,
  })

  test('letter keys map to the label index and the id is prefixed', () => {
    const q = adaptRow(arc, row('C'), at('arc_challenge'))
    assert.equal(q.id, 'arc_challenge-Mercury_7175875')
    assert.equal(q.answer, 2)
    assert.deepEqual(q.options, ['ice', 'steam', 'rock', 'sand'])
    assert.equal(q.context, null)
    assert.equal(q.subject, null)
    assert.equal(q.question, 'Which is a gas?')
  })

  test('numeric keys "1"–"4" map to the label index', () => {
    for (const k of ['1', '2', '3', '4']) assert.equal(adaptRow(arc, row(k, ['1', '2', '3', '4']), at('arc_easy')).answer, Number(k) - 1)
    assert.equal(adaptRow(arc, row('2', ['1', '2', '3']), at('arc_easy')).answer, 1)
  })

  test('an answerKey that is not a label is a DATA error naming answerKey and the row', () => {
    assert.throws(() => adaptRow(arc, row('E'), at('arc_challenge')), dataError('answerKey'))
    // a letter key when the labels are numbers
    assert.throws(() => adaptRow(arc, row('A', ['1', '2', '3', '4']), at('arc_challenge', 12)), dataError('answerKey', 12))
  })

  test('texts and labels of different lengths are a DATA error', () => {
    const bad = { ...row('A'), choices: { text: ['a', 'b'], label: ['A', 'B', 'C'] } }
    assert.throws(() => adaptRow(arc, bad, at('arc_easy')), dataError('choices'))
  })

  test('a missing column is a DATA error naming it', () => {
    const { answerKey: _, ...bad } = row('A')
    assert.throws(() => adaptRow(arc, bad, at('arc_easy')), dataError('answerKey'))
  })
})

describe('mmlu', () => {
  const row = (answer: bigint, over: Record<string, unknown> = {}) => ({
    question: 'Which of the following statements is true?',
    subject: 'public_relations',
    choices: ['one', 'two', 'three', 'four'],
    answer,
    ...over,
  })

  test('maps the answer index and keeps the subject', () => {
    const q = adaptRow(mmlu, row(3n), at('mmlu'))
    assert.equal(q.answer, 3)
    assert.equal(q.subject, 'public_relations')
    assert.deepEqual(q.options, ['one', 'two', 'three', 'four'])
    assert.equal(q.context, null)
  })

  test('an answer out of range is a DATA error naming answer', () => {
    assert.throws(() => adaptRow(mmlu, row(4n), at('mmlu')), dataError('answer'))
    assert.throws(() => adaptRow(mmlu, row(-1n), at('mmlu')), dataError('answer'))
  })

  test('the id is the source and 16 hex digits of the content hash', () => {
    const q = adaptRow(mmlu, row(1n), at('mmlu', 1))
    assert.match(q.id, /^mmlu-[0-9a-f]{16}$/)
    // identical rows anywhere share the id; row position does not enter
    assert.equal(adaptRow(mmlu, row(1n), at('mmlu', 900)).id, q.id)
    // key order of the decoded row does not matter
    const reordered = { answer: 1n, choices: row(1n).choices, subject: 'public_relations', question: row(1n).question }
    assert.equal(adaptRow(mmlu, reordered, at('mmlu')).id, q.id)
    // any change of content changes it
    assert.notEqual(adaptRow(mmlu, row(2n), at('mmlu')).id, q.id)
    // the subject is not content: the same row filed under another subject is the same question
    assert.equal(adaptRow(mmlu, row(1n, { subject: 'us_foreign_policy' }), at('mmlu')).id, q.id)
    // nor is a column the adapter does not read
    assert.equal(adaptRow(mmlu, { ...row(1n), __index_level_0__: 7n }, at('mmlu')).id, q.id)
    assert.notEqual(adaptRow(mmlu, row(1n, { choices: ['two', 'one', 'three', 'four'] }), at('mmlu')).id, q.id)
  })

  test('an int32 answer (a number) is the same as an int64 one, as the rows hash says', () => {
    const wide = row(1n)
    const narrow = { ...wide, answer: 1 }
    assert.equal(hashRow(narrow, at('mmlu')), hashRow(wide, at('mmlu')))
    assert.deepEqual(adaptRow(mmlu, narrow, at('mmlu')), adaptRow(mmlu, wide, at('mmlu')))
    assert.throws(() => adaptRow(mmlu, { ...wide, answer: 1.5 }, at('mmlu')), dataError('answer'))
    assert.throws(() => adaptRow(mmlu, { ...wide, answer: '1' }, at('mmlu')), dataError('answer'))
  })
})

describe('jcommonsenseqa', () => {
  const row = (label: bigint) => ({
    q_id: 8939n,
    question: '電子機器で使用される最も主要な電子回路基板の事をなんと言う？',
    choice0: '掲示板',
    choice1: 'パソコン',
    choice2: 'マザーボード',
    choice3: '回路図',
    choice4: 'モニター',
    label,
  })

  test('maps the label to the choice columns in order', () => {
    const q = adaptRow(jcommonsenseqa, row(2n), at('jcommonsenseqa'))
    assert.equal(q.id, 'jcommonsenseqa-8939')
    assert.equal(q.answer, 2)
    assert.equal(q.options[q.answer], 'マザーボード')
    assert.deepEqual(q.options, ['掲示板', 'パソコン', 'マザーボード', '回路図', 'モニター'])
    assert.equal(q.context, null)
  })

  test('a label out of range is a DATA error naming label', () => {
    assert.throws(() => adaptRow(jcommonsenseqa, row(5n), at('jcommonsenseqa')), dataError('label'))
  })

  test('int32 q_id and label (numbers) give the same question as int64 ones', () => {
    const narrow = { ...row(2n), q_id: 8939, label: 2 }
    assert.deepEqual(adaptRow(jcommonsenseqa, narrow, at('jcommonsenseqa')), adaptRow(jcommonsenseqa, row(2n), at('jcommonsenseqa')))
    assert.throws(() => adaptRow(jcommonsenseqa, { ...narrow, q_id: 8939.5 }, at('jcommonsenseqa')), dataError('q_id'))
  })
})

describe('boolq', () => {
  const row = (answer: boolean, question = 'is the sky blue') => ({ question, answer, passage: 'The sky is blue on clear days.' })

  test('yes/no options, the answer and the passage as context', () => {
    const yes = adaptRow(boolq, row(true), at('boolq'))
    assert.deepEqual(yes.options, ['yes', 'no'])
    assert.equal(yes.answer, 0)
    assert.equal(yes.context, 'The sky is blue on clear days.')
    assert.equal(yes.question, 'is the sky blue')
    assert.equal(adaptRow(boolq, row(false), at('boolq')).answer, 1)
  })

  test('content-hash ids: equal for identical rows, different otherwise', () => {
    const id = adaptRow(boolq, row(true), at('boolq', 1)).id
    assert.match(id, /^boolq-[0-9a-f]{16}$/)
    assert.equal(adaptRow(boolq, row(true), at('boolq', 2)).id, id)
    assert.notEqual(adaptRow(boolq, row(false), at('boolq')).id, id)
    assert.notEqual(adaptRow(boolq, row(true, 'is the sky green'), at('boolq')).id, id)
  })

  test('an answer that is not a boolean is a DATA error', () => {
    assert.throws(() => adaptRow(boolq, { ...row(true), answer: 'true' }, at('boolq')), dataError('answer'))
  })
})

describe("content ids from the rows hash's serialisation", () => {
  const at = { source: 's', file: 'f', row: 0 }
  const parsedContent = (adapter: typeof mmlu, raw: Record<string, unknown>, fields: string[]) => {
    const parsed = adapter.row.parse(raw) as Record<string, unknown>
    return contentId('s', Object.fromEntries(fields.map((f) => [f, parsed[f]])))
  }

  test('are the ids of the parsed content, int32 or int64', () => {
    const mm = { question: 'What is 2+2?', subject: 'math', choices: ['3', '4 "four"'], answer: 1n }
    for (const raw of [mm, { ...mm, answer: 1 }])
      assert.equal(adaptRow(mmlu, raw, at, canonicalRowAt(raw, at)).id, parsedContent(mmlu, raw, ['question', 'choices', 'answer']))
    const bq = { question: 'is it', answer: false, passage: 'A passage\nwith "quotes".' }
    assert.equal(adaptRow(boolq, bq, at, canonicalRowAt(bq, at)).id, parsedContent(boolq, bq, ['question', 'answer', 'passage']))
  })

  test('a struct column in the content is hashed as parsed: its other keys are not content', () => {
    const kind = kindFromDescriptor(
      SourceDescriptor.parse({
        mapping: {
          id: { from: 'content', fields: ['question', 'choices'] },
          question: 'question',
          options: { from: 'labelled', column: 'choices', text: 'text', label: 'label' },
          answer: { from: 'label', column: 'key' },
        },
        card: { title: 't', licence: 'l', citation: 'c', languages: ['en'], idNote: 'question and choices' },
      }),
    )
    const raw = { question: 'q', choices: { text: ['a', 'b'], label: ['A', 'B'], extra: 'not content' }, key: 'B' }
    const id = adaptRow(kind.adapter, raw, at, canonicalRowAt(raw, at)).id
    assert.equal(id, contentId('s', { question: 'q', choices: { text: ['a', 'b'], label: ['A', 'B'] } }))
    assert.equal(id, adaptRow(kind.adapter, raw, at).id)
  })
})

describe('contentId', () => {
  test('is the source, a dash and 16 hex digits of sha256 over the canonical content', () => {
    // canonical JSON of { b: 'x', a: 1n } is {"a":1,"b":"x"}
    const hex = createHash('sha256').update('{"a":1,"b":"x"}').digest('hex').slice(0, 16)
    assert.equal(contentId('s', { b: 'x', a: 1n }), `s-${hex}`)
    assert.equal(contentId('other', { a: 1n, b: 'x' }), `other-${hex}`)
    const at = { source: 's', file: 'f', row: 0 }
    assert.equal(hashRow({ a: 1n, b: 'x' }, at), hashRow({ b: 'x', a: 1n }, at))
  })
})
