/**
 * The arrays of a TF-IDF index (./similarity.ts), a pure function of its documents' texts in order,
 * and the last few built, so an index asked for again over the same texts is not built again: a
 * group's lending lets its index go once its first capacities are read (to bound memory at scale)
 * and the trades of the deal often ask for it again (at jev-bench's size, 31 of 109 builds). Its
 * arrays come from the lending's pool, and go back there once nothing holds the core.
 */
import { lendingArrays } from './array-pool.ts'
import { addTokens, Sink, Vocabulary } from './tokens.ts'

export interface IndexCore {
  documents: readonly (readonly string[])[]
  /** document d's terms are terms[start[d] .. start[d+1]), in order of first appearance, with unit weights */
  start: Int32Array
  terms: Int32Array
  weights: Float64Array
  /** term t's documents are docs[postStart[t] .. postStart[t+1]) */
  postStart: Int32Array
  docs: Int32Array
  postWeights: Float64Array
  /** document d's terms from its first text are terms[start[d] .. headEnd[d]) (they appear first) */
  headEnd: Int32Array
  /** term id → its text */
  words: string[]
  /** term t's largest weight in any document: what one term can add to a score at most */
  maxWeight: Float64Array
  /** what its arrays hold, roughly */
  bytes: number
  /** the indexes built on it, and the list of recent cores while it is there */
  holders: number
}

// the cores built last, newest last, within a budget: all of jev-bench's (~25 MB of arrays, ~20 MB of texts); at scale the few latest
const RECENT: IndexCore[] = []
const RECENT_BUDGET = 64 << 20
let recentBytes = 0

/**
 * The core of an index over `documents`: one built before over the same texts in the same order, or a new one.
 * The caller holds it until it calls letGo.
 */
export function indexCore(documents: readonly (readonly string[])[]): IndexCore {
  for (let i = RECENT.length - 1; i >= 0; i--)
    if (sameDocuments(RECENT[i]!.documents, documents)) {
      RECENT[i]!.holders++
      return RECENT[i]!
    }
  const core = buildCore(documents)
  // what a kept core holds: its arrays and the texts it compares with (a copy, so a caller's later edit cannot make it match other texts)
  const kept = core.bytes + documents.reduce((n, d) => d.reduce((m, t) => m + 2 * t.length, n), 0)
  if (kept <= RECENT_BUDGET) {
    core.documents = documents.map((d) => d.slice())
    core.bytes = kept
    core.holders++
    RECENT.push(core)
    recentBytes += kept
    while (recentBytes > RECENT_BUDGET) {
      const old = RECENT.shift()!
      recentBytes -= old.bytes
      letGo(old)
    }
  }
  return core
}

/** One holder of `core` is done with it: once none is left, its arrays go back to the pool. */
export function letGo(core: IndexCore): void {
  if (--core.holders > 0) return
  if (core.holders < 0) throw new RangeError('an index core let go of more often than it was held')
  lendingArrays.give(core.start, core.terms, core.weights, core.postStart, core.docs, core.postWeights, core.headEnd, core.maxWeight)
}

/** The same texts in the same order (usually the very same strings, which compare at once). */
function sameDocuments(a: readonly (readonly string[])[], b: readonly (readonly string[])[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let d = 0; d < a.length; d++) {
    const x = a[d]!
    const y = b[d]!
    if (x.length !== y.length) return false
    for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return false
  }
  return true
}

/** `a`, or a bigger array from the pool holding its first `keep` (`a` goes back) when it is shorter than `n` */
function atLeast<T extends Int32Array | Float64Array>(a: T, n: number, keep: number): T {
  if (n <= a.length) return a
  const grown = lendingArrays.take(a.constructor as Int32ArrayConstructor, Math.max(2 * a.length, n)) as T
  grown.set(a.subarray(0, keep))
  lendingArrays.give(a)
  return grown
}

/**
 * `documents` in a fixed order (the caller's); term ids follow it, so sums run in the same order everywhere.
 * Each pass is a function of its own: V8 optimises a loop while it runs, and one function of seven loops
 * fell back to unoptimised code at each loop its optimised code had not yet seen run, index after index.
 */
function buildCore(documents: readonly (readonly string[])[]): IndexCore {
  const nDocs = documents.length
  const { start, headEnd, terms, counts, m, words } = countTerms(documents)
  const V = words.length
  const df = documentFrequencies(terms, m, V)
  const idf = inverseFrequencies(df, nDocs)
  const weights = unitWeights(start, terms, counts, idf, nDocs)
  const { postStart, docs, postWeights } = postings(start, terms, weights, df, nDocs)
  const maxWeight = maxWeights(terms, weights, m, V)
  const kept = lendingArrays.take(Int32Array, m)
  kept.set(terms.subarray(0, m))
  lendingArrays.give(terms, counts, df, idf)
  return {
    documents,
    start,
    terms: kept,
    weights,
    postStart,
    docs,
    postWeights,
    headEnd,
    words,
    maxWeight,
    // the buffers it holds (a pooled one is rounded up to its class, or one above), and ~48 bytes a word
    bytes: [start, kept, weights, postStart, docs, postWeights, headEnd, maxWeight].reduce((n, x) => n + x.buffer.byteLength, 48 * V),
    holders: 1,
  }
}

