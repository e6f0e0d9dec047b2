/**
 * What a source's training split says of which options belong together
 * (Amendment 1.2's topic fit where there are no word vectors). JCommonsenseQA
 * builds each question's options from concepts related to one another, so
 * options one training question lists are of one topic, and the options of
 * training questions like the item's are what such a question is answered with.
 */
import { Tokenizer } from './tokens.ts'

export interface TrainingQuestion {
  /** normalised question */
  question: string
  /** normalised options */
  options: readonly string[]
  /** index of the right one */
  answer: number
}

/** How many of the training questions most like an item's are read for its candidates. */
const NEAREST = 30

export class RelatedOptions {
  /** normalised option → the training questions that list it, in order */
  private readonly listing = new Map<string, number[]>()
  /** each training question's wrong options */
  private readonly wrong: string[][] = []
  private readonly tokenizer = new Tokenizer()
  /** by term id (the training questions' terms are ids 0 … V-1): its idf; its questions are docs[postStart[t] .. postStart[t+1]), with the term's weight there */
  private idf = new Float64Array(0)
  private postStart = new Int32Array(1)
  private docs = new Int32Array(0)
  private postWeights = new Float64Array(0)

  /** the training questions until the first question asked indexes them: a build whose lending is all cached never does */
  private pending: readonly TrainingQuestion[] | null

  constructor(training: readonly TrainingQuestion[]) {
    this.pending = training
  }

  private index(): void {
    const training = this.pending
    if (!training) return
    this.pending = null
    const docs = training.map((t) => [...new Set(this.tokenizer.ids(t.question))])
    const V = this.tokenizer.size
    const df = new Int32Array(V)
    for (const terms of docs) for (const id of terms) df[id]!++
    this.idf = Float64Array.from(df, (n) => Math.log((docs.length + 1) / (n + 1)))
    const lens = docs.map((terms) => Math.sqrt(terms.reduce((sum, id) => sum + this.idf[id]! ** 2, 0)))
    // a question without weighted terms is in no posting list
    const postStart = new Int32Array(V + 1)
    docs.forEach((terms, d) => {
      if (lens[d]! > 0) for (const id of terms) postStart[id + 1]!++
    })
    for (let t = 0; t < V; t++) postStart[t + 1]! += postStart[t]!
    const next = postStart.slice(0, V)
    this.docs = new Int32Array(postStart[V]!)
    this.postWeights = new Float64Array(postStart[V]!)
    docs.forEach((terms, d) => {
      if (lens[d]! > 0)
        for (const id of terms) {
          const at = next[id]!++
          this.docs[at] = d
          this.postWeights[at] = this.idf[id]! / lens[d]!
        }
    })
    this.postStart = postStart
    for (const [d, t] of training.entries()) {
      const unique = [...new Set(t.options)]
      this.wrong.push([...new Set(t.options.filter((o, i) => i !== t.answer && o !== t.options[t.answer]))])
      for (const o of unique) {
        const list = this.listing.get(o)
        if (list) list.push(d)
        else this.listing.set(o, [d])
      }
    }
  }

  /**
   * How strongly the training questions tie an option to `own`: the
   * questions that list it with one of them, over the square root of all
   * that list it (a word listed everywhere is tied to nothing), times 1024 and
   * rounded; 0 for an own option.
   */
  around(own: readonly string[]): (option: string) => number {
    this.index()
    const questions = new Set<number>()
    for (const o of own) for (const q of this.listing.get(o) ?? []) questions.add(q)
    const mine = new Set(own)
    return (option) => {
      const listed = this.listing.get(option)
      if (!listed || mine.has(option)) return 0
      let n = 0
      for (const q of listed) if (questions.has(q)) n++
      return Math.round((1024 * n) / Math.sqrt(listed.length))
    }
  }

  /**
   * For each option, the summed similarity (TF-IDF cosine of the questions,
   * times 1024, rounded) of the most similar training questions that list it
   * as a wrong option: their right answers are too often right here too.
   */
  answering(question: string): Map<string, number> {
    this.index()
    const V = this.idf.length
    const terms = [...new Set(this.tokenizer.ids(question))].filter((id) => id < V)
    let norm = 0
    for (const id of terms) norm += this.idf[id]! ** 2
    const out = new Map<string, number>()
    if (norm === 0) return out
    const len = Math.sqrt(norm)
    // by training question: its score, and whether it shares a term (a shared term of weight 0 still makes it a scored question)
    const scores = new Float64Array(this.wrong.length)
    const scored = new Uint8Array(this.wrong.length)
    // in the query's term order, each question's postings in file order: the sums are the same everywhere
    for (const id of terms)
      for (let p = this.postStart[id]!; p < this.postStart[id + 1]!; p++) {
        const doc = this.docs[p]!
        scored[doc] = 1
        scores[doc]! += (this.postWeights[p]! * this.idf[id]!) / len
      }
    for (const [doc, s] of nearestOf(scored, scores)) for (const o of this.wrong[doc]!) out.set(o, (out.get(o) ?? 0) + s)
    return out
  }
}

/** The NEAREST scored questions by score (×1024, rounded), highest first, then the earlier: one insertion pass, no sort of them all. */
function nearestOf(scored: Uint8Array, scores: Float64Array): [number, number][] {
  const out: [number, number][] = []
  for (let doc = 0; doc < scored.length; doc++) {
    if (!scored[doc]) continue
    const s = Math.round(1024 * scores[doc]!)
    // ties go to the earlier question, which came first
    if (out.length === NEAREST && s <= out[NEAREST - 1]![1]) continue
    let at = Math.min(out.length, NEAREST - 1)
    while (at > 0 && out[at - 1]![1] < s) at--
    out.splice(at, 0, [doc, s])
    if (out.length > NEAREST) out.pop()
  }
  return out
}
