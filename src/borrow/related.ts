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
  private readonly sets: string[][] = []
  /** each training question's wrong options */
  private readonly wrong: string[][] = []
  private readonly tokenizer = new Tokenizer()
  /** term → the training questions holding it, with the term's weight there */
  private readonly postings = new Map<number, { doc: number; w: number }[]>()
  private readonly idf = new Map<number, number>()

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
    const df = new Map<number, number>()
    for (const terms of docs) for (const id of terms) df.set(id, (df.get(id) ?? 0) + 1)
    for (const [id, n] of df) this.idf.set(id, Math.log((docs.length + 1) / (n + 1)))
    for (const [d, t] of training.entries()) {
      const unique = [...new Set(t.options)]
      this.sets.push(unique)
      this.wrong.push([...new Set(t.options.filter((o, i) => i !== t.answer && o !== t.options[t.answer]))])
      for (const o of unique) {
        const list = this.listing.get(o)
        if (list) list.push(d)
        else this.listing.set(o, [d])
      }
      const terms = docs[d]!
      let norm = 0
      for (const id of terms) norm += this.idf.get(id)! ** 2
      const len = Math.sqrt(norm)
      if (len === 0) continue
      for (const id of terms) {
        let list = this.postings.get(id)
        if (!list) this.postings.set(id, (list = []))
        list.push({ doc: d, w: this.idf.get(id)! / len })
      }
    }
  }

  /**
   * For each option, how strongly the training questions tie it to `own`:
   * the questions that list it with one of them, over the square root of all
   * that list it (a word listed everywhere is tied to nothing), times 1024 and
   * rounded. The own options themselves are left out.
   */
  around(own: readonly string[]): Map<string, number> {
    this.index()
    const questions = new Set<number>()
    for (const o of own) for (const q of this.listing.get(o) ?? []) questions.add(q)
    const counts = new Map<string, number>()
    for (const q of [...questions].sort((a, b) => a - b)) for (const o of this.sets[q]!) counts.set(o, (counts.get(o) ?? 0) + 1)
    for (const o of own) counts.delete(o)
    const out = new Map<string, number>()
    for (const [o, n] of counts) out.set(o, Math.round((1024 * n) / Math.sqrt(this.listing.get(o)!.length)))
    return out
  }

  /**
   * For each option, the summed similarity (TF-IDF cosine of the questions,
   * times 1024, rounded) of the most similar training questions that list it
   * as a wrong option: their right answers are too often right here too.
   */
  answering(question: string): Map<string, number> {
    this.index()
    const terms = [...new Set(this.tokenizer.ids(question))].filter((id) => this.idf.has(id))
    let norm = 0
    for (const id of terms) norm += this.idf.get(id)! ** 2
    const out = new Map<string, number>()
    if (norm === 0) return out
    const len = Math.sqrt(norm)
    const scores = new Map<number, number>()
    // in the query's term order, each document's postings in file order: the sums are the same everywhere
    for (const id of terms)
      for (const { doc, w } of this.postings.get(id) ?? []) scores.set(doc, (scores.get(doc) ?? 0) + (w * this.idf.get(id)!) / len)
    const nearest = [...scores]
      .map(([doc, s]) => [doc, Math.round(1024 * s)] as const)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, NEAREST)
    for (const [doc, s] of nearest) for (const o of this.wrong[doc]!) out.set(o, (out.get(o) ?? 0) + s)
    return out
  }
}
