/**
 * Lexical similarity for ranking lenders (Amendment 1.1): cosine of TF-IDF
 * vectors, IDF counted over the documents given (tokens: ./tokens.ts).
 * Scores are quantised so that ranking never hangs on the last bit of a double.
 */
import { lendingArrays } from './array-pool.ts'
import { type IndexCore, indexCore, letGo } from './similarity-core.ts'
import { kthBest, SLACK } from './top-k.ts'

/** Scores are multiples of 2^-30: equal texts tie exactly, and a threshold is a plain integer compare. */
export const SCALE = 2 ** 30

export function quantise(score: number): number {
  return Math.round(score * SCALE)
}

/**
 * Unit TF-IDF vectors of a fixed list of documents in flat arrays, with an
 * inverted index, so one document's similarity to all others costs the
 * postings of its terms. A document is a list of normalised texts.
 */
export class TfIdfIndex {
  /** document d's terms are terms[start[d] .. start[d+1]), in order of first appearance, with unit weights */
  private readonly start: Int32Array
  private readonly terms: Int32Array
  private readonly weights: Float64Array
  /** term t's documents are docs[postStart[t] .. postStart[t+1]) */
  private readonly postStart: Int32Array
  private readonly docs: Int32Array
  private readonly postWeights: Float64Array
  /** document d's terms from its first text are terms[start[d] .. headEnd[d]) (they appear first) */
  private readonly headEnd: Int32Array
  /** term id → its text */
  readonly words: readonly string[]

  /** `documents` in a fixed order (the caller's); term ids follow it, so sums run in the same order everywhere */
  constructor(documents: readonly (readonly string[])[]) {
    // an index asked for again (a group's, after its lending let go of it) shares the arrays built before
    const core = indexCore(documents)
    this.core = core
    this.start = core.start
    this.terms = core.terms
    this.weights = core.weights
    this.postStart = core.postStart
    this.docs = core.docs
    this.postWeights = core.postWeights
    this.headEnd = core.headEnd
    this.words = core.words
    this.maxWeight = core.maxWeight
  }

  /** term t's largest weight in any document */
  private readonly maxWeight: Float64Array
  private readonly core: IndexCore
  private disposed = false

