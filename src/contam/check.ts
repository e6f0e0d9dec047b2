import type { UpstreamQuestion } from '../adapt/adapter.ts'
import type { Language } from '../recipe/schema.ts'
import { compareStrings, normalize } from '../util/canonical.ts'
import { GramIndex } from './gram-index.ts'
import { cutNorm, JOIN, normAnswerKey } from './ngrams.ts'

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
  /** item ids by their number in `grams` */
  private readonly ids: string[] = []
  private readonly answers = new Map<string, string[]>()
  private readonly found = new Map<string, Match>()
  /** training rows read, by file */
  readonly rowsRead = new Map<string, number>()

  constructor(
    items: Iterable<Item>,
    private readonly language: Language,
    private readonly n: number,
  ) {
    this.grams = new GramIndex(n)
    for (const item of items) {
      const { all, question, starts } = this.cut(item)
      const right = rightAnswer(item)
      if (right !== undefined) push(this.answers, normAnswerKey(all.slice(0, question), right, language), item.id)
      this.grams.add(this.ids.length, all, starts)
      this.ids.push(item.id)
    }
  }

  /** Checks one training question (with its context, where the source has one). */
  scan(q: Item, row: TrainingRow): void {
    this.rowsRead.set(row.path, (this.rowsRead.get(row.path) ?? 0) + 1)
    const { all, question, starts } = this.cut(q)
    const right = rightAnswer(q)
    if (right !== undefined)
      for (const id of this.answers.get(normAnswerKey(all.slice(0, question), right, this.language)) ?? [])
        this.offer(id, { by: 'question_answer', training: row })
    if (this.grams.empty || starts === 0) return
    const numbered = this.grams.numbered(all)
    // run: how many units from i on are all among the items' units
    const run = new Int32Array(all.length + 1)
    for (let i = all.length - 1; i >= 0; i--) run[i] = numbered[i]! >= 0 ? run[i + 1]! + 1 : 0
    for (let i = 0; i < starts; i++) {
      if (run[i]! < this.n) continue
      const g = this.grams.gramAt(numbered, i)
      if (g < 0) continue
      const ngram = all.slice(i, i + this.n).join(JOIN[this.language])
      for (const item of this.grams.itemsOf(g)) this.offer(this.ids[item]!, { by: 'ngram', training: row, ngram })
    }
  }

  private cut(q: Item) {
    return cutNorm(q.normQuestion ?? normalize(q.question), q.context === null ? null : normalize(q.context), this.language, this.n)
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

/** The right answer, normalised, or undefined for an answer index out of range. */
function rightAnswer(q: Item): string | undefined {
  if (q.normOptions) return q.normOptions[q.answer]
  const right = q.options[q.answer]
  return right === undefined ? undefined : normalize(right)
}

function push(map: Map<string, string[]>, key: string, id: string): void {
  const list = map.get(key)
  if (!list) map.set(key, [id])
  else if (!list.includes(id)) list.push(id)
}
