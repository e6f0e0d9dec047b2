// Small hand-made inputs shared by the unit tests.

import type { UpstreamQuestion } from '../../src/adapt/adapter.ts'
import type { DataRecord } from '../../src/emit/schema.ts'
import { Distractors, type Recipe, type SourceSpec } from '../../src/recipe/schema.ts'

/** An upstream question with sensible defaults; override any field. */
export function uq(over: Partial<UpstreamQuestion> & Pick<UpstreamQuestion, 'id'>): UpstreamQuestion {
  return {
    source: 'src',
    subject: null,
    question: `Question ${over.id}?`,
    context: null,
    options: [`${over.id} right`, `${over.id} wrong 1`, `${over.id} wrong 2`, `${over.id} wrong 3`],
    answer: 0,
    upstreamSplit: 'test',
    file: 'data/test.parquet',
    row: 0,
    ...over,
  }
}

/** A source spec; `from` defaults to test/validation like ARC and MMLU. */
export function sourceSpec(over: Partial<SourceSpec> & Pick<SourceSpec, 'name'>): SourceSpec {
  return {
    adapter: 'arc',
    repo: 'acme/data',
    revision: '0'.repeat(40),
    config: 'default',
    files: { test: ['data/test.parquet'], validation: ['data/validation.parquet'] },
    test: { from: 'test', count: 0 },
    val: { from: 'validation', count: 0 },
    group: 'source',
    shuffle: true,
    onePerContext: false,
    ...over,
  }
}

/** The distractor rules with every default: the plausible rule without word vectors, training ties or a screen. */
export const DISTRACTORS = Distractors.parse({ borrow: { plausible: {} } })

/** A recipe around the given sources; the quota tables are all zero unless given. */
export function recipeOf(sources: SourceSpec[], over: Partial<Recipe> = {}): Recipe {
  const zero = { '2': 0, '3': 0, '4': 0, '5': 0, '6': 0, '7': 0, '8': 0 }
  return {
    name: 'unit',
    version: '1.0.0',
    seed: 1234,
    borrowMaxChars: 200,
    quotas: { test: { ...zero }, val: { ...zero } },
    sources,
    exclude: { ids: [], texts: [] },
    distractors: DISTRACTORS,
    ...over,
  }
}

/** A built record with `n` choices o0…o{n-1} and the answer at `answer`. */
export const rec = (id: string, n: number, answer: number, source = 'a'): DataRecord => ({
  id,
  source,
  question: 'q',
  context: null,
  choices: Array.from({ length: n }, (_, i) => `o${i}`),
  answer_idx: answer,
  n_choices: n,
})
