import type { DataRecord } from './schema.ts'

/** One record per line, keys in the spec's order, `\n` after every line. */
export function toJsonl(records: readonly DataRecord[]): string {
  let out = ''
  for (const r of records) {
    out += `${JSON.stringify({
      id: r.id,
      source: r.source,
      question: r.question,
      context: r.context,
      choices: r.choices,
      answer_idx: r.answer_idx,
      n_choices: r.n_choices,
    })}\n`
  }
  return out
}
