import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { checkPlacement } from '../src/check/placement.ts'
import { checkProvenance } from '../src/check/provenance.ts'
import { computeAudit } from '../src/emit/audit.ts'
import { auditSection } from '../src/emit/card/distractors.ts'
import { type ProvenanceLine, provenanceLines } from '../src/emit/provenance.ts'
import type { DataRecord } from '../src/emit/schema.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { toCandidate } from '../src/prepare/eligibility.ts'
import type { PreparedSource } from '../src/prepare/prepare.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { Distractors, type Recipe, SPLITS, type Split } from '../src/recipe/schema.ts'
import { answerQuotas, selectSplit } from '../src/select/select.ts'
import { dealPositions } from '../src/shape/deal.ts'
import { reshape } from '../src/shape/reshape.ts'
import { rngFor, shuffle } from '../src/shape/rng.ts'
import { normalize } from '../src/util/canonical.ts'
import { buildRecords, loadSources } from './helpers/build.ts'
import { recipeOf, sourceSpec, uq } from './helpers/questions.ts'

const items = (source: string, n: number, count: number, prefix = source) =>
  Array.from({ length: count }, (_, i) => ({ id: `${prefix}-${i}`, identity: `${prefix}\u0000${i}`, source, n }))

function positionCounts(deal: Map<string, number>, ids: readonly string[], n: number): number[] {
  const counts = Array(n).fill(0)
  for (const id of ids) counts[deal.get(id)!]++
  return counts
}

describe('dealPositions', () => {
  test('position counts differ by at most one in every (source, n) group, and every item gets a position below its n', () => {
    const all = [...items('a', 5, 23, 'a5'), ...items('a', 7, 40, 'a7'), ...items('b', 5, 11, 'b5'), ...items('b', 2, 9, 'b2')]
    const deal = dealPositions(all, 1234, 'test')
    assert.equal(deal.size, all.length)
    for (const [source, n] of [
      ['a', 5],
      ['a', 7],
      ['b', 5],
      ['b', 2],
    ] as const) {
      const group = all.filter((x) => x.source === source && x.n === n)
      const counts = positionCounts(
        deal,
        group.map((x) => x.id),
        n,
      )
      assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `${source}/${n}: ${counts}`)
      assert.equal(
        counts.reduce((x, c) => x + c, 0),
        group.length,
      )
    }
  })

  test('independent of input order and of the other groups', () => {
    const group = items('a', 6, 17)
    const alone = dealPositions(group, 1234, 'test')
    const mixed = shuffle(rngFor(1, 'test', 'order'), [...group, ...items('a', 4, 30, 'a4'), ...items('b', 6, 12, 'b6')])
    const together = dealPositions(mixed, 1234, 'test')
    for (const x of group) assert.equal(together.get(x.id), alone.get(x.id), x.id)
  })

  test('seeded: which positions get the extra items depends on the seed and the split', () => {
    const group = items('a', 8, 11) // 3 positions get a second item
    const extras = (seed: number, split: string) => {
      const counts = positionCounts(
        dealPositions(group, seed, split),
        group.map((x) => x.id),
        8,
      )
      return counts.flatMap((c, p) => (c === 2 ? [p] : [])).join(',')
    }
    const seen = new Set([1, 2, 3, 4, 5, 6].map((seed) => extras(seed, 'test')))
    assert.ok(seen.size > 1, 'the same positions for every seed')
    assert.equal(extras(1234, 'test'), extras(1234, 'test'))
  })
})

describe('reshape with a dealt position', () => {
  const c = toCandidate(uq({ id: 'src-q', options: ['right', 'w1', 'w2', 'w3', 'w4'], answer: 0 }))
  test('the right answer goes to the dealt position, the wrong ones fill the other slots', () => {
    for (let place = 0; place < 4; place++) {
      const r = reshape(c, 4, undefined, 1234, false, { place })
      assert.equal(r.answer, place)
      assert.equal(r.choices[place], 'right')
      assert.equal(new Set(r.choices).size, 4)
      // the wrong options kept are the same whatever the position: the shrink stream is the item's own
      assert.deepEqual(
        r.choices.filter((x) => x !== 'right').sort(),
        reshape(c, 4, undefined, 1234, false, { place: 0 })
          .choices.filter((x) => x !== 'right')
          .sort(),
      )
    }
  })
  test('a position outside the options is refused', () => {
    assert.throws(() => reshape(c, 4, undefined, 1234, false, { place: 4 }), RangeError)
  })
})

