// How the lending's exact top-32 search grows with its group on the bench's synthetic words
// (docs/performance.md, "Wave 5"). For ARC-like documents drawn as bench/synth.ts draws them, one
// group of N, it takes each query's exact 32nd best score θ (from a full pass) and counts what a
// search would still have to do if it were told θ in advance:
//   MaxScore (term at a time, as the builder's TfIdfIndex.candidates): set aside the weakest terms
//     while their bounds sum below θ; the rest are essential, and every posting of theirs is read
//     (no document reached only by the others can reach θ): the postings, and the documents reached;
//   block-max (document at a time, WAND-style, blocks of 64 postings in doc-id order with their
//     largest weight): the documents whose bound over the query terms they contain, from each
//     term's block, reaches θ, which it must score in full (its cursor work is not counted).
// With the exponent of each count's growth from the size before (1 = linear in N). With --mirror,
// the same for the largest test-side group of each source the real recipe grows.
//   npx tsx bench/search-oracle.ts [N ...]   (default: the ARC-Easy group at ×1, ×10, ×30, ×100)
//   npx tsx bench/search-oracle.ts --mirror ../shared/hub-mirror

import { lendingDocument } from '../src/borrow/lend.ts'
import { groupsOf } from '../src/borrow/pool.ts'
import { quantise, SCALE, TfIdfIndex } from '../src/borrow/similarity.ts'
import { type IndexCore, indexCore } from '../src/borrow/similarity-core.ts'
import { SLACK } from '../src/borrow/top-k.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadSource } from '../src/load-sources.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import type { Recipe } from '../src/recipe/schema.ts'
import { SourcePreparer } from '../src/select/select.ts'
import { randInt, rngFor } from '../src/shape/rng.ts'
import { compareStrings } from '../src/util/canonical.ts'
import { wordsOf } from './synth.ts'

const K = 32
const BLOCK = 64
const QUERIES = 100
const ARC_EASY_TEST = 2376

function documents(n: number): string[][] {
  const rng = rngFor(1234, 'search-oracle', String(n))
  const draw = wordsOf('zipf', n / ARC_EASY_TEST)
  const words = (min: number, max: number) => Array.from({ length: min + randInt(rng, max - min + 1) }, () => draw(rng)).join(' ')
  return Array.from({ length: n }, () => [words(8, 30), ...Array.from({ length: 3 + randInt(rng, 3) }, () => words(1, 6))])
}

interface Counts {
  n: number
  queries: number
  theta: number
  reached: number
  postings: number
  essential: number
  scoredInFull: number
}

/** Each posting's block maximum: the largest weight among the BLOCK postings of its term it is stored with. */
function blockMaxima(core: IndexCore): Float64Array {
  const out = new Float64Array(core.docs.length)
  for (let t = 0; t + 1 < core.postStart.length; t++)
    for (let p = core.postStart[t]!; p < core.postStart[t + 1]!; p += BLOCK) {
      const end = Math.min(p + BLOCK, core.postStart[t + 1]!)
      let m = 0
      for (let q = p; q < end; q++) m = Math.max(m, core.postWeights[q]!)
      out.fill(m, p, end)
    }
  return out
}

