import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadSource } from '../src/load-sources.ts'
import type { Candidate } from '../src/prepare/eligibility.ts'
import { prepareSource, SourcePreparer } from '../src/prepare/prepare.ts'
import { decodeEntry, encodeEntry, type PreparedEntry } from '../src/prepared-cache/cache.ts'
import { type PreparedParts, packPrepared, unpackPrepared } from '../src/prepared-cache/store.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE } from './helpers/cli.ts'
import { recipeOf, sourceSpec, uq } from './helpers/questions.ts'

const FIELDS = [
  'source',
  'id',
  'subject',
  'question',
  'context',
  'options',
  'answer',
  'upstreamSplit',
  'file',
  'row',
  'identity',
  'textKey',
  'normQuestion',
  'normOptions',
  'contextKey',
] as const satisfies readonly (keyof Candidate)[]

/** Through the entry's bytes and back, as a warm build reads it. */
function roundTrip(parts: PreparedParts): PreparedParts {
  const packed = packPrepared(parts)
  assert.ok(packed, 'packs')
  const entry: PreparedEntry = { files: [], prepared: packed }
  const back = decodeEntry(encodeEntry('k', entry), 'k') as PreparedEntry
  return unpackPrepared(back.prepared)
}

function assertSameParts(got: PreparedParts, want: PreparedParts): void {
  assert.deepEqual(got.drops, want.drops)
  assert.deepEqual(got.excludedHits, want.excludedHits)
  for (const kind of ['sides', 'lenders'] as const)
    for (const split of ['test', 'val'] as const) {
      const [a, b] = [got[kind][split], want[kind][split]]
      assert.equal(a.length, b.length, `${kind}.${split}`)
      for (let i = 0; i < a.length; i++)
        for (const f of FIELDS) assert.deepEqual(a[i]![f], b[i]![f], `${kind}.${split}[${i}].${f} (${b[i]!.id})`)
    }
  // one object per candidate, shared between its side and the lenders, as before packing
  const lenders = new Set([...got.lenders.test, ...got.lenders.val])
  for (const c of [...got.sides.test, ...got.sides.val]) assert.ok(lenders.has(c), c.id)
}

test('every fixture source comes back from its packed entry with every field of every candidate', async () => {
  const recipe = await loadRecipe(FIXTURE_RECIPE)
  const fetcher = createMirrorFetcher(FIXTURE_HUB)
  for (const spec of recipe.sources) {
    const preparer = new SourcePreparer(spec, recipe)
    await loadSource(spec, spec.revision, fetcher, { onQuestion: (q) => preparer.add(q) })
    const { spec: _, ...parts } = preparer.finish()
    assert.ok(parts.lenders.test.length + parts.lenders.val.length > 0, spec.name)
    assertSameParts(roundTrip(parts), parts)
  }
})

test('null subjects and contexts, context keys, text that normalises, Japanese and astral text survive packing', () => {
  const spec = sourceSpec({ name: 'src', onePerContext: true, group: 'subject' })
  const parts = (({ spec: _, ...rest }) => rest)(
    prepareSource(
      spec,
      [
        uq({ id: 'src-a', subject: null, context: null, question: 'Ｆｕｌｌ  width?', options: ['ＡＢＣ', 'b', 'c', 'd'] }),
        uq({ id: 'src-b', subject: 'nutrition', context: '犬が 走る。😀', question: '何が走る？', options: ['犬', '猫', '𠮷', 'x'] }),
        uq({ id: 'src-c', subject: 'nutrition', context: '', question: 'plain', options: ['one', 'two'], answer: 1 }),
      ],
      recipeOf([spec]),
    ),
  )
  assert.ok(parts.sides.test.some((c) => c.contextKey !== undefined))
  const back = roundTrip(parts)
  assertSameParts(back, parts)
  const a = back.lenders.test.find((c) => c.id === 'src-a') ?? back.lenders.val.find((c) => c.id === 'src-a')
  assert.equal(a?.normQuestion, 'full width?')
})

test('an empty source packs to an empty one', () => {
  const empty: PreparedParts = { sides: { test: [], val: [] }, lenders: { test: [], val: [] }, drops: new Map(), excludedHits: new Set() }
  assert.deepEqual(roundTrip(empty), empty)
})

test('a lone surrogate or a number outside int32 is not packed (UTF-8 and Int32Array could not give it back), so that source is not cached', () => {
  const spec = sourceSpec({ name: 'src' })
  const partsOf = (qs: Parameters<typeof uq>[0][]) =>
    (({ spec: _, ...rest }) => rest)(
      prepareSource(
        spec,
        qs.map((q) => uq(q)),
        recipeOf([spec]),
      ),
    )
  const fine = partsOf([{ id: 'src-a', question: 'a pair 😀 is fine', options: ['x', 'y'] }])
  assert.ok(packPrepared(fine))
  assert.equal(packPrepared(partsOf([{ id: 'src-a', question: 'lone \ud83d here', options: ['x', 'y'] }])), null)
  assert.equal(packPrepared(partsOf([{ id: 'src-a', question: 'q', options: ['x\udc00', 'y'] }])), null)
  assert.equal(packPrepared(partsOf([{ id: 'src-a', question: 'q', options: ['x', 'y'], row: 2 ** 31 }])), null)
})
