import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { groupOf } from '../src/borrow/groups.ts'
import { negationTest } from '../src/borrow/negation.ts'
import { isLabelLike } from '../src/borrow/option-kinds.ts'
import { buildFromSources } from '../src/build-io.ts'
import { checkProvenance } from '../src/check/provenance.ts'
import { checkUpstream } from '../src/check/upstream.ts'
import { outputText } from '../src/emit/outputs.ts'
import { type ProvenanceLine, parseProvenance } from '../src/emit/provenance.ts'
import { DataRecord } from '../src/emit/schema.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import { SPLITS, type Split } from '../src/recipe/schema.ts'
import { normalize } from '../src/util/canonical.ts'
import { loadSources } from './helpers/build.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE } from './helpers/cli.ts'

const recipe = await loadRecipe(FIXTURE_RECIPE)
const fetcher = createMirrorFetcher(FIXTURE_HUB)
const lock = await readLock(FIXTURE_RECIPE.replace(/\.json$/, '.lock.json'))
const built = await buildFromSources(recipe, fetcher)
const records = Object.fromEntries(
  SPLITS.map((s) => [
    s,
    outputText(built.files.get(`${s}.jsonl`)!)
      .split('\n')
      .filter(Boolean)
      .map((l) => DataRecord.parse(JSON.parse(l))),
  ]),
) as Record<Split, DataRecord[]>
const { lines, problems } = parseProvenance(outputText(built.files.get('provenance.jsonl')!))
const upstream = new Map(
  (await loadSources(recipe, fetcher)).flatMap((s) => s.questions.map((q) => [`${q.upstreamSplit}\u0000${q.id}`, q] as const)),
)
const specOf = (name: string) => recipe.sources.find((s) => s.name === name)!
const rowOf = (id: string, split: Split, source: string) => upstream.get(`${specOf(source)[split].from}\u0000${id}`)!
const borrowedOf = (p: ProvenanceLine) => p.choices.filter((c) => c.from === 'borrowed')

describe('provenance.jsonl of the fixture build', () => {
  test('one parsable line per record, test then val, each choice accounted for', () => {
    assert.deepEqual(problems, [])
    assert.deepEqual(
      lines.map((l) => `${l.split} ${l.id}`),
      SPLITS.flatMap((s) => records[s].map((r) => `${s} ${r.id}`)),
    )
    assert.deepEqual(checkProvenance(records, lines, recipe), [])
    assert.ok(lines.filter((l) => borrowedOf(l).length).length > 20, 'enough grown items for the checks below to mean something')
  })

  test('every choice is what its origin says, read from the upstream rows themselves', () => {
    for (const [i, p] of lines.entries()) {
      const r = SPLITS.flatMap((s) => records[s])[i]!
      const row = rowOf(r.id, p.split, r.source)
      assert.equal(p.upstream.path, row.file)
      assert.equal(p.upstream.repo, specOf(r.source).repo)
      p.choices.forEach((c, k) => {
        if (c.from === 'upstream') {
          assert.equal(r.choices[k], row.options[c.index], `${r.id} choice ${k}`)
          return
        }
        const lender = rowOf(c.lender, p.split, r.source)
        assert.ok(lender, `${r.id}: lender ${c.lender} is not on the ${p.split} side`)
        assert.equal(r.choices[k], lender.options[c.index], `${r.id} choice ${k}`)
        assert.notEqual(c.index, lender.answer, `${r.id}: lent ${c.lender}'s right answer`)
        assert.equal(
          groupOf(specOf(r.source), lender as never),
          groupOf(specOf(r.source), row as never),
          `${r.id}: lender from another group`,
        )
      })
    }
  })

  test('no negative question is grown, no label-like option is lent, BoolQ has one question per passage', () => {
    const isNegative = negationTest(recipe)
    let negatives = 0
    for (const [i, p] of lines.entries()) {
      const r = SPLITS.flatMap((s) => records[s])[i]!
      if (isNegative(specOf(r.source), normalize(r.question))) {
        negatives++
        assert.equal(borrowedOf(p).length, 0, r.id)
      }
      for (const [k, c] of p.choices.entries()) if (c.from === 'borrowed') assert.ok(!isLabelLike(r.choices[k]!), r.choices[k])
    }
    assert.ok(negatives > 0, 'the fixture has negative questions')
    const passages = SPLITS.flatMap((s) => records[s])
      .filter((r) => r.source === 'boolq')
      .map((r) => normalize(r.context!))
    assert.equal(new Set(passages).size, passages.length)
  })

  test('the identifiers name the upstream row, never a position', () => {
    for (const p of lines) {
      const local = p.id.slice(p.id.indexOf('-') + 1)
      assert.equal('id' in p.upstream ? p.upstream.id : p.upstream.contentHash, local)
      assert.equal('contentHash' in p.upstream, ['mmlu', 'boolq'].includes(p.id.split('-')[0]!))
    }
  })
})

