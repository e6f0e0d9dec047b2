/**
 * The arrays of a TF-IDF index (./similarity.ts), a pure function of its documents' texts in order,
 * and the last few built, so an index asked for again over the same texts is not built again: a
 * group's lending lets its index go once its first capacities are read (to bound memory at scale)
 * and the trades of the deal often ask for it again (at jev-bench's size, 31 of 109 builds).
 */
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
}

// the cores built last, newest last, within a budget: all of jev-bench's (~25 MB of arrays, ~20 MB of texts); at scale the few latest
const RECENT: IndexCore[] = []
const RECENT_BUDGET = 64 << 20
let recentBytes = 0

/** The core of an index over `documents`: one built before over the same texts in the same order, or a new one. */
export function indexCore(documents: readonly (readonly string[])[]): IndexCore {
  for (let i = RECENT.length - 1; i >= 0; i--) if (sameDocuments(RECENT[i]!.documents, documents)) return RECENT[i]!
  const core = buildCore(documents)
  // what a kept core holds: its arrays and the texts it compares with (a copy, so a caller's later edit cannot make it match other texts)
  const kept = core.bytes + documents.reduce((n, d) => d.reduce((m, t) => m + 2 * t.length, n), 0)
  if (kept <= RECENT_BUDGET) {
    const copy = { ...core, documents: documents.map((d) => d.slice()), bytes: kept }
    RECENT.push(copy)
    recentBytes += kept
    while (recentBytes > RECENT_BUDGET) recentBytes -= RECENT.shift()!.bytes
    return copy
  }
  return core
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

/** `documents` in a fixed order (the caller's); term ids follow it, so sums run in the same order everywhere */
function buildCore(documents: readonly (readonly string[])[]): IndexCore {
  const ids = new Vocabulary()
  // per document, its distinct term ids in order of first appearance, and their counts
  const start = new Int32Array(documents.length + 1)
  const headEnd = new Int32Array(documents.length)
  const sink = new Sink()
  let terms = new Int32Array(4096)
  let counts = new Int32Array(4096)
  // where each term stands in the current document's list: valid when mark[id] is that document
  let mark = new Int32Array(1024).fill(-1)
  let at = new Int32Array(1024)
  let m = 0
  for (let d = 0; d < documents.length; d++) {
    sink.n = 0
    let head = -1
    for (const text of documents[d]!) {
      addTokens(text, ids, sink)
      if (head < 0) head = sink.n
    }
    const n = sink.n
    if (ids.size > mark.length) {
      const size = Math.max(mark.length * 2, ids.size)
      const grown = new Int32Array(size).fill(-1)
      grown.set(mark)
      mark = grown
      const pos = new Int32Array(size)
      pos.set(at)
      at = pos
    }
    if (m + n > terms.length) {
      const size = Math.max(terms.length * 2, m + n)
      const t = new Int32Array(size)
      t.set(terms.subarray(0, m))
      terms = t
      const c = new Int32Array(size)
      c.set(counts.subarray(0, m))
      counts = c
    }
    const buf = sink.buf
    for (let k = 0; k < n; k++) {
      if (k === head) headEnd[d] = m
      const id = buf[k]!
      if (mark[id] === d) counts[at[id]!]!++
      else {
        mark[id] = d
        at[id] = m
        terms[m] = id
        counts[m++] = 1
      }
    }
    if (head < 0 || head === n) headEnd[d] = m
    start[d + 1] = m
  }
  const nDocs = documents.length
  const V = ids.size
  const df = new Int32Array(V)
  for (let k = 0; k < m; k++) df[terms[k]!]!++
  const idf = new Float64Array(V)
  // no +1: a term in every document ("which", "the", "は？") weighs nothing, so the ranking follows what a question is about
  for (let t = 0; t < V; t++) idf[t] = Math.log((nDocs + 1) / (df[t]! + 1))
  const weights = new Float64Array(m)
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
  // postings: df is each term's count of documents
  const postStart = new Int32Array(V + 1)
  for (let t = 0; t < V; t++) postStart[t + 1] = postStart[t]! + df[t]!
  const fill = postStart.slice(0, V)
  const docs = new Int32Array(m)
  const postWeights = new Float64Array(m)
  for (let d = 0; d < nDocs; d++)
    for (let k = start[d]!; k < start[d + 1]!; k++) {
      const at = fill[terms[k]!]!++
      docs[at] = d
      postWeights[at] = weights[k]!
    }
  // each term's largest weight in any document: what one term can add to a score at most
  const maxWeight = new Float64Array(V)
  for (let k = 0; k < m; k++) if (weights[k]! > maxWeight[terms[k]!]!) maxWeight[terms[k]!] = weights[k]!
  return {
    documents,
    start,
    terms: terms.slice(0, m),
    weights,
    postStart,
    docs,
    postWeights,
    headEnd,
    words: ids.words,
    maxWeight,
    bytes: 8 * (documents.length + 1) + 24 * m + 12 * V + 48 * V,
  }
}
