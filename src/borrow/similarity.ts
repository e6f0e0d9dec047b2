/**
 * Lexical similarity for ranking lenders (Amendment 1.1): cosine of TF-IDF
 * vectors, IDF counted over the documents given (tokens: ./tokens.ts).
 * Scores are quantised so that ranking never hangs on the last bit of a double.
 */
import { addTokens, Sink, Vocabulary } from './tokens.ts'

/** Scores are multiples of 2^-30: equal texts tie exactly, and a threshold is a plain integer compare. */
export const SCALE = 2 ** 30

export function quantise(score: number): number {
  return Math.round(score * SCALE)
}

/**
 * Unit TF-IDF vectors of a fixed list of documents, with an inverted index,
 * so one document's similarity to all others costs the postings of its terms.
 * A document is a list of normalised texts; term ids follow the documents'
 * order, so every sum runs in the same order on every machine.
 */
export class TfIdfIndex {
  /** document d's terms are terms[start[d] .. start[d+1]), in order of first appearance, with unit weights */
  private readonly start: Int32Array
  private readonly terms: Int32Array
  private readonly weights: Float64Array
  /** document d's terms from its first text are terms[start[d] .. headEnd[d]) (they appear first) */
  private readonly headEnd: Int32Array
  /** term t's documents are docs[postStart[t] .. postStart[t+1]), in document order */
  private readonly postStart: Int32Array
  private readonly docs: Int32Array
  private readonly postWeights: Float64Array
  /** term id → its text */
  readonly words: readonly string[]

  constructor(documents: readonly (readonly string[])[]) {
    const nDocs = documents.length
    const { start, headEnd, terms, counts, words } = countTerms(documents)
    const V = words.length
    const m = start[nDocs]!
    const df = new Int32Array(V)
    for (let k = 0; k < m; k++) df[terms[k]!]!++
    // no +1: a term in every document ("which", "the", "は？") weighs nothing, so the ranking follows what a question is about
    const idf = Float64Array.from(df, (n) => Math.log((nDocs + 1) / (n + 1)))
    const weights = new Float64Array(m)
    for (let d = 0; d < nDocs; d++) {
      let sq = 0
      for (let k = start[d]!; k < start[d + 1]!; k++) {
        const w = counts[k]! * idf[terms[k]!]!
        weights[k] = w
        sq += w * w
      }
      const norm = Math.sqrt(sq)
      if (norm > 0) for (let k = start[d]!; k < start[d + 1]!; k++) weights[k]! /= norm
    }
    const postStart = new Int32Array(V + 1)
    for (let t = 0; t < V; t++) postStart[t + 1] = postStart[t]! + df[t]!
    const next = postStart.slice(0, V)
    const docs = new Int32Array(m)
    const postWeights = new Float64Array(m)
    for (let d = 0; d < nDocs; d++)
      for (let k = start[d]!; k < start[d + 1]!; k++) {
        const at = next[terms[k]!]!++
        docs[at] = d
        postWeights[at] = weights[k]!
      }
    this.start = start
    this.headEnd = headEnd
    this.terms = terms
    this.weights = weights
    this.postStart = postStart
    this.docs = docs
    this.postWeights = postWeights
    this.words = words
  }

  get size(): number {
    return this.start.length - 1
  }

  /** the distinct term ids of document d's first text (a view: never to be written) */
  headTerms(d: number): Int32Array {
    return this.terms.subarray(this.start[d]!, this.headEnd[d]!)
  }

  /** Quantised cosine of document `d` with every document (itself included). */
  similarities(d: number): Float64Array {
    const acc = new Float64Array(this.size)
    // d's terms in its own order: each score is summed in the same order everywhere; a weight-0 term adds nothing
    for (let k = this.start[d]!; k < this.start[d + 1]!; k++) {
      const wk = this.weights[k]!
      if (wk === 0) continue
      const id = this.terms[k]!
      for (let p = this.postStart[id]!; p < this.postStart[id + 1]!; p++) acc[this.docs[p]!]! += wk * this.postWeights[p]!
    }
    for (let j = 0; j < acc.length; j++) acc[j] = quantise(acc[j]!)
    return acc
  }
}

/** Per document, its distinct term ids in order of first appearance and their counts. */
function countTerms(documents: readonly (readonly string[])[]) {
  const vocab = new Vocabulary()
  const sink = new Sink()
  const start = new Int32Array(documents.length + 1)
  const headEnd = new Int32Array(documents.length)
  const terms: number[] = []
  const counts: number[] = []
  // by term id: the last document it was seen in (plus 1), and where it stands in that document's list
  const seenIn: number[] = []
  const at: number[] = []
  for (let d = 0; d < documents.length; d++) {
    headEnd[d] = -1
    for (const text of documents[d]!) {
      sink.n = 0
      addTokens(text, vocab, sink)
      for (let k = 0; k < sink.n; k++) {
        const id = sink.buf[k]!
        if (seenIn[id] === d + 1) counts[at[id]!]!++
        else {
          seenIn[id] = d + 1
          at[id] = terms.length
          terms.push(id)
          counts.push(1)
        }
      }
      if (headEnd[d] === -1) headEnd[d] = terms.length
    }
    if (headEnd[d] === -1) headEnd[d] = terms.length
    start[d + 1] = terms.length
  }
  return { start, headEnd, terms: Int32Array.from(terms), counts: Int32Array.from(counts), words: vocab.words }
}
