import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { adaptRow } from '../../src/adapt/adapter.ts'
import { Mapping, mappedAdapter } from '../../src/adapt/descriptor.ts'
import { kindOf, SOURCE_KINDS } from '../../src/adapt/kinds.ts'
import { isJevError } from '../../src/errors.ts'
import { parseRecipe, recipeHash } from '../../src/recipe/load.ts'

const OBQA = 'test/fixtures/openbookqa/recipe.json'
const obqaJson = () => JSON.parse(readFileSync(OBQA, 'utf8')) as Record<string, any>
const at = { source: 's', file: 'f.parquet', row: 3 }

/** The recipe's problem lines, or a failed assertion when it parses. */
function problems(value: unknown): string[] {
  try {
    parseRecipe(value)
  } catch (e) {
    assert.ok(isJevError(e) && e.code === 'RECIPE', String(e))
    return e.message.split('\n').slice(1)
  }
  assert.fail('parseRecipe accepted a bad recipe')
}
const has = (lines: string[], path: string, what: RegExp) =>
  assert.ok(
    lines.some((l) => l.includes(`at ${path}:`) && what.test(l)),
    `no line for ${path} in\n${lines.join('\n')}`,
  )

describe('a recipe source picks its kind', () => {
  test('by name, and the committed recipes hash as they did before kinds were data', () => {
    // the hash out/manifest.json and recipes/jev-bench.lock.json record
    const hash = recipeHash(parseRecipe(JSON.parse(readFileSync('recipes/jev-bench.json', 'utf8'))))
    assert.equal(hash, JSON.parse(readFileSync('out/manifest.json', 'utf8')).recipe.hash)
    assert.equal(hash, JSON.parse(readFileSync('recipes/jev-bench.lock.json', 'utf8')).recipe.hash)
  })

  test('or inline, with a mapping and a card', () => {
    const spec = parseRecipe(obqaJson()).sources.at(-1)!
    const kind = kindOf(spec)
    assert.equal(kind.card.title, 'OpenBookQA')
    assert.equal(kind.adapter.idFrom, 'column')
    assert.deepEqual(kind.adapter.columns, ['id', 'question_stem', 'choices', 'answerKey'])
    assert.equal(kindOf(spec), kind, 'built once per source')
  })

  test('never both, never neither, never half of inline', () => {
    const r = obqaJson()
    r.sources[5].adapter = 'arc'
    has(problems(r), '$.sources.5', /not both/)
    delete r.sources[5].adapter
    delete r.sources[5].card
    has(problems(r), '$.sources.5.card', /both "mapping" and "card"/)
    delete r.sources[5].mapping
    has(problems(r), '$.sources.5', /needs "adapter"/)
  })

  test('a mapping and its card must agree on context and content ids', () => {
    const r = obqaJson()
    r.sources[5].mapping.context = 'passage'
    r.sources[5].mapping.id = { from: 'content', fields: ['question_stem', 'answerKey'] }
    const lines = problems(r)
    has(lines, '$.sources.5.card.context', /what the context is/)
    has(lines, '$.sources.5.card.idNote', /what the content id covers/)
  })

  test('a mapping that cannot make a question is refused at its path', () => {
    const r = obqaJson()
    r.sources[5].mapping.options = { from: 'list', column: 'choices' }
    r.sources[5].mapping.id = { from: 'content', fields: ['nope'] }
    const lines = problems(r)
    has(lines, '$.sources.5.mapping.answer', /label answer needs labelled options/)
    has(lines, '$.sources.5.mapping.id.fields.0', /"nope" is not a mapped column/)
  })
})

describe('the generic adapter', () => {
  test('a boolean answer needs two fixed options', () => {
    const bad = Mapping.safeParse({
      id: { from: 'column', column: 'id', type: 'string' },
      question: 'q',
      options: { from: 'list', column: 'o' },
      answer: { from: 'boolean', column: 'a' },
    })
    assert.equal(bad.success, false)
    assert.match(bad.error!.issues[0]!.message, /two fixed options/)
  })

  test('a column mapped to two roles is refused', () => {
    const bad = Mapping.safeParse({
      id: { from: 'column', column: 'q', type: 'string' },
      question: 'q',
      options: { from: 'list', column: 'o' },
      answer: { from: 'index', column: 'a' },
    })
    assert.equal(bad.success, false)
    assert.match(bad.error!.issues[0]!.message, /"q" is mapped twice/)
  })

  test('fixed options are a fresh list per row, so no question can change another', () => {
    const a = adaptRow(SOURCE_KINDS.boolq.adapter, { question: 'q', answer: true, passage: 'p' }, at)
    const b = adaptRow(SOURCE_KINDS.boolq.adapter, { question: 'r', answer: false, passage: 'p' }, at)
    assert.notEqual(a.options, b.options)
    assert.deepEqual(b.options, ['yes', 'no'])
  })

  test('an integer id column (int32 or int64) is its decimal text; a string one is kept', () => {
    const m = Mapping.parse({
      id: { from: 'column', column: 'n', type: 'integer' },
      question: 'q',
      options: { from: 'columns', columns: ['x', 'y'] },
      answer: { from: 'index', column: 'a' },
      subject: 'g',
    })
    const q = adaptRow(mappedAdapter(m), { n: 42, q: 'why', x: 'one', y: 'two', a: 1n, g: 'physics' }, at)
    assert.deepEqual(q, { id: 's-42', subject: 'physics', question: 'why', context: null, options: ['one', 'two'], answer: 1 })
    assert.throws(() => adaptRow(mappedAdapter(m), { n: 'x42', q: 'why', x: 'one', y: 'two', a: 1n, g: 'physics' }, at), /field n\b/)
  })
})