describe('checkUpstream', () => {
  test('accepts the build as it is', async () => {
    assert.deepEqual(await checkUpstream(records, lines, recipe, fetcher, lock), [])
  })

  test("names a borrowed option that is its lender's right answer, or not the option named", async () => {
    const tampered = structuredClone(lines)
    const p = tampered.find((l) => borrowedOf(l).length)!
    const k = p.choices.findIndex((c) => c.from === 'borrowed')
    const c = p.choices[k] as { lender: string; index: number }
    c.index = rowOf(c.lender, p.split, p.id.split('-')[0]!).answer
    const found = await checkUpstream(records, tampered, recipe, fetcher, lock)
    assert.ok(
      found.some((x) => x.includes(`${p.split} ${p.id}: choice ${k} is the right answer of its lender ${c.lender}`)),
      found.join('\n'),
    )
    assert.ok(
      found.some((x) => x.includes(`${p.split} ${p.id}: choice ${k} is not option`)),
      found.join('\n'),
    )
  })

  test('names an upstream index that does not match, and a lender that does not exist', async () => {
    const tampered = structuredClone(lines)
    const p = tampered.find((l) => l.choices.length > 2 && borrowedOf(l).length)!
    const u = p.choices.findIndex((c) => c.from === 'upstream')
    const v = p.choices.findIndex((c, i) => i !== u && c.from === 'upstream')
    ;[p.choices[u], p.choices[v]] = [p.choices[v]!, p.choices[u]!]
    const b = p.choices.find((c) => c.from === 'borrowed') as { lender: string }
    b.lender = `${p.id.split('-')[0]}-nobody`
    const found = await checkUpstream(records, tampered, recipe, fetcher, lock)
    assert.ok(
      found.some((x) => x.includes(`choice ${u} is not upstream option`)),
      found.join('\n'),
    )
    assert.ok(
      found.some((x) => x.includes('names a lender') && x.includes('-nobody')),
      found.join('\n'),
    )
  })
})

describe('checkUpstream: the divide and the group', () => {
  const lendersOf = (source: string) => lines.filter((l) => l.id.startsWith(`${source}-`) && borrowedOf(l).length)
  /** what checkUpstream finds when p's first borrowed choice names `lender` instead */
  const withLender = (p: (typeof lines)[number], lender: string) => {
    ;(p.choices.find((c) => c.from === 'borrowed') as { lender: string }).lender = lender
    return checkUpstream(
      records,
      lines.map((l) => (l.id === p.id && l.split === p.split ? p : l)),
      recipe,
      fetcher,
      lock,
    )
  }

  test('a lender from the other side of a one-split source is found by its side hash', async () => {
    const p = structuredClone(lendersOf('jcommonsenseqa')[0]!)
    const other = SPLITS.find((s) => s !== p.split)!
    const far = lines.find((l) => l.split === other && l.id.startsWith('jcommonsenseqa-'))!
    const found = await withLender(p, far.id)
    assert.ok(
      found.some((x) => x.includes(`lender ${far.id} is on the other side of the test/val divide`)),
      found.join('\n'),
    )
  })

  test('an MMLU lender from another subject is found', async () => {
    const p = structuredClone(lendersOf('mmlu')[0]!)
    const mine = rowOf(p.id, p.split, 'mmlu').subject
    const far = lines.find((l) => l.split === p.split && l.id.startsWith('mmlu-') && rowOf(l.id, l.split, 'mmlu').subject !== mine)!
    const found = await withLender(p, far.id)
    assert.ok(
      found.some((x) => x.includes(`lender ${far.id} is in group`)),
      found.join('\n'),
    )
  })
})

describe('checkProvenance', () => {
  test('finds a negative question with borrowed options, a label-like loan, a shared passage, a missing line', () => {
    const recs = structuredClone(records)
    const i = lines.findIndex((l) => l.split === 'test' && borrowedOf(l).length)
    const grown = recs.test[i]!
    grown.question = `Which of these is not ${grown.question}`
    const k = lines[i]!.choices.findIndex((c) => c.from === 'borrowed')
    grown.choices[k] = '(E) a labelled option'
    const boolq = [...recs.test, ...recs.val].filter((r) => r.source === 'boolq')
    boolq[1]!.context = boolq[0]!.context
    const found = checkProvenance(recs, lines.slice(0, -1), recipe)
    assert.ok(
      found.some((x) => x.includes(`(${grown.id}): a negative question with borrowed options`)),
      found.join('\n'),
    )
    assert.ok(
      found.some((x) => x.includes('looks like a label')),
      found.join('\n'),
    )
    assert.ok(
      found.some((x) => x.includes(`same passage as`) && x.includes(boolq[0]!.id)),
      found.join('\n'),
    )
    assert.ok(
      found.some((x) => x.startsWith('provenance.jsonl: no line for val ')),
      found.join('\n'),
    )
  })
})
