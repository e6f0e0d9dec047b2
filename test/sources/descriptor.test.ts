import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { adaptRow } from '../../src/adapt/adapter.ts'
import { Mapping, mappedAdapter } from '../../src/adapt/descriptor.ts'
import { kindOf, SOURCE_KINDS } from '../../src/adapt/kinds.ts'
import { isJevError } from '../../src/errors.ts'
import { parseRecipe, recipeHash } from '../../src/recipe/load.ts'
import { readRows } from '../helpers/parquet.ts'

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
    // the hashes out/manifest.json and recipes/jev-bench-1.0.0.lock.json record
    const manifest = JSON.parse(readFileSync('out/manifest.json', 'utf8'))
    assert.equal(recipeHash(parseRecipe(JSON.parse(readFileSync('recipes/jev-bench.json', 'utf8')))), manifest.recipe.hash)
    const lock = JSON.parse(readFileSync('recipes/jev-bench-1.0.0.lock.json', 'utf8'))
    assert.equal(recipeHash(parseRecipe(JSON.parse(readFileSync('recipes/jev-bench-1.0.0.json', 'utf8')))), lock.recipe.hash)
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

describe("the adapter's check without zod", () => {
  /** Values a column may hold, right or wrong for it: every rule's edges. */
  const VALUES: unknown[] = [
    undefined,
    null,
    '',
    'x',
    0,
    3,
    -1,
    1.5,
    2 ** 60,
    Number.NaN,
    -0,
    Number.POSITIVE_INFINITY,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 1,
    2n,
    2n ** 70n,
    true,
    false,
    [],
    ['a'],
    ['a', 'b'],
    ['a', 2],
    // holes: read as undefined
    // biome-ignore lint/suspicious/noSparseArray: the edge case itself
    [, 'a'],
    new Array(1),
    [''],
    {},
    { text: ['a', 'b'], label: ['A', 'B'] },
    { text: ['a'], label: [], extra: 1 },
    { text: 'a', label: ['A'] },
    { text: ['a', 'b'], label: ['A', 'B'], extra: 'dropped' },
    new String('x'),
  ]

  test('agrees with zod on real rows of every built-in kind and on each of their columns set to every edge value', async () => {
    const files: Record<string, string> = {
      arc: 'allenai/ai2_arc/ARC-Easy/test-00000-of-00001.parquet',
      mmlu: 'cais/mmlu/all/validation-00000-of-00001.parquet',
      jcommonsenseqa: 'sbintuitions/JCommonsenseQA/data/validation-00000-of-00001.parquet',
      boolq: 'google/boolq/data/validation-00000-of-00001.parquet',
    }
    let fast = 0
    let asked = 0
    for (const [kind, file] of Object.entries(files)) {
      const { adapter } = SOURCE_KINDS[kind as keyof typeof SOURCE_KINDS]
      const rows = (await readRows(`test/fixtures/hub/datasets/${file}`)).slice(0, 5)
      const variants: unknown[] = [...rows, null, 'a row', [rows[0]]]
      for (const row of rows.slice(0, 2))
        for (const key of [...Object.keys(row), 'other'])
          for (const v of VALUES) {
            const copy: Record<string, unknown> = { ...row, [key]: v }
            if (v === undefined) delete copy[key]
            variants.push(copy)
          }
      for (const raw of variants) {
        const checked = adapter.check!(raw)
        const parsed = adapter.row.safeParse(raw)
        if (checked === null) {
          asked++
          continue
        }
        fast++
        assert.ok(
          parsed.success,
          `${kind}: the check passed what zod refuses: ${JSON.stringify(raw, (_, x) => (typeof x === 'bigint' ? `${x}n` : x))}`,
        )
        assert.deepEqual(checked, parsed.data, kind)
      }
      // every real row passes the check: zod is asked only about rows that are wrong
      for (const row of rows) assert.notEqual(adapter.check!(row), null, `${kind}: a real row`)
    }
    assert.ok(fast > 100 && asked > 100, `${fast} checked, ${asked} left to zod`)
  })
})
