import { z } from 'zod'
import { kindOf } from '../adapt/kinds.ts'
import type { ContaminationMark, ProvenanceLine } from '../emit/provenance.ts'
import { type Contamination, DEFAULT_NGRAM, LANGUAGES, type Language, type Recipe, type SourceSpec } from '../recipe/schema.ts'
import type { Match } from './check.ts'
import type { TrainingLoad } from './load.ts'

/** What the manifest records of the contamination check. */
export const ContaminationSummary = z.strictObject({
  exclude: z.boolean(),
  ngram: z.record(z.string(), z.int()),
  files: z.array(
    z.strictObject({
      source: z.string(),
      split: z.string(),
      repo: z.string(),
      revision: z.string(),
      path: z.string(),
      checked: z.boolean(),
      /** checked only */
      commit: z.string().optional(),
      rows: z.int().optional(),
      /** not checked only: why */
      reason: z.string().optional(),
    }),
  ),
  /** flagged records by source and split, and by question-and-answer match among them */
  flagged: z.record(
    z.string(),
    z.strictObject({ test: z.int(), val: z.int(), testByQuestionAnswer: z.int(), valByQuestionAnswer: z.int() }),
  ),
})
export type ContaminationSummary = z.infer<typeof ContaminationSummary>

/** The language a source's text is cut by: the recipe's, else its kind's first. */
export function languageOf(spec: SourceSpec): Language {
  return spec.language ?? kindOf(spec).card.languages[0] ?? 'en'
}

export function ngramOf(c: Contamination, language: Language): number {
  return c.ngram[language] ?? DEFAULT_NGRAM[language]
}

/** A record's provenance mark from the check's match (ids local to the source, named as its upstream ids are). */
export function markOf(match: Match | undefined, source: SourceSpec): ContaminationMark {
  if (!match) return { flagged: false }
  const { id, ...at } = match.training
  const local = id.slice(source.name.length + 1)
  return {
    flagged: true,
    by: match.by,
    training: kindOf(source).adapter.idFrom === 'column' ? { ...at, id: local } : { ...at, contentHash: local },
    ...(match.ngram === undefined ? {} : { ngram: match.ngram }),
  }
}

/** Flagged counts by source and split, from the provenance: what check-dataset recomputes. */
export function flaggedCounts(recipe: Recipe, lines: readonly ProvenanceLine[]): ContaminationSummary['flagged'] {
  const out: ContaminationSummary['flagged'] = {}
  for (const s of recipe.sources) out[s.name] = { test: 0, val: 0, testByQuestionAnswer: 0, valByQuestionAnswer: 0 }
  for (const l of lines) {
    const c = l.contamination
    const source = recipe.sources.find((s) => l.id.startsWith(`${s.name}-`))
    if (!c?.flagged || !source) continue
    const row = out[source.name]!
    row[l.split]++
    if (c.by === 'question_answer') row[l.split === 'test' ? 'testByQuestionAnswer' : 'valByQuestionAnswer']++
  }
  return out
}

export function summarize(recipe: Recipe, loads: readonly TrainingLoad[], lines: readonly ProvenanceLine[]): ContaminationSummary {
  const c = recipe.contamination!
  return {
    exclude: c.exclude,
    ngram: Object.fromEntries(LANGUAGES.map((l) => [l, ngramOf(c, l)])),
    files: loads.map((t) => ({
      source: t.entry.source,
      split: t.entry.split,
      repo: t.entry.repo,
      revision: t.entry.revision,
      path: t.entry.path,
      checked: t.checked,
      ...(t.checked ? { commit: t.commit, rows: t.file.rows } : { reason: t.reason }),
    })),
    flagged: flaggedCounts(recipe, lines),
  }
}