describe('balanceSides "answer"', () => {
  const spec = sourceSpec({
    name: 'bq',
    files: { validation: ['data/validation.parquet'] },
    test: { from: 'validation', count: 10 },
    val: { from: 'validation', count: 5 },
    balanceSides: 'answer',
  })
  const yn = (id: string, yes: boolean) => toCandidate(uq({ id, upstreamSplit: 'validation', options: ['yes', 'no'], answer: yes ? 0 : 1 }))
  // the test side's selection order puts every "yes" first, the val side's every "no": a skew a plain draw keeps
  const side = (prefix: string, firstYes: boolean) => [
    ...Array.from({ length: 12 }, (_, i) => yn(`bq-${prefix}${i}a`, firstYes)),
    ...Array.from({ length: 12 }, (_, i) => yn(`bq-${prefix}${i}b`, !firstYes)),
  ]
  const prepared = (s: typeof spec): PreparedSource => {
    const sides = { test: side('t', true), val: side('v', false) }
    return { spec: s, sides, lenders: sides, drops: new Map(), excludedHits: new Set() }
  }
  const yesShare = (cs: readonly { options: string[]; answer: number }[]) => cs.filter((c) => c.options[c.answer] === 'yes').length

  test('both sides get the pooled share of each answer, within one item', () => {
    const p = prepared(spec)
    const taken = new Set<string>()
    const test = selectSplit([p], 'test', taken, new Set()).get('bq')!
    const val = selectSplit([p], 'val', taken, new Set()).get('bq')!
    assert.equal(test.length, 10)
    assert.equal(val.length, 5)
    assert.equal(yesShare(test), 5)
    assert.ok(Math.abs(yesShare(val) - 2.5) <= 0.5)
  })

  test('without the switch the draw keeps the skew (what the switch is for)', () => {
    const p = prepared({ ...spec, balanceSides: undefined })
    const taken = new Set<string>()
    assert.equal(yesShare(selectSplit([p], 'test', taken, new Set()).get('bq')!), 10)
    assert.equal(yesShare(selectSplit([p], 'val', taken, new Set()).get('bq')!), 0)
  })

  test('quotas by largest remainder sum to the count', () => {
    const q = answerQuotas({ test: [yn('bq-1', true), yn('bq-2', true)], val: [yn('bq-3', false)] }, 80)
    assert.deepEqual(
      [...q.entries()].map(([a, x]) => [a, x.want]),
      [
        ['no', 27],
        ['yes', 53],
      ],
    )
  })
})

// the fixture build, with the 1.2.0 switches on
const base = await loadRecipe('test/fixtures/recipe.json')
const loaded = await loadSources(base, createMirrorFetcher('test/fixtures/hub'))
const questions = new Map(loaded.map((l) => [l.spec.name, l.questions]))
const on: Recipe = {
  ...base,
  placement: 'dealt',
  sources: base.sources.map((s) => (s.name === 'boolq' ? { ...s, balanceSides: 'answer' } : s)),
  card: { effectiveN: true },
}
const lines = (records: Record<Split, DataRecord[]>, origins: Parameters<typeof provenanceLines>[1]) =>
  provenanceLines(records, origins, () => ({ repo: 'acme/x', commit: '0'.repeat(40), idFrom: 'column' }))

describe('a build with placement "dealt" and boolq balanced by answer', () => {
  const built = buildRecords(on, questions)
  const plain = buildRecords(base, questions)
  const prov = lines(built.records, built.origins)

  test('meets the position and the side checks', () => {
    assert.deepEqual(checkPlacement(built.records, prov, on), [])
  })

  test('the same items as without the deal, other than boolq; boolq keeps "yes" first', () => {
    for (const split of SPLITS) {
      const ids = (rs: DataRecord[]) => rs.filter((r) => r.source !== 'boolq').map((r) => r.id)
      assert.deepEqual(ids(built.records[split]).sort(), ids(plain.records[split]).sort())
      for (const r of built.records[split]) if (r.source === 'boolq') assert.deepEqual(r.choices, ['yes', 'no'])
    }
  })

  test('the check finds an undealt build when the recipe says dealt', () => {
    const problems = checkPlacement(plain.records, lines(plain.records, plain.origins), { ...base, placement: 'dealt' })
    assert.ok(problems.length > 0)
    assert.match(problems[0]!, /^(test|val): \w+ at \d options: the right answer sits [\d/]+ times at positions A–[A-H]/)
  })

  test('the audit and the card give items by upstream options kept, and the advice', () => {
    const audit = computeAudit(built.records, prov, on)
    const kept = audit.test.byKept!
    for (const n of ['2', '3', '4', '5', '6', '7', '8'])
      assert.equal(
        Object.values(kept[n]!).reduce((a, c) => a + c, 0),
        on.quotas.test[n as '2'],
      )
    const card = auditSection(audit, on)
    assert.match(card, /\| test: n_choices \| items \|.*upstream kept/)
    assert.match(card, /Report results by option count and, within it, by the number of upstream options kept/)
    assert.doesNotMatch(card, /report grown and not-grown items separately/)
    const old = auditSection(computeAudit(plain.records, lines(plain.records, plain.origins), base), base)
    assert.equal(computeAudit(plain.records, lines(plain.records, plain.origins), base).test.byKept, undefined)
    assert.match(old, /report grown and not-grown items separately/)
    assert.doesNotMatch(old, /upstream kept/)
  })
})

