import type { UpstreamQuestion } from '../adapt/adapter.ts'
import type { Language } from '../recipe/schema.ts'
import { compareStrings } from '../util/canonical.ts'
import { answerKey, cut, JOIN } from './ngrams.ts'

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

type Item = Pick<UpstreamQuestion, 'id' | 'question' | 'context' | 'options' | 'answer'>

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
  private readonly grams = new Map<string, string[]>()
  private readonly answers = new Map<string, string[]>()
  private readonly vocabulary = new Set<string>()
  private readonly found = new Map<string, Match>()
  /** training rows read, by file */
  readonly rowsRead = new Map<string, number>()

  constructor(
    items: Iterable<Item>,
    private readonly language: Language,
    private readonly n: number,
  ) {
    for (const item of items) {
      const right = item.options[item.answer]
      if (right !== undefined) push(this.answers, answerKey(item.question, right, language), item.id)
      const { all, starts } = cut(item.question, item.context, language, n)
      for (let i = 0; i < starts; i++) {
        const slice = all.slice(i, i + n)
        for (const u of slice) this.vocabulary.add(u)
        push(this.grams, slice.join(JOIN[language]), item.id)
      }
    }
  }

  /** Checks one training question (with its context, where the source has one). */
  scan(q: Item, row: TrainingRow): void {
    this.rowsRead.set(row.path, (this.rowsRead.get(row.path) ?? 0) + 1)
    const right = q.options[q.answer]
    if (right !== undefined)
      for (const id of this.answers.get(answerKey(q.question, right, this.language)) ?? [])
        this.offer(id, { by: 'question_answer', training: row })
    if (this.grams.size === 0) return
    const { all, starts } = cut(q.question, q.context, this.language, this.n)
    // run[i]: how many units from i on are all among the items' units
    const run = new Array<number>(all.length + 1).fill(0)
    for (let i = all.length - 1; i >= 0; i--) run[i] = this.vocabulary.has(all[i]!) ? run[i + 1]! + 1 : 0
    for (let i = 0; i < starts; i++) {
      if (run[i]! < this.n) continue
      const gram = all.slice(i, i + this.n).join(JOIN[this.language])
      for (const id of this.grams.get(gram) ?? []) this.offer(id, { by: 'ngram', training: row, ngram: gram })
    }
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

function push(map: Map<string, string[]>, key: string, id: string): void {
  const list = map.get(key)
  if (!list) map.set(key, [id])
  else if (!list.includes(id)) list.push(id)
}
