/**
 * Options that a source's training split lists together (Amendment 1.2's
 * topic fit where there are no word vectors): JCommonsenseQA builds each
 * question's options from concepts related to one another, so two words
 * listed in one training question are of one topic.
 */
export class RelatedOptions {
  /** normalised option → the training questions that list it, in order */
  private readonly listing = new Map<string, number[]>()
  private readonly sets: string[][] = []

  /** `sets`: each training question's normalised options */
  constructor(sets: readonly (readonly string[])[]) {
    for (const options of sets) {
      const unique = [...new Set(options)]
      const at = this.sets.push(unique) - 1
      for (const o of unique) {
        const list = this.listing.get(o)
        if (list) list.push(at)
        else this.listing.set(o, [at])
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
    const questions = new Set<number>()
    for (const o of own) for (const q of this.listing.get(o) ?? []) questions.add(q)
    const counts = new Map<string, number>()
    for (const q of [...questions].sort((a, b) => a - b)) for (const o of this.sets[q]!) counts.set(o, (counts.get(o) ?? 0) + 1)
    for (const o of own) counts.delete(o)
    const out = new Map<string, number>()
    for (const [o, n] of counts) out.set(o, Math.round((1024 * n) / Math.sqrt(this.listing.get(o)!.length)))
    return out
  }
}
