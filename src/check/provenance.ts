import { negationTest } from '../borrow/negation.ts'
import { isLabelLike } from '../borrow/option-kinds.ts'
import type { ProvenanceLine } from '../emit/provenance.ts'
import type { DataRecord } from '../emit/schema.ts'
import { type Recipe, SPLITS, type Split } from '../recipe/schema.ts'
import { normalize } from '../util/canonical.ts'

/**
 * What the provenance sidecar must say of the records, and the rules of
 * Amendment 1.1 that can be proved from the files alone: every choice
 * accounted for, the right answer upstream, no borrowing into a negative
 * question or a source that is never grown, no label-like loan, one record
 * per context where the recipe asks for it.
 */
export function checkProvenance(records: Record<Split, readonly DataRecord[]>, lines: readonly ProvenanceLine[], recipe: Recipe): string[] {
  const problems: string[] = []
  const specs = new Map(recipe.sources.map((s) => [s.name, s]))
  const isNegative = negationTest(recipe)
  const rule = recipe.distractors.borrow
  const expected = SPLITS.flatMap((split) => records[split].map((r) => ({ split, r })))
  // matched by split and id, so one missing or extra line is one problem, not a cascade
  const lineOf = new Map<string, number>()
  lines.forEach((p, i) => {
    const key = `${p.split}\u0000${p.id}`
    if (lineOf.has(key)) problems.push(`provenance.jsonl line ${i + 1}: ${p.split} ${p.id} again (first on line ${lineOf.get(key)! + 1})`)
    else lineOf.set(key, i)
  })
  const recordKeys = new Set(expected.map(({ split, r }) => `${split}\u0000${r.id}`))
  lines.forEach((p, i) => {
    if (!recordKeys.has(`${p.split}\u0000${p.id}`))
      problems.push(`provenance.jsonl line ${i + 1}: ${p.split} ${p.id} is not a record of ${p.split}.jsonl`)
  })
  const outOfOrder = expected.findIndex(
    ({ split, r }, i) => lineOf.has(`${split}\u0000${r.id}`) && lineOf.get(`${split}\u0000${r.id}`) !== i,
  )
  if (outOfOrder >= 0)
    problems.push(`provenance.jsonl: not one line per record in the order of test.jsonl then val.jsonl (from line ${outOfOrder + 1} on)`)
  const contexts = new Map<string, string>()
  for (const { split, r } of expected) {
    const i = lineOf.get(`${split}\u0000${r.id}`)
    if (i === undefined) {
      problems.push(`provenance.jsonl: no line for ${split} ${r.id}`)
      continue
    }
    const p = lines[i]!
    const at = `provenance.jsonl line ${i + 1}`
    const spec = specs.get(r.source)
    if (p.choices.length !== r.n_choices) problems.push(`${at} (${r.id}): ${p.choices.length} origins for ${r.n_choices} choices`)
    const right = p.choices[r.answer_idx]
    if (right && right.from !== 'upstream') problems.push(`${at} (${r.id}): the right answer is not an upstream option`)
    const upstream = p.choices.filter((c) => c.from === 'upstream').map((c) => c.index)
    if (new Set(upstream).size !== upstream.length) problems.push(`${at} (${r.id}): an upstream option is used twice`)
    const borrowed = p.choices.flatMap((c, k) => (c.from === 'borrowed' ? [{ c, text: r.choices[k] ?? '' }] : []))
    for (const { c, text } of borrowed) {
      if (c.lender === r.id) problems.push(`${at} (${r.id}): borrows from itself`)
      if (!c.lender.startsWith(`${r.source}-`)) problems.push(`${at} (${r.id}): borrows from ${c.lender}, outside its source`)
      if (rule.skipLabelLike && isLabelLike(text))
        problems.push(`${at} (${r.id}): borrowed option ${JSON.stringify(text)} looks like a label`)
    }
    if (borrowed.length && spec) {
      if (spec.fixedChoices !== undefined) problems.push(`${at} (${r.id}): ${r.source} is never grown but has borrowed options`)
      if (isNegative(spec, normalize(r.question))) problems.push(`${at} (${r.id}): a negative question with borrowed options`)
    }
    if (spec?.onePerContext && r.context !== null) {
      const key = `${r.source}\u0000${normalize(r.context)}`
      const other = contexts.get(key)
      if (other) problems.push(`${split} ${r.id}: same passage as ${other} (${r.source} has one question per passage)`)
      contexts.set(key, `${split} ${r.id}`)
    }
  }
  return problems
}
