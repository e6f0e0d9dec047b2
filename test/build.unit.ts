import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { UpstreamQuestion } from '../src/adapt/adapter.ts'
import { groupOf } from '../src/borrow/groups.ts'
import type { BuildOutput } from '../src/build.ts'
import { DataRecord } from '../src/emit/schema.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { prepareSource } from '../src/prepare/prepare.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { N_CHOICES, type Recipe, SPLITS, type Split } from '../src/recipe/schema.ts'
import { rngFor, shuffle } from '../src/shape/rng.ts'
import { codePointLength, normalize } from '../src/util/canonical.ts'
import { buildRecords, loadSources } from './helpers/build.ts'
import { recipeOf, sourceSpec, uq } from './helpers/questions.ts'

const recipe = await loadRecipe('test/fixtures/recipe.json')
const loaded = await loadSources(recipe, createMirrorFetcher('test/fixtures/hub'))
const questions = new Map(loaded.map((l) => [l.spec.name, l.questions]))
const built = buildRecords(recipe, questions)
const specOf = (name: string) => recipe.sources.find((s) => s.name === name)!
const textKey = (r: { question: string; context: string | null }) =>
  `${normalize(r.question)}\u0000${r.context === null ? '' : normalize(r.context)}`

/** The upstream question a record came from: same source, id and the side's upstream split. */
function upstreamOf(r: DataRecord, split: Split): UpstreamQuestion {
  const from = specOf(r.source)[split].from
  const q = questions.get(r.source)!.find((x) => x.id === r.id && x.upstreamSplit === from)
  assert.ok(q, `no upstream question for ${r.id}`)
  return q
}

/** Checks every borrowed option of a build; returns how many there were. */
function checkBorrowed(r: Recipe, out: BuildOutput): number {
  const sides = new Map(r.sources.map((spec) => [spec.name, prepareSource(spec, questions.get(spec.name)!, r).sides]))
  // the sides themselves never share a question, so a side's pool holds nothing from the other side
  for (const [name, { test, val }] of sides) {
    const testKeys = new Set(test.map((c) => c.textKey))
    assert.ok(!val.some((c) => testKeys.has(c.textKey)), `${name}: a question is on both sides`)
  }
  let borrowedCount = 0
  for (const split of SPLITS) {
    for (const rec of out.records[split]) {
      const spec = specOf(rec.source)
      const q = upstreamOf(rec, split)
      const own = new Set(q.options.map(normalize))
      const kept = rec.choices.filter((c) => q.options.includes(c))
      const borrowed = rec.choices.filter((c) => !q.options.includes(c))
      if (rec.n_choices >= q.options.length) assert.equal(kept.length, q.options.length, `${rec.id} lost an option`)
      else assert.equal(borrowed.length, 0, `${rec.id} borrowed while shrinking`)
      const side = sides.get(rec.source)![split]
      const me = side.find((c) => c.id === rec.id)!
      const lenders = side.filter((c) => c.id !== rec.id && groupOf(spec, c) === groupOf(spec, me))
      for (const b of borrowed) {
        borrowedCount++
        assert.ok(!own.has(normalize(b)), `${rec.id}: borrowed its own option ${b}`)
        assert.ok(codePointLength(b) <= r.borrowMaxChars, `${rec.id}: "${b}" is over ${r.borrowMaxChars} code points`)
        assert.ok(
          lenders.some((c) => c.options.includes(b)),
          `${rec.id} (${split}): "${b}" is not from its group on its side`,
        )
      }
    }
  }
  return borrowedCount
}