describe('checkPlacement on hand-made records', () => {
  const r = (id: string, source: string, choices: string[], answer: number, question = 'q'): DataRecord => ({
    id,
    source,
    question,
    context: null,
    choices,
    answer_idx: answer,
    n_choices: choices.length,
  })
  const line = (rec: DataRecord, split: Split, borrowed: number[]): ProvenanceLine => ({
    id: rec.id,
    split,
    upstream: { repo: 'acme/x', commit: '0'.repeat(40), path: 'f.parquet', id: rec.id },
    choices: rec.choices.map((_, i) =>
      borrowed.includes(i) ? { from: 'borrowed', lender: 'a-z', index: 0 } : { from: 'upstream', index: i },
    ),
  })
  const a = sourceSpec({ name: 'a' })
  const bq = sourceSpec({
    name: 'bq',
    adapter: 'boolq',
    shuffle: false,
    fixedChoices: 2,
    files: { validation: ['v.parquet'] },
    test: { from: 'validation', count: 4 },
    val: { from: 'validation', count: 4 },
    balanceSides: 'answer',
  })

  test('boolq yes shares more than one item apart fail, within one item pass', () => {
    const yes = (id: string, y: boolean) => r(id, 'bq', ['yes', 'no'], y ? 0 : 1)
    const recs = (t: boolean[], v: boolean[]) => ({
      test: t.map((y, i) => yes(`bq-t${i}`, y)),
      val: v.map((y, i) => yes(`bq-v${i}`, y)),
    })
    const recipe = recipeOf([bq])
    const bad = recs([true, true, true, true], [true, true, false, false])
    assert.match(
      checkPlacement(bad, [], recipe).join('\n'),
      /bq: "yes" is the answer of 4 of 4 test items \(100\.0 %\) and 2 of 4 val items/,
    )
    assert.deepEqual(checkPlacement(recs([true, true, true, false], [true, true, false, false]), [], recipe), [])
  })

  test('longest-is-right on grown items above the floor plus the margin fails, with the figures', () => {
    const grown = Array.from({ length: 4 }, (_, i) => r(`a-g${i}`, 'a', ['a much longer right answer', 'x', 'y', 'z'], 0))
    const records = { test: grown, val: [] }
    const prov = grown.map((g) => line(g, 'test', [3]))
    const recipe = recipeOf([a], { checks: { longestOnGrown: 0.02 } })
    const problems = checkPlacement(records, prov, recipe)
    assert.match(
      problems[0]!,
      /test: on the 4 grown items "always the longest option" scores 1\.000, above their chance floor 0\.250 plus 0\.02/,
    )
    assert.deepEqual(checkPlacement(records, prov, recipeOf([a])), [], 'not enforced without the switch')
  })

  test('longest-is-right on grown items above the not-grown items of the same n fails', () => {
    const grown = Array.from({ length: 8 }, (_, i) => r(`a-g${i}`, 'a', ['long right', 'w', 'x', 'y'], i < 3 ? 0 : 1))
    const notGrown = Array.from({ length: 8 }, (_, i) => r(`a-n${i}`, 'a', ['long right', 'w', 'x', 'y'], i < 1 ? 0 : 1))
    const prov = [...grown.map((g) => line(g, 'test', [3])), ...notGrown.map((g) => line(g, 'test', []))]
    const problems = checkPlacement({ test: [...grown, ...notGrown], val: [] }, prov, recipeOf([a], { checks: { longestOnGrown: 0.2 } }))
    assert.deepEqual(problems, [
      'test: at 4 options "always the longest option" scores 0.375 on the 8 grown items, above 0.125 on the 8 not grown',
    ])
  })

  test('a borrowed number in another unit than the own options fails; one in the same quantity passes', () => {
    const bad = r('a-u', 'a', ['5 m/s', '20 m/s', '0.02 s', '7 m/s'], 0)
    const fine = r('a-v', 'a', ['5 m', '20 cm', '3 km', '7 m'], 0)
    const words = r('a-w', 'a', ['red', 'blue', '3 s', 'green'], 0)
    const records = { test: [bad, fine, words], val: [] }
    const prov = [line(bad, 'test', [2]), line(fine, 'test', [1, 2]), line(words, 'test', [2])]
    assert.deepEqual(checkPlacement(records, prov, recipeOf([a], { checks: { unitsAgree: true } })), [
      'test a-u: borrowed "0.02 s" in another unit than the item\'s own options ("5 m/s", "20 m/s", "7 m/s")',
    ])
  })

  test('a grown minimum question fails once the recipe lists minimum words among the negation patterns', () => {
    const q = r('a-m', 'a', ['Mercury', 'Venus', 'Pluto', 'Mars'], 0, 'Which planet has the lowest mass?')
    const prov = [line(q, 'test', [2])]
    const withMinimum = recipeOf([{ ...a, language: 'en' }], {
      distractors: Distractors.parse({
        borrow: { plausible: {} },
        negatives: { patterns: { en: [String.raw`\b(not|lowest|smallest|fewest|least|lack|without)\b`] } },
      }),
    })
    const records = { test: [q], val: [] }
    assert.match(checkProvenance(records, prov, withMinimum).join('\n'), /a negative question with borrowed options/)
    assert.doesNotMatch(checkProvenance(records, prov, recipeOf([{ ...a, language: 'en' }])).join('\n'), /negative/)
    assert.equal(normalize(q.question).includes('lowest'), true)
  })
})