function measure(docs: string[][], nearCopy: number): Counts {
  const n = docs.length
  const core = indexCore(docs)
  const index = new TfIdfIndex(docs)
  const ceiling = quantise(nearCopy)
  const blockMax = blockMaxima(core)
  const rng = rngFor(1234, 'search-oracle-queries', String(n))
  const c: Counts = { n, queries: 0, theta: 0, reached: 0, postings: 0, essential: 0, scoredInFull: 0 }
  const bound = new Float64Array(n)
  const touched: number[] = []
  for (let tries = 0; c.queries < QUERIES && tries < 10 * QUERIES; tries++) {
    const d = randInt(rng, n)
    // θ as the builder's ranking has it: the query itself, scores of 0 and near-copies left out
    const { docs: hit, scores } = index.similar(d)
    const kept: number[] = []
    for (let i = 0; i < hit.length; i++) if (hit[i] !== d && scores[i]! > 0 && scores[i]! < ceiling) kept.push(scores[i]!)
    if (kept.length < K) continue
    kept.sort((a, b) => b - a)
    const theta = kept[K - 1]! / SCALE
    c.queries++
    c.theta += theta
    c.reached += hit.length - 1
    // the query's weighted terms with the most each can add, weakest first
    const terms: { id: number; w: number; bound: number }[] = []
    for (let k = core.start[d]!; k < core.start[d + 1]!; k++) {
      const w = core.weights[k]!
      if (w !== 0) terms.push({ id: core.terms[k]!, w, bound: w * core.maxWeight[core.terms[k]!]! })
    }
    terms.sort((a, b) => a.bound - b.bound || a.id - b.id)
    let weak = 0
    let i = 0
    // with the builder's margin (top-k.ts's SLACK), so that a document tied with θ is never set aside
    while (i < terms.length && weak + terms[i]!.bound < theta - SLACK) weak += terms[i++]!.bound
    const essential = new Set<number>()
    for (const { id } of terms.slice(i)) {
      c.postings += core.postStart[id + 1]! - core.postStart[id]!
      for (let p = core.postStart[id]!; p < core.postStart[id + 1]!; p++) if (core.docs[p] !== d) essential.add(core.docs[p]!)
    }
    c.essential += essential.size
    for (const { id, w } of terms)
      for (let p = core.postStart[id]!; p < core.postStart[id + 1]!; p++) {
        const j = core.docs[p]!
        if (bound[j] === 0) touched.push(j)
        bound[j]! += w * blockMax[p]!
      }
    for (const j of touched) {
      if (j !== d && bound[j]! >= theta - SLACK) c.scoredInFull++
      bound[j] = 0
    }
    touched.length = 0
  }
  if (c.queries === 0) throw new Error(`no query of a group of ${n} has ${K} lenders that score`)
  return c
}

function report(c: Counts, before: Counts | null, name = ''): string {
  const per = (x: number) => Math.round(x / c.queries)
  const share = (x: number) => `${per(x)} (${((100 * x) / c.queries / c.n).toFixed(1)} %)`
  const growth = (x: (k: Counts) => number) =>
    before ? `, ×N^${(Math.log(x(c) / c.queries / (x(before) / before.queries)) / Math.log(c.n / before.n)).toFixed(2)}` : ''
  return [
    `${String(c.n).padStart(7)}  ${c.queries} queries  θ ${(c.theta / c.queries).toFixed(3)}`,
    `reached ${share(c.reached)}`,
    `MaxScore told θ: ${per(c.postings)} postings${growth((k) => k.postings)}, ${share(c.essential)} documents`,
    `block-max told θ: ${share(c.scoredInFull)} scored in full${growth((k) => k.scoredInFull)}`,
    name,
  ]
    .filter(Boolean)
    .join('  ')
}

/** The largest test-side group of each source the recipe grows, as its lending indexes it (lenders in id order). */
async function realGroups(recipe: Recipe, mirror: string): Promise<[string, string[][]][]> {
  const fetcher = createMirrorFetcher(mirror)
  const out: [string, string[][]][] = []
  for (const spec of recipe.sources) {
    if (spec.fixedChoices !== undefined) continue
    const preparer = new SourcePreparer(spec, recipe)
    await loadSource(spec, spec.revision, fetcher, { onQuestion: (q) => preparer.add(q) })
    const groups = [...groupsOf(spec, preparer.finish().lenders.test)].sort(
      (a, b) => b[1].length - a[1].length || compareStrings(a[0], b[0]),
    )
    const [name, side] = groups[0]!
    out.push([`${spec.name} ${name}`, [...side].sort((a, b) => compareStrings(a.id, b.id)).map(lendingDocument)])
  }
  return out
}

const args = process.argv.slice(2)
const recipe = await loadRecipe('recipes/jev-bench.json')
const borrow = recipe.distractors.borrow
if (borrow.rule !== 'similar') throw new Error('recipes/jev-bench.json does not rank lenders by similarity')
const nearCopy = borrow.nearCopy
process.stdout.write(`what a top-${K} search must do per query, told θ (${QUERIES} queries; block-max blocks of ${BLOCK})\n`)
if (args[0] === '--mirror')
  for (const [name, docs] of await realGroups(recipe, args[1] ?? '../shared/hub-mirror'))
    process.stdout.write(`${report(measure(docs, nearCopy), null, name)}\n`)
else {
  let before: Counts | null = null
  for (const n of args.length ? args.map(Number) : [1, 10, 30, 100].map((s) => s * ARC_EASY_TEST)) {
    if (!Number.isInteger(n) || n < K + 1) throw new Error(`a group size is a whole number over ${K}: ${n}`)
    const c = measure(documents(n), nearCopy)
    process.stdout.write(`${report(c, before)}\n`)
    before = c
  }
}
