// Why the lending's exact search grows with its group on the bench's synthetic words, whatever
// pruning it uses (docs/performance.md, "Wave 5"). For ARC-like documents drawn as bench/synth.ts
// draws them, one group of N, it takes each query's exact 32nd best score θ (from a full pass) and
// counts the documents a search would have to score even if it were told θ in advance:
//   MaxScore: the documents in the postings of the query's "essential" terms (the terms left once
//     the weakest, whose bounds sum below θ, are set aside; no other document can reach θ);
//   block-max: the documents whose bound from their blocks of postings (B in doc-id order, the
//     largest weight in each, over every query term whose block spans the document) reaches θ.
// If these grow with N, each grown item's search costs O(N) and the lending O(N²). With --mirror,
// the same for the largest test-side group of each source the real recipe grows.
//   npx tsx bench/search-oracle.ts [N ...]   (default: the ARC-Easy group at ×1, ×10, ×30, ×100)
//   npx tsx bench/search-oracle.ts --mirror ../shared/hub-mirror
import { compareStrings } from '../src/canonical.ts'
import { lendingDocument } from '../src/lend.ts'
import { groupsOf } from '../src/pool.ts'
import { loadRecipe } from '../src/recipe.ts'
import { randInt, rngFor } from '../src/rng.ts'
import { SourcePreparer } from '../src/select.ts'
import { SCALE, TfIdfIndex } from '../src/similarity.ts'
import { indexCore } from '../src/similarity-core.ts'
import { loadSource } from '../src/sources/load.ts'
import { createMirrorFetcher } from '../src/sources/mirror.ts'
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

function measure(docs: string[][]): string {
  const n = docs.length
  const core = indexCore(docs)
  const index = new TfIdfIndex(docs)
  const nearCopy = Math.round(0.9 * SCALE)
  // each posting's block maximum
  const blockMax = new Float64Array(core.docs.length)
  for (let t = 0; t + 1 < core.postStart.length; t++)
    for (let p = core.postStart[t]!; p < core.postStart[t + 1]!; p += BLOCK) {
      const end = Math.min(p + BLOCK, core.postStart[t + 1]!)
      let m = 0
      for (let q = p; q < end; q++) m = Math.max(m, core.postWeights[q]!)
      blockMax.fill(m, p, end)
    }
  const rng = rngFor(1234, 'search-oracle-queries', String(n))
  let queries = 0
  let reached = 0
  let maxScore = 0
  let blockMaxDocs = 0
  let thetaSum = 0
  const diff = new Float64Array(n + 1)
  const inAny = new Uint8Array(n)
  for (let tries = 0; queries < QUERIES && tries < 10 * QUERIES; tries++) {
    const d = randInt(rng, n)
    const { docs: hit, scores } = index.similar(d)
    const kept: number[] = []
    for (let i = 0; i < hit.length; i++) if (hit[i] !== d && scores[i]! > 0 && scores[i]! < nearCopy) kept.push(scores[i]!)
    if (kept.length < K) continue
    kept.sort((a, b) => b - a)
    const theta = kept[K - 1]! / SCALE
    queries++
    thetaSum += theta
    reached += hit.length
    // the query's weighted terms with the most each can add, weakest first
    const terms: { id: number; w: number; bound: number }[] = []
    for (let k = core.start[d]!; k < core.start[d + 1]!; k++) {
      const w = core.weights[k]!
      if (w !== 0) terms.push({ id: core.terms[k]!, w, bound: w * core.maxWeight[core.terms[k]!]! })
    }
    terms.sort((a, b) => a.bound - b.bound || a.id - b.id)
    let weak = 0
    let i = 0
    while (i < terms.length && weak + terms[i]!.bound < theta) weak += terms[i++]!.bound
    const essential = new Set<number>()
    for (const { id } of terms.slice(i)) for (let p = core.postStart[id]!; p < core.postStart[id + 1]!; p++) essential.add(core.docs[p]!)
    maxScore += essential.size
    diff.fill(0)
    inAny.fill(0)
    for (const { id, w } of terms)
      for (let p = core.postStart[id]!; p < core.postStart[id + 1]!; p += BLOCK) {
        const last = Math.min(p + BLOCK, core.postStart[id + 1]!) - 1
        diff[core.docs[p]!]! += w * blockMax[p]!
        diff[core.docs[last]! + 1]! -= w * blockMax[p]!
        for (let q = p; q <= last; q++) inAny[core.docs[q]!] = 1
      }
    let bound = 0
    for (let j = 0; j < n; j++) {
      bound += diff[j]!
      if (inAny[j] === 1 && bound >= theta - 1e-12) blockMaxDocs++
    }
  }
  const share = (x: number) => `${Math.round(x / queries)} (${((100 * x) / queries / n).toFixed(1)} %)`
  return `${String(n).padStart(7)}  θ ${(thetaSum / queries).toFixed(3)}  reached ${share(reached)}  MaxScore told θ ${share(maxScore)}  block-max told θ ${share(blockMaxDocs)}`
}

/** The largest test-side group of each source the recipe grows, as its lending indexes it (lenders in id order). */
async function realGroups(mirror: string): Promise<[string, string[][]][]> {
  const recipe = await loadRecipe('recipes/jev-bench.json')
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
process.stdout.write(`documents a top-${K} search must score, per query (${QUERIES} queries; block-max blocks of ${BLOCK})\n`)
if (args[0] === '--mirror')
  for (const [name, docs] of await realGroups(args[1] ?? '../shared/hub-mirror')) process.stdout.write(`${measure(docs)}  ${name}\n`)
else {
  const sizes = args.length ? args.map(Number) : [1, 10, 30, 100].map((s) => s * ARC_EASY_TEST)
  for (const n of sizes) process.stdout.write(`${measure(documents(n))}\n`)
}
