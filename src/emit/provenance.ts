import { z } from 'zod'
import { SPLITS, type Split } from '../recipe/schema.ts'
import type { DataRecord } from './schema.ts'

/** Where one choice came from: its index among the upstream options, or a lender's option. */
export const ChoiceOrigin = z.discriminatedUnion('from', [
  z.strictObject({ from: z.literal('upstream'), index: z.int().nonnegative() }),
  z.strictObject({ from: z.literal('borrowed'), lender: z.string().min(1), index: z.int().nonnegative() }),
])
/** Where one of a record's choices came from: the sidecar's entry for it (reshape makes them). */
export type Origin = z.infer<typeof ChoiceOrigin>

const TrainingAt = { repo: z.string(), commit: z.string(), split: z.string(), path: z.string() }
/** Whether a record overlaps a training split (recipes with a `contamination` section), and the training row it matches. */
export const ContaminationMark = z.discriminatedUnion('flagged', [
  z.strictObject({ flagged: z.literal(false) }),
  z.strictObject({
    flagged: z.literal(true),
    by: z.enum(['question_answer', 'ngram']),
    training: z.union([
      z.strictObject({ ...TrainingAt, id: z.string().min(1) }),
      z.strictObject({ ...TrainingAt, contentHash: z.string().regex(/^[0-9a-f]{16}$/) }),
    ]),
    ngram: z.string().min(1).optional(),
  }),
])
export type ContaminationMark = z.infer<typeof ContaminationMark>

/** One line of provenance.jsonl: a record's upstream row (never by position) and its choices' origins. */
export const ProvenanceLine = z.strictObject({
  id: z.string().min(1),
  split: z.enum(SPLITS),
  upstream: z.union([
    z.strictObject({ repo: z.string(), commit: z.string(), path: z.string(), id: z.string().min(1) }),
    z.strictObject({ repo: z.string(), commit: z.string(), path: z.string(), contentHash: z.string().regex(/^[0-9a-f]{16}$/) }),
  ]),
  choices: z.array(ChoiceOrigin).min(2).max(8),
  contamination: ContaminationMark.optional(),
})
export type ProvenanceLine = z.infer<typeof ProvenanceLine>

export interface UpstreamOf {
  repo: string
  commit: string
  idFrom: 'column' | 'content'
}

/**
 * The sidecar: one line per record, test then val, each in its file's order.
 * Keys are written in a fixed order so the bytes are the same everywhere.
 */
export function provenanceLines(
  records: Record<Split, readonly DataRecord[]>,
  origins: ReadonlyMap<string, { file: string; choices: readonly Origin[] }>,
  upstreamOf: (source: string) => UpstreamOf,
  /** with a contamination check: each record's mark (without one, the lines have no such key) */
  contaminationOf?: (r: DataRecord) => ContaminationMark,
): ProvenanceLine[] {
  return SPLITS.flatMap((split) =>
    records[split].map((r): ProvenanceLine => {
      const o = origins.get(r.id)
      if (!o) throw new RangeError(`no provenance for ${r.id}`)
      const u = upstreamOf(r.source)
      const local = r.id.slice(r.source.length + 1)
      const at = { repo: u.repo, commit: u.commit, path: o.file }
      return {
        id: r.id,
        split,
        upstream: u.idFrom === 'column' ? { ...at, id: local } : { ...at, contentHash: local },
        choices: o.choices.map((c) =>
          c.from === 'upstream' ? { from: 'upstream', index: c.index } : { from: 'borrowed', lender: c.lender, index: c.index },
        ),
        ...(contaminationOf ? { contamination: contaminationOf(r) } : {}),
      }
    }),
  )
}

export function provenanceJsonl(lines: readonly ProvenanceLine[]): string {
  let out = ''
  for (const l of lines) out += `${JSON.stringify(l)}\n`
  return out
}

/** Reads provenance.jsonl; problems name the line. */
export function parseProvenance(text: string): { lines: ProvenanceLine[]; problems: string[] } {
  const lines: ProvenanceLine[] = []
  const problems: string[] = []
  text.split('\n').forEach((line, i, all) => {
    if (line === '' && i === all.length - 1) return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      problems.push(`provenance.jsonl line ${i + 1}: not JSON`)
      return
    }
    const r = ProvenanceLine.safeParse(value)
    if (r.success) lines.push(r.data)
    else problems.push(`provenance.jsonl line ${i + 1}: ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`)
  })
  return { lines, problems }
}
