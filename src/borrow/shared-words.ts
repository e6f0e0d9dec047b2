import type { Candidate } from '../prepare/eligibility.ts'
import type { OptionRule } from './option-rules.ts'
import { isFunctionWord } from './side.ts'
import { Tokenizer } from './tokens.ts'

/** Credit for the content words a candidate shares with the item's question and options, with one tokenizer for a group's items. */
export class SharedWords {
  readonly #tokenizer = new Tokenizer()

  #terms(norms: readonly string[]): Set<number> {
    const out = new Set<number>()
    for (const n of norms) for (const id of this.#tokenizer.ids(n)) if (!isFunctionWord(this.#tokenizer.word(id))) out.add(id)
    return out
  }

  /** 1024 × the share of a candidate's content terms that the item has. */
  ruleFor(c: Candidate): OptionRule {
    const item = this.#terms([c.normQuestion, ...c.normOptions])
    return (_, norm) => {
      const terms = this.#terms([norm])
      if (terms.size === 0) return 0
      let hits = 0
      for (const id of terms) if (item.has(id)) hits++
      return Math.round((1024 * hits) / terms.size)
    }
  }
}
