/**
 * Lexical similarity for ranking lenders (Amendment 1.1): cosine of TF-IDF
 * vectors, IDF counted over the documents given. Words for Latin-script text,
 * character bigrams for Japanese, whichever a run of text is written in.
 * Scores are quantised so that ranking never hangs on the last bit of a double.
 */

// a run of Japanese script (kanji, kana, the long-vowel mark), or a run of other letters and digits
const RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+|[\p{L}\p{N}]+/gu
const JAPANESE = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]/u

/** Tokens of a normalised text: words, and character bigrams inside Japanese runs. */
export function tokens(norm: string): string[] {
  const out: string[] = []
  for (const m of norm.matchAll(RUN)) {
    const run = m[0]
    if (!JAPANESE.test(run)) {
      out.push(run)
      continue
    }
    const chars = [...run]
    if (chars.length === 1) out.push(run)
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!)
  }
  return out
}

/** Scores are multiples of 2^-30: equal texts tie exactly, and a threshold is a plain integer compare. */
export const SCALE = 2 ** 30

export function quantise(score: number): number {
  return Math.round(score * SCALE)
}

/**
 * Unit TF-IDF vectors of a fixed list of documents, with an inverted index,
 * so one document's similarity to all others costs the postings of its terms.
 */
export class TfIdfIndex {
  /** per document, its term ids (ascending) and unit weights */
  private readonly terms: Int32Array[] = []
  private readonly weights: Float64Array[] = []
  /** postings in CSR form: term t's documents are docs[start[t] .. start[t+1]) */
  private readonly start: Int32Array
  private readonly docs: Int32Array
  private readonly postWeights: Float64Array

  /** `documents` in a fixed order (the caller's); term ids follow it, so sums run in the same order everywhere */
  constructor(documents: readonly (readonly string[])[]) {
    const ids = new Map<string, number>()
    const counts: Map<number, number>[] = []
    for (const doc of documents) {
      const tf = new Map<number, number>()
      for (const tok of doc) {
        let id = ids.get(tok)
        if (id === undefined) ids.set(tok, (id = ids.size))
        tf.set(id, (tf.get(id) ?? 0) + 1)
      }
      counts.push(tf)
    }
    const df = new Int32Array(ids.size)
    for (const tf of counts) for (const t of tf.keys()) df[t]!++
    const n = documents.length
    const idf = Float64Array.from(df, (d) => Math.log((n + 1) / (d + 1)) + 1)
    for (const tf of counts) {
      const t = Int32Array.from([...tf.keys()].sort((a, b) => a - b))
      const w = Float64Array.from(t, (id) => tf.get(id)! * idf[id]!)
      let sq = 0
      for (const x of w) sq += x * x
      const norm = Math.sqrt(sq)
      if (norm > 0) for (let i = 0; i < w.length; i++) w[i]! /= norm
      this.terms.push(t)
      this.weights.push(w)
    }
    this.start = new Int32Array(ids.size + 1)
    for (const t of this.terms) for (const id of t) this.start[id + 1]!++
    for (let i = 0; i < ids.size; i++) this.start[i + 1]! += this.start[i]!
    const fill = this.start.slice(0, ids.size)
    this.docs = new Int32Array(this.start[ids.size]!)
    this.postWeights = new Float64Array(this.docs.length)
    this.terms.forEach((t, d) => {
      for (let k = 0; k < t.length; k++) {
        const at = fill[t[k]!]!++
        this.docs[at] = d
        this.postWeights[at] = this.weights[d]![k]!
      }
    })
  }

  get size(): number {
    return this.terms.length
  }

  /** Quantised cosine of document `d` with every document (itself included). */
  similarities(d: number): Float64Array {
    const scores = new Float64Array(this.terms.length)
    const t = this.terms[d]!
    const w = this.weights[d]!
    // the document's terms in ascending id order: each score is summed in the same order on every machine
    for (let k = 0; k < t.length; k++) {
      const id = t[k]!
      const wk = w[k]!
      for (let p = this.start[id]!; p < this.start[id + 1]!; p++) scores[this.docs[p]!]! += wk * this.postWeights[p]!
    }
    for (let i = 0; i < scores.length; i++) scores[i] = quantise(scores[i]!)
    return scores
  }
}