describe('buildRecords on the fixture', () => {
  test('meets every source count exactly', () => {
    for (const split of SPLITS) {
      for (const spec of recipe.sources) {
        const n = built.records[split].filter((r) => r.source === spec.name).length
        assert.equal(n, spec[split].count, `${spec.name} ${split}`)
      }
    }
  })

  test('meets the option-count table exactly', () => {
    for (const split of SPLITS) {
      for (const n of N_CHOICES) {
        const got = built.records[split].filter((r) => r.n_choices === n).length
        assert.equal(got, recipe.quotas[split][n], `${split} n=${n}`)
      }
    }
  })

  test('every record is well formed, verbatim and has distinct choices', () => {
    for (const split of SPLITS) {
      for (const r of built.records[split]) {
        DataRecord.parse(r)
        assert.deepEqual(Object.keys(r), ['id', 'source', 'question', 'context', 'choices', 'answer_idx', 'n_choices'])
        assert.equal(new Set(r.choices.map(normalize)).size, r.choices.length, r.id)
        const q = upstreamOf(r, split)
        assert.equal(r.question, q.question)
        assert.equal(r.context, q.context)
        assert.equal(r.choices[r.answer_idx], q.options[q.answer], `${r.id}: wrong answer text`)
        assert.ok(r.id.startsWith(`${r.source}-`))
        if (r.source !== 'boolq') assert.equal(r.context, null)
      }
    }
  })

  test('borrowed options come from the same group on the same side, short enough', () => {
    assert.ok(checkBorrowed(recipe, built) > 60, 'too few borrowed options: the check would be vacuous')
  })

  test('a lower borrowMaxChars is honoured', () => {
    // the fixture's small val side can meet its table with options of at most 20 characters only if more lenders lend
    const { borrow: rules } = recipe.distractors
    const borrow = { ...rules, plausible: { ...rules.plausible, lenders: 1000 }, sameForm: false }
    const short = { ...recipe, borrowMaxChars: 20, distractors: { ...recipe.distractors, borrow } }
    // the fixture has plenty of longer options that could otherwise be lent
    assert.ok([...questions.values()].flat().filter((q) => q.options.some((o) => codePointLength(o) > 20)).length > 50)
    assert.ok(checkBorrowed(short, buildRecords(short, questions)) > 60)
  })

  test('test and val are disjoint, and no question repeats within a split', () => {
    for (const split of SPLITS) {
      const rs = built.records[split]
      assert.equal(new Set(rs.map((r) => r.id)).size, rs.length)
      assert.equal(new Set(rs.map(textKey)).size, rs.length)
    }
    const testIds = new Set(built.records.test.map((r) => r.id))
    const testKeys = new Set(built.records.test.map(textKey))
    for (const r of built.records.val) {
      assert.ok(!testIds.has(r.id), r.id)
      assert.ok(!testKeys.has(textKey(r)), r.question)
    }
  })

  test('val never holds the MMLU validation rows that repeat test rows', () => {
    // named in test/fixtures/hub/README.md
    const repeats = ['Which definition best describes media convergence?', 'Where was the first British newspaper printed?']
    for (const r of built.records.val) assert.ok(!repeats.includes(r.question), r.question)
  })

  test('counts the fixture’s known drops', () => {
    // from test/fixtures/hub/README.md: three exact-repeat pairs, one row with equal options,
    // two validation rows that are test rows, ten test rows (one repeated pair) that refer to options
    const mmlu = built.drops.get('mmlu')!
    assert.equal(mmlu.get('duplicate_row'), 3)
    assert.equal(mmlu.get('options_not_distinct'), 1)
    assert.equal(mmlu.get('in_test_split'), 2)
    assert.ok(mmlu.get('option_refers_to_options')! >= 9)
    assert.deepEqual(
      [...built.drops.keys()],
      recipe.sources.map((s) => s.name),
    )
  })

  test('boolq is always ["yes", "no"] with its passage', () => {
    let n = 0
    for (const split of SPLITS) {
      for (const r of built.records[split].filter((x) => x.source === 'boolq')) {
        n++
        assert.deepEqual(r.choices, ['yes', 'no'])
        assert.equal(typeof r.context, 'string')
        assert.ok(r.context!.length > 0)
      }
    }
    assert.equal(n, specOf('boolq').test.count + specOf('boolq').val.count)
  })

  test('mmlu moral_scenarios items never have more than 4 options', () => {
    let n = 0
    for (const split of SPLITS) {
      for (const r of built.records[split].filter((x) => x.source === 'mmlu')) {
        if (upstreamOf(r, split).subject !== 'moral_scenarios') continue
        n++
        assert.ok(r.n_choices <= 4, `${r.id}: ${r.n_choices}`)
      }
    }
    assert.ok(n > 0, 'no moral_scenarios item was selected')
  })

  test('does not depend on the order rows arrive in', () => {
    const permuted = new Map([...questions].map(([name, qs]) => [name, shuffle(rngFor(99, 'unit-test', name), qs)]))
    for (const [name, qs] of permuted)
      assert.notDeepEqual(
        qs.map((q) => q.row),
        questions.get(name)!.map((q) => q.row),
      )
    assert.deepEqual(buildRecords(recipe, permuted), built)
  })

  test('is reproducible, and another seed gives another dataset that still meets the tables', () => {
    assert.deepEqual(buildRecords(recipe, questions), built)
    const other = buildRecords({ ...recipe, seed: 4321 }, questions)
    assert.notDeepEqual(other.records, built.records)
    for (const split of SPLITS) {
      assert.equal(other.records[split].length, built.records[split].length)
      for (const n of N_CHOICES) assert.equal(other.records[split].filter((r) => r.n_choices === n).length, recipe.quotas[split][n])
    }
  })
})

describe('lenders', () => {
  test('are every eligible question on the side, also one de-duplicated by its text', () => {
    // B and C share their question text, so only one of them can be selected; both lend their options
    const spec = sourceSpec({ name: 'src', test: { from: 'test', count: 2 } })
    const qs = [
      uq({ id: 'src-a', options: ['a right', 'a wrong'] }),
      uq({ id: 'src-b', question: 'Shared stem?', options: ['b one', 'b two', 'b three'] }),
      uq({ id: 'src-c', question: 'Shared stem?', options: ['c one', 'c two', 'c three'] }),
    ]
    const prepared = prepareSource(spec, qs, recipeOf([spec]))
    assert.equal(prepared.sides.test.length, 2)
    assert.deepEqual(prepared.lenders.test.map((c) => c.id).sort(), ['src-a', 'src-b', 'src-c'])
    assert.equal(prepared.drops.get('duplicate_question'), 1)
  })
})
