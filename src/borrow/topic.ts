import type { Candidate } from '../prepare/eligibility.ts'
import type { Plausible } from '../recipe/schema.ts'
import { numberClass } from './option-kinds.ts'
import type { OptionRule } from './option-rules.ts'
import { centroid, cosine1024, type TextVector, type WordVectors } from './vectors.ts'

const LATIN = /\p{Script=Latin}/u

/** The topic fit by the recipe's pinned English word vectors, with each option text's vector worked out once for a group's items. */
export class TopicFit {
  readonly #vectors = new Map<string, TextVector>()

  constructor(
    private readonly vectors: WordVectors,
    private readonly pinned: NonNullable<Plausible['vectors']>,
  ) {}

  #of(text: string): TextVector {
    let v = this.#vectors.get(text)
    if (!v) this.#vectors.set(text, (v = this.vectors.of(text)))
    return v
  }

  /**
   * The rule for an item whose own options are English words: twice the
   * cosine (×1024) of a candidate's vector with the own options' centroid
   * plus its cosine with the question; it rejects a candidate below the
   * recipe's minTopic, at least maxAnswer close to the right answer, or with
   * no word that has a vector. None (no credit) for other items.
   */
  ruleFor(c: Candidate): OptionRule | null {
    if (numberClass(c.options) !== 'words' || !c.options.every((x) => LATIN.test(x))) return null
    const own = centroid(
      c.options.map((o) => this.#of(o)),
      this.vectors.header.dimensions,
    )
    if (own.norm2 === 0) return null
    const question = this.vectors.of(c.question)
    const right = this.#of(c.options[c.answer]!)
    const min = Math.round(this.pinned.minTopic * 1024)
    const max = Math.round(this.pinned.maxAnswer * 1024)
    return (text) => {
      const v = this.#of(text)
      const withOwn = cosine1024(v, own)
      // as close to the right answer as a synonym: too often right too ("hours" beside "days")
      if (v.norm2 === 0 || withOwn < min || cosine1024(v, right) >= max) return null
      return 2 * withOwn + (question.norm2 === 0 ? 0 : cosine1024(v, question))
    }
  }
}
