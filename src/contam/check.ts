import type { UpstreamQuestion } from '../adapt/adapter.ts'
import type { Language } from '../recipe/schema.ts'
import { compareStrings, normalize } from '../util/canonical.ts'
import { GramIndex, hashAt } from './gram-index.ts'
import { cutNorm, JOIN, normUnits } from './ngrams.ts'

/** A training row, named as the provenance names an upstream row: never by position. */
export interface TrainingRow {
  repo: string
  commit: string
  split: string
  path: string
  /** the upstream id, or (a source without one) the content hash its record id would carry */
  id: string
}

/** Why an item is flagged: its question and right answer are a training row's, or it shares an n-gram with one. */
export interface Match {
  by: 'question_answer' | 'ngram'
  training: TrainingRow
  /** the shared n-gram (normalised), for `ngram` */
  ngram?: string
}

/** A question to check; it may bring its normalised question and options (a candidate does), which are then not worked out again. */
export type Item = Pick<UpstreamQuestion, 'id' | 'question' | 'context' | 'options' | 'answer'> & {
  normQuestion?: string
  normOptions?: readonly string[]
}

/** Of two matches of one item, the one reported: by question and answer first, then by training row and n-gram in code-unit order. */
function better(a: Match, b: Match): boolean {
  if (a.by !== b.by) return a.by === 'question_answer'
  return (
    (compareStrings(a.training.path, b.training.path) ||
      compareStrings(a.training.split, b.training.split) ||
      compareStrings(a.training.id, b.training.id) ||
      compareStrings(a.ngram ?? '', b.ngram ?? '')) < 0
  )
}

/**
 * One source's items against its training rows. The items' n-grams are indexed (they are the fewer), and each
 * training row is cut only where a run of n units all occur among the items', so a long training text costs
 * little. The result depends neither on the order of the items nor on that of the training rows.
 */
export class ContaminationCheck {
  private readonly grams: GramIndex
  /** per item (by its number in `grams`): its id, and its right answer (normalised) */
  private readonly ids: string[] = []
  private readonly rights: (string | undefined)[] = []
  /** the items with a right answer, by a hash of their question's units */
  private readonly answered = new Map<number, number[]>()
  private readonly found = new Map<string, Match>()
  /** training rows read, by file */
  readonly rowsRead = new Map<string, number>()

  constructor(
    items: Iterable<Item>,
    private readonly language: Language,
    private readonly n: number,
  ) {
    this.grams = new GramIndex(n)
    for (const q of items) {
      const { all, question, starts } = this.cut(q)
      const item = this.grams.add(all, question, starts)
      const right = rightAnswer(q)
      this.ids.push(q.id)
      this.rights.push(right)
      if (right === undefined) continue
      const key = questionKey(this.grams.question(item), question)
      const list = this.answered.get(key)
      if (list) list.push(item)
      else this.answered.set(key, [item])
    }
  }

  /** Checks one training question (with its context, where the source has one). */
  scan(q: Item, row: TrainingRow): void {
    this.rowsRead.set(row.path, (this.rowsRead.get(row.path) ?? 0) + 1)
    const { all, question, starts } = this.cut(q)
    const numbered = this.grams.numbered(all)
    const right = rightAnswer(q)
    // the same question's units (all of them an item's) and the same right answer's
    if (right !== undefined && !numbered.subarray(0, question).includes(-1)) {
      let answer: string | undefined
      for (const item of this.answered.get(questionKey(numbered, question)) ?? []) {
        if (!this.grams.questionIs(item, numbered, question)) continue
        answer ??= this.answerUnits(right)
        if (this.answerUnits(this.rights[item]!) === answer) this.offer(this.ids[item]!, { by: 'question_answer', training: row })
      }
    }
    if (this.grams.empty || starts === 0) return
    // run: how many units from i on are all among the items' units
    const run = new Int32Array(all.length + 1)
    for (let i = all.length - 1; i >= 0; i--) run[i] = numbered[i]! >= 0 ? run[i + 1]! + 1 : 0
    for (let i = 0; i < starts; i++) {
      if (run[i]! < this.n) continue
      const items = this.grams.itemsWith(numbered, i)
      if (items.length === 0) continue
      const ngram = all.slice(i, i + this.n).join(JOIN[this.language])
      for (const item of items) this.offer(this.ids[item]!, { by: 'ngram', training: row, ngram })
    }
  }

  private cut(q: Item) {
    return cutNorm(q.normQuestion ?? normalize(q.question), q.context === null ? null : normalize(q.context), this.language, this.n)
  }

  /** A right answer cut as the n-grams are, so that punctuation and spacing do not tell two apart. */
  private answerUnits(right: string): string {
    return normUnits(right, this.language).join(JOIN[this.language])
  }

  private offer(id: string, m: Match): void {
    const held = this.found.get(id)
    if (!held || better(m, held)) this.found.set(id, m)
  }

  /** Flagged items by id. */
  matches(): ReadonlyMap<string, Match> {
    return this.found
  }
}

/** A question's units, by number, as a small integer: a Map key that costs no allocation. */
function questionKey(units: Int32Array, length: number): number {
  return hashAt(units, 0, length) & 0x3fffffff
}

/** The right answer, normalised, or undefined for an answer index out of range. */
function rightAnswer(q: Item): string | undefined {
  if (q.normOptions) return q.normOptions[q.answer]
  const right = q.options[q.answer]
  return right === undefined ? undefined : normalize(right)
}
