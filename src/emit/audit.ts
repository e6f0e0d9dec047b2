import { z } from 'zod'
import { negationTest } from '../borrow/negation.ts'
import { Tokenizer } from '../borrow/tokens.ts'
import { N_CHOICES, type Recipe, SPLITS, type Split } from '../recipe/schema.ts'
import { codePointLength, normalize } from '../util/canonical.ts'
import type { ProvenanceLine } from './provenance.ts'
import type { DataRecord } from './schema.ts'

/**
 * The distractor audit (Amendment 1.1): how much of each split is borrowed,
 * and how far a model gets without knowing any answer. Computed from the
 * records and the provenance alone, so check-dataset can prove every figure.
 */
const Tally = z.strictObject({ items: z.int(), grown: z.int(), borrowed: z.int() })
const Score = z.strictObject({ all: z.number(), grown: z.number() })
const SplitAudit = z.strictObject({
  bySource: z.record(z.string(), Tally),
  byChoices: z.record(z.string(), Tally),
  /** mean of 1/n; and of 1/(upstream options kept): a model that can spot every borrowed option */
  chance: z.strictObject({ floor: Score, spotter: Score }),
  /** accuracy of baselines that never read the answer; ties share the credit */
  baselines: z.strictObject({ longest: Score, shortest: Score, overlap: Score }),
  negatives: z.strictObject({ items: z.int(), grown: z.int() }),
  /** sources that keep the upstream order: how often the first option is the right one */
  firstRight: z.record(z.string(), z.strictObject({ items: z.int(), first: z.int() })),
  /** where the recipe asks: option count → upstream options kept → items (the "effective n"); integer keys keep numeric order */
  byKept: z.record(z.string(), z.record(z.string(), z.int())).optional(),
})
export const Audit = z.strictObject({ test: SplitAudit, val: SplitAudit })
export type Audit = z.infer<typeof Audit>
type SplitAudit = z.infer<typeof SplitAudit>

/** Four decimals: figures meant for reading, the same on every machine. */
const round = (x: number) => Math.round(x * 1e4) / 1e4

/** Credit for picking the option(s) a baseline scores highest: 1/k when the right one is among k tied. */
export function credit(scores: readonly number[], answer: number): number {
  const best = Math.max(...scores)
  const tied = scores.filter((s) => s === best).length
  return scores[answer] === best ? 1 / tied : 0
}

/**
 * The overlap baseline's count: how many distinct tokens of a choice its item's stem holds. Marks by term
 * id rather than a Set per text, as the tokenizer's ids are dense: the audit tokenizes every record's stem
 * and choices, and the Sets were most of its time.
 */
class Overlap {
  private readonly tokenizer = new Tokenizer()
  /** by term id: the stem that last held it, and the choice that last counted it */
  private inStem = new Int32Array(1 << 12)
  private counted = new Int32Array(1 << 12)
  private stems = 0
  private choices = 0

  private ids(text: string): Int32Array {
    const ids = this.tokenizer.ids(normalize(text))
    let max = -1
    for (const id of ids) if (id > max) max = id
    if (max >= this.inStem.length) {
      let n = this.inStem.length
      while (n <= max) n *= 2
      const grow = (a: Int32Array) => {
        const b = new Int32Array(n)
        b.set(a)
        return b
      }
      this.inStem = grow(this.inStem)
      this.counted = grow(this.counted)
    }
    return ids
  }

  /** the item's question and context, which the next calls of `with` count against */
  stem(text: string): void {
    const mark = ++this.stems
    for (const id of this.ids(text)) this.inStem[id] = mark
  }

  with(choice: string): number {
    const mark = ++this.choices
    let n = 0
    for (const id of this.ids(choice))
      if (this.inStem[id] === this.stems && this.counted[id] !== mark) {
        this.counted[id] = mark
        n++
      }
    return n
  }
}

export function computeAudit(records: Record<Split, readonly DataRecord[]>, provenance: readonly ProvenanceLine[], recipe: Recipe): Audit {
  const byId = new Map(provenance.map((p) => [`${p.split}\u0000${p.id}`, p]))
  const specs = new Map(recipe.sources.map((s) => [s.name, s]))
  const isNegative = negationTest(recipe)
  const overlap = new Overlap()
  const out = {} as Record<Split, SplitAudit>
  for (const split of SPLITS) {
    const bySource: SplitAudit['bySource'] = {}
    for (const s of recipe.sources) bySource[s.name] = { items: 0, grown: 0, borrowed: 0 }
    const byChoices: SplitAudit['byChoices'] = Object.fromEntries(N_CHOICES.map((n) => [String(n), { items: 0, grown: 0, borrowed: 0 }]))
    const sums = { floor: [0, 0], spotter: [0, 0], longest: [0, 0], shortest: [0, 0], overlap: [0, 0] }
    const negatives = { items: 0, grown: 0 }
    const firstRight: SplitAudit['firstRight'] = {}
    let grownItems = 0
    const byKept: Record<string, Record<string, number>> = Object.fromEntries(N_CHOICES.map((n) => [String(n), {}]))
    for (const r of records[split]) {
      const p = byId.get(`${split}\u0000${r.id}`)
      const borrowed = p ? p.choices.filter((c) => c.from === 'borrowed').length : 0
      const kept = byKept[String(r.n_choices)]
      if (kept) kept[String(r.n_choices - borrowed)] = (kept[String(r.n_choices - borrowed)] ?? 0) + 1
      const grown = borrowed > 0
      const tallies = [(bySource[r.source] ??= { items: 0, grown: 0, borrowed: 0 }), byChoices[String(r.n_choices)]!]
      for (const t of tallies) {
        t.items++
        t.grown += grown ? 1 : 0
        t.borrowed += borrowed
      }
      const spec = specs.get(r.source)
      if (spec && spec.fixedChoices === undefined && isNegative(spec, normalize(r.question))) {
        negatives.items++
        negatives.grown += grown ? 1 : 0
      }
      if (spec && !spec.shuffle) {
        const f = (firstRight[r.source] ??= { items: 0, first: 0 })
        f.items++
        f.first += r.answer_idx === 0 ? 1 : 0
      }
      overlap.stem(`${r.question} ${r.context ?? ''}`)
      const lengths = r.choices.map(codePointLength)
      const scores = {
        floor: 1 / r.n_choices,
        spotter: 1 / (r.n_choices - borrowed),
        longest: credit(lengths, r.answer_idx),
        shortest: credit(
          lengths.map((l) => -l),
          r.answer_idx,
        ),
        overlap: credit(
          r.choices.map((c) => overlap.with(c)),
          r.answer_idx,
        ),
      }
      for (const k of Object.keys(sums) as (keyof typeof sums)[]) {
        sums[k][0]! += scores[k]
        if (grown) sums[k][1]! += scores[k]
      }
      if (grown) grownItems++
    }
    const n = records[split].length
    const score = (k: keyof typeof sums) => ({
      all: round(n ? sums[k][0]! / n : 0),
      grown: round(grownItems ? sums[k][1]! / grownItems : 0),
    })
    out[split] = {
      bySource,
      byChoices,
      chance: { floor: score('floor'), spotter: score('spotter') },
      baselines: { longest: score('longest'), shortest: score('shortest'), overlap: score('overlap') },
      negatives,
      firstRight,
      ...(recipe.card?.effectiveN ? { byKept } : {}),
    }
  }
  return out
}