/** Per document, its distinct term ids in order of first appearance and their counts (`terms` and `counts` are scratch from the pool). */
function countTerms(documents: readonly (readonly string[])[]) {
  const counter = new TermCounter(documents.length)
  for (let d = 0; d < documents.length; d++) counter.add(documents[d]!, d)
  return counter.done()
}

/** countTerms' state: one call a document, so the work is optimised call by call rather than by replacing a running loop */
class TermCounter {
  private readonly ids = new Vocabulary()
  private readonly sink = new Sink()
  readonly start: Int32Array
  readonly headEnd: Int32Array
  private terms: Int32Array
  private counts: Int32Array
  // where each term stands in the current document's list: valid when mark[id] is that document plus 1 (0: none yet)
  private mark: Int32Array
  private at: Int32Array
  private m = 0

  constructor(nDocs: number) {
    // taken in this order: the pool serves a class or the one above, so the order decides which buffer each gets (and the core's bytes)
    this.start = lendingArrays.take(Int32Array, nDocs + 1)
    this.headEnd = lendingArrays.take(Int32Array, nDocs)
    this.terms = lendingArrays.take(Int32Array, 4096)
    this.counts = lendingArrays.take(Int32Array, 4096)
    this.mark = lendingArrays.take(Int32Array, 1024)
    this.at = lendingArrays.take(Int32Array, 1024)
  }

  add(texts: readonly string[], d: number): void {
    const sink = this.sink
    sink.n = 0
    let head = -1
    for (const text of texts) {
      addTokens(text, this.ids, sink)
      if (head < 0) head = sink.n
    }
    const n = sink.n
    const buf = sink.buf
    let m = this.m
    const mark = (this.mark = atLeast(this.mark, this.ids.size, this.mark.length))
    const at = (this.at = atLeast(this.at, this.ids.size, this.at.length))
    const terms = (this.terms = atLeast(this.terms, m + n, m))
    const counts = (this.counts = atLeast(this.counts, m + n, m))
    for (let k = 0; k < n; k++) {
      if (k === head) this.headEnd[d] = m
      const id = buf[k]!
      if (mark[id] === d + 1) counts[at[id]!]!++
      else {
        mark[id] = d + 1
        at[id] = m
        terms[m] = id
        counts[m++] = 1
      }
    }
    if (head < 0 || head === n) this.headEnd[d] = m
    this.start[d + 1] = m
    this.m = m
  }

  done() {
    lendingArrays.give(this.mark, this.at)
    return { start: this.start, headEnd: this.headEnd, terms: this.terms, counts: this.counts, m: this.m, words: this.ids.words }
  }
}

/** each term's count of documents */
function documentFrequencies(terms: Int32Array, m: number, V: number): Int32Array {
  const df = lendingArrays.take(Int32Array, V)
  for (let k = 0; k < m; k++) df[terms[k]!]!++
  return df
}

/** each term's inverse document frequency */
function inverseFrequencies(df: Int32Array, nDocs: number): Float64Array {
  const V = df.length
  const idf = lendingArrays.take(Float64Array, V)
  // no +1: a term in every document ("which", "the", "は？") weighs nothing, so the ranking follows what a question is about
  for (let t = 0; t < V; t++) idf[t] = Math.log((nDocs + 1) / (df[t]! + 1))
  return idf
}

/** each document's TF-IDF weights, scaled to unit length */
function unitWeights(start: Int32Array, terms: Int32Array, counts: Int32Array, idf: Float64Array, nDocs: number): Float64Array {
  const weights = lendingArrays.take(Float64Array, start[nDocs]!)
  for (let d = 0; d < nDocs; d++) {
    const a = start[d]!
    const b = start[d + 1]!
    let sq = 0
    for (let k = a; k < b; k++) {
      const w = counts[k]! * idf[terms[k]!]!
      weights[k] = w
      sq += w * w
    }
    const norm = Math.sqrt(sq)
    if (norm > 0) for (let k = a; k < b; k++) weights[k]! /= norm
  }
  return weights
}

/** each term's documents and weights, in document order; `df` is overwritten (with each term's next posting) */
function postings(start: Int32Array, terms: Int32Array, weights: Float64Array, df: Int32Array, nDocs: number) {
  const V = df.length
  const m = start[nDocs]!
  const postStart = lendingArrays.take(Int32Array, V + 1)
  for (let t = 0; t < V; t++) postStart[t + 1] = postStart[t]! + df[t]!
  const fill = df
  fill.set(postStart.subarray(0, V))
  const docs = lendingArrays.take(Int32Array, m)
  const postWeights = lendingArrays.take(Float64Array, m)
  for (let d = 0; d < nDocs; d++)
    for (let k = start[d]!; k < start[d + 1]!; k++) {
      const at = fill[terms[k]!]!++
      docs[at] = d
      postWeights[at] = weights[k]!
    }
  return { postStart, docs, postWeights }
}

/** each term's largest weight in any document: what one term can add to a score at most */
function maxWeights(terms: Int32Array, weights: Float64Array, m: number, V: number): Float64Array {
  const maxWeight = lendingArrays.take(Float64Array, V)
  for (let k = 0; k < m; k++) if (weights[k]! > maxWeight[terms[k]!]!) maxWeight[terms[k]!] = weights[k]!
  return maxWeight
}