  /**
   * Done with: its arrays go back to the lending's pool for the next index, so nothing it gave out
   * (similar's and candidates' views, headTerms) may be read after, and a query or headTerms
   * after throws. An index never disposed of is left to the collector.
   */
  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    lendingArrays.give(this.acc, this.touched, this.seen, this.out, this.markOf, this.posOf)
    this.acc = this.touched = this.seen = this.out = this.markOf = this.posOf = null
    letGo(this.core)
  }

  /** the distinct term ids of document d's first text: a view of arrays other indexes share (similarity-core.ts), never to be written */
  headTerms(d: number): Int32Array {
    if (this.disposed) throw new RangeError('a TF-IDF index asked after it was disposed of')
    return this.terms.subarray(this.start[d]!, this.headEnd[d]!)
  }

  get size(): number {
    return this.start.length - 1
  }

  /** Quantised cosine of document `d` with every document (itself included). */
  similarities(d: number): Float64Array {
    const out = new Float64Array(this.size)
    const { docs, scores } = this.similar(d)
    for (let i = 0; i < docs.length; i++) out[docs[i]!] = scores[i]!
    return out
  }

  /**
   * Adds `wk` × each posting's weight of term `id` to `acc`, listing each document reached for the first
   * time in `touched` after its first `m`; gives the new count. Both searches sum through here, so their
   * scores are the same sums in the same order.
   */
  private addPostings(id: number, wk: number, acc: Float64Array, touched: Int32Array, seen: Uint8Array, m: number): number {
    for (let p = this.postStart[id]!; p < this.postStart[id + 1]!; p++) {
      const doc = this.docs[p]!
      if (seen[doc] === 0) {
        seen[doc] = 1
        touched[m++] = doc
      }
      acc[doc]! += wk * this.postWeights[p]!
    }
    return m
  }

  /** The query scratch, made on first use and kept: a score per document, the documents reached, and whether each was. */
  private scratch(): { acc: Float64Array; touched: Int32Array; seen: Uint8Array } {
    if (this.disposed) throw new RangeError('a TF-IDF index asked after it was disposed of')
    if (this.acc === null) {
      this.acc = lendingArrays.take(Float64Array, this.size)
      this.touched = lendingArrays.take(Int32Array, this.size)
      this.seen = lendingArrays.take(Uint8Array, this.size)
    }
    return { acc: this.acc, touched: this.touched!, seen: this.seen! }
  }

  /**
   * The same, for only the documents sharing a weighted term with `d` (the
   * others score 0): it costs the postings of d's terms, not the whole list.
   * Docs in the order first reached; each score is the same sum, in the same
   * order, as a full pass. The arrays are views of scratch the next call
   * overwrites, so a query allocates nothing.
   */
  similar(d: number): Sparse {
    const n = this.size
    const { acc, touched, seen } = this.scratch()
    let m = 0
    // the document's terms in a fixed order (its text's): each score is summed in the same order on every machine
    for (let k = this.start[d]!; k < this.start[d + 1]!; k++) {
      const wk = this.weights[k]!
      // a term in every document weighs 0: adding 0 × w changes no sum
      if (wk === 0) continue
      m = this.addPostings(this.terms[k]!, wk, acc, touched, seen, m)
    }
    // acc is left zeroed for the next query; the scores move to the front of it, in touched's order
    for (let i = 0; i < m; i++) {
      const doc = touched[i]!
      seen[doc] = 0
    }
    const scores = (this.out ??= lendingArrays.take(Float64Array, n))
    for (let i = 0; i < m; i++) {
      const doc = touched[i]!
      scores[i] = quantise(acc[doc]!)
      acc[doc] = 0
    }
    return { docs: touched.subarray(0, m), scores: scores.subarray(0, m) }
  }

  /**
   * The documents that can be among the `k` most similar to `d` that score
   * above 0 and under `ceiling` (quantised), `d` aside, with their exact
   * scores — each the same sum in the same order as `similar` gives, so any
   * ranking over them agrees with one over all documents on its first `k` —
   * or null when fewer than `k` such documents are sure to exist (then only a
   * full pass will do). MaxScore: the terms go by the most they can add
   * (rarest first); once the rest could add less than the k-th best partial
   * score, no document they alone reach can make the top, so their postings
   * are skipped and the survivors are scored exactly from their own vectors.
   * Views of scratch, like `similar`'s.
   */
  candidates(d: number, k: number, ceiling: number): Sparse | null {
    const n = this.size
    const { acc, touched, seen } = this.scratch()
    const a = this.start[d]!
    const b = this.start[d + 1]!
    // the item's weighted terms (positions into terms), by bound, largest first; position breaks ties
    const order: number[] = []
    for (let t = a; t < b; t++) if (this.weights[t]! !== 0) order.push(t)
    const bound = (t: number) => this.weights[t]! * this.maxWeight[this.terms[t]!]!
    order.sort((x, y) => bound(y) - bound(x) || x - y)
    // rest[i]: the most the terms from order[i] on can add — their bounds' sum, or (Cauchy–Schwarz, vectors of
    // length 1) the length of the item's vector over them, whichever is less; cost[i]: their postings
    const rest = new Float64Array(order.length + 1)
    const cost = new Float64Array(order.length + 1)
    let sum = 0
    let sq = 0
    for (let i = order.length - 1; i >= 0; i--) {
      const id = this.terms[order[i]!]!
      const wk = this.weights[order[i]!]!
      sum += bound(order[i]!)
      sq += wk * wk
      rest[i] = Math.min(sum, Math.sqrt(sq) * (1 + 1e-12))
      cost[i] = cost[i + 1]! + this.postStart[id + 1]! - this.postStart[id]!
    }
    const heaps = (this.heaps ??= new Float64Array(2 * k + 2))
    // scoring one document from its vector: its terms and the item's, against one posting each
    const perDoc = this.terms.length / n + (b - a)
    const ceil = (ceiling - 1) / SCALE - SLACK
    let m = 0
    let theta = -1
    // at most what the k-th best partial score can be by now: the k-th best at the last check, plus what the terms since could add
    let upper = Number.POSITIVE_INFINITY
    let i = 0
    for (; i <= order.length; i++) {
      // the k-th best partial score among the documents sure to score in (0, ceiling), by a pass over those touched:
      // only when it could stop the walk here, and the postings left outweigh the pass
      if (i === order.length || (cost[i]! > m && rest[i]! < upper - SLACK)) {
        const kept = kthBest(acc, touched, m, d, rest[i]!, ceil, k, heaps, theta)
        theta = heaps[2 * k]!
        upper = heaps[2 * k + 1]!
        // stopping here is exact; it pays once scoring the documents still in reach costs less than the postings left
        if (theta >= 0 && rest[i]! < theta - SLACK && (i === order.length || kept * perDoc <= cost[i]!)) break
      }
      if (i === order.length) break
      const t = order[i]!
      const wk = this.weights[t]!
      m = this.addPostings(this.terms[t]!, wk, acc, touched, seen, m)
      upper += bound(t)
    }
    const left = i < order.length ? rest[i]! : 0
    const scores = (this.out ??= lendingArrays.take(Float64Array, n))
    // the item's terms marked with their positions, so a document's weights can be read in the item's order
    const stamp = ++this.stamp
    const mark = (this.markOf ??= lendingArrays.take(Int32Array, this.words.length))
    const posOf = (this.posOf ??= lendingArrays.take(Int32Array, this.words.length))
    for (let t = a; t < b; t++) {
      mark[this.terms[t]!] = stamp
      posOf[this.terms[t]!] = t - a
    }
    if (this.theirs.length < b - a) this.theirs = new Float64Array(2 * (b - a))
    const w = this.theirs
    let c = 0
    for (let j = 0; j < m; j++) {
      const doc = touched[j]!
      // only those that can still reach the k-th best are kept (none when there is no k-th); scratch left zeroed
      const keep = theta >= 0 && acc[doc]! + left >= theta - SLACK
      acc[doc] = 0
      seen[doc] = 0
      if (!keep) continue
      w.fill(0, 0, b - a)
      for (let t = this.start[doc]!; t < this.start[doc + 1]!; t++) {
        const id = this.terms[t]!
        if (mark[id] === stamp) w[posOf[id]!] = this.weights[t]!
      }
      // the same sum as similar's: the item's terms in its order, those of weight 0 left out, from 0
      let sum = 0
      for (let t = a; t < b; t++) {
        const wk = this.weights[t]!
        if (wk !== 0 && w[t - a]! !== 0) sum += wk * w[t - a]!
      }
      // c <= j: this slot of touched has been read already
      touched[c] = doc
      scores[c++] = quantise(sum)
    }
    return theta < 0 ? null : { docs: touched.subarray(0, c), scores: scores.subarray(0, c) }
  }

  // scratch for similar(), kept between calls: arrays of the index's size, not new ones per query
  private acc: Float64Array | null = null
  private touched: Int32Array | null = null
  private seen: Uint8Array | null = null
  private out: Float64Array | null = null
  // scratch for candidates()
  private heaps: Float64Array | null = null
  private stamp = 0
  private markOf: Int32Array | null = null
  private posOf: Int32Array | null = null
  private theirs = new Float64Array(64)
}

/** Some documents' quantised scores: docs[i] scored scores[i]; any other document scored 0 (views: read before the next query). */
export interface Sparse {
  docs: Int32Array
  scores: Float64Array
}
