import type { UpstreamQuestion } from '../adapt/adapter.ts'
import { groupOf } from '../borrow/groups.ts'
import type { ProvenanceLine } from '../emit/provenance.ts'
import type { DataRecord } from '../emit/schema.ts'
import type { FileFetcher } from '../fetch/types.ts'
import { loadSource } from '../load-sources.ts'
import { toCandidate } from '../prepare/eligibility.ts'
import { sideOf } from '../prepare/prepare.ts'
import { type Lock, lockedRevision } from '../recipe/lock.ts'
import type { Recipe, Split } from '../recipe/schema.ts'
import { compareStrings } from '../util/canonical.ts'
import { NO_PROGRESS, type Progress } from '../util/progress.ts'

/**
 * Proves the provenance against the upstream rows themselves: each record's
 * question and upstream choices are its row's, verbatim, with its right answer;
 * each borrowed choice is the named lender's option at that index, a wrong one,
 * from the same split and repo. Reads the recipe's sources at the lock's commits.
 */
export async function checkUpstream(
  records: Record<Split, readonly DataRecord[]>,
  lines: readonly ProvenanceLine[],
  recipe: Recipe,
  fetcher: FileFetcher,
  lock: Lock | null,
  progress: Progress = NO_PROGRESS,
): Promise<string[]> {
  const wanted = new Set<string>()
  for (const p of lines) {
    wanted.add(p.id)
    for (const c of p.choices) if (c.from === 'borrowed') wanted.add(c.lender)
  }
  // only the questions the files name are held; of repeats, the first file in code-unit order
  const rows = new Map<string, UpstreamQuestion>()
  for (const [i, spec] of recipe.sources.entries()) {
    progress.stage(`reading the upstream rows (source ${i + 1} of ${recipe.sources.length}: ${spec.name})`)
    await loadSource(spec, lockedRevision(lock, spec), fetcher, {
      onQuestion: (q) => {
        const held = rows.get(q.id)
        if (wanted.has(q.id) && (!held || compareStrings(q.file, held.file) < 0)) rows.set(q.id, q)
      },
      progress,
    })
  }
  progress.stage('checking provenance.jsonl against the upstream rows')
  const specs = new Map(recipe.sources.map((s) => [s.name, s]))
  const byKey = new Map<string, DataRecord>()
  for (const split of ['test', 'val'] as const) for (const r of records[split]) byKey.set(`${split}\u0000${r.id}`, r)
  const problems: string[] = []
  for (const p of lines) {
    const r = byKey.get(`${p.split}\u0000${p.id}`)
    const q = rows.get(p.id)
    const spec = r && specs.get(r.source)
    const at = `${p.split} ${p.id}`
    // nothing is passed over unsaid: a line with no record, or a record of no source, is not proved
    if (!r) {
      problems.push(`${at}: provenance.jsonl names a record ${p.split}.jsonl does not have, so it was not proved`)
      continue
    }
    if (!spec) {
      problems.push(`${at}: its source ${r.source} is not in the recipe, so it was not proved`)
      continue
    }
    if (!q) {
      problems.push(`${at}: no upstream row with this id in ${spec.repo}`)
      continue
    }
    if (p.upstream.path !== q.file || p.upstream.repo !== spec.repo)
      problems.push(`${at}: provenance names ${p.upstream.repo}/${p.upstream.path}, the row is in ${spec.repo}/${q.file}`)
    if (r.question !== q.question || r.context !== q.context)
      problems.push(`${at}: question or context is not the upstream row's, verbatim`)
    const side = spec[p.split].from
    const item = toCandidate(q)
    // where both sides come from one upstream split, the side is the keyed hash's: recompute it
    const sideOfRow = (c: ReturnType<typeof toCandidate>) => (spec.test.from === spec.val.from ? sideOf(spec, recipe.seed, c) : p.split)
    if (sideOfRow(item) !== p.split) problems.push(`${at}: the row belongs on the ${sideOfRow(item)} side`)
    for (const [k, c] of p.choices.entries()) {
      const text = r.choices[k]
      if (c.from === 'upstream') {
        if (q.options[c.index] !== text) problems.push(`${at}: choice ${k} is not upstream option ${c.index}`)
        if ((k === r.answer_idx) !== (c.index === q.answer))
          problems.push(`${at}: choice ${k} is upstream option ${c.index}, but the right answer is upstream option ${q.answer}`)
        continue
      }
      const lender = rows.get(c.lender)
      if (!lender) {
        problems.push(`${at}: choice ${k} names a lender ${c.lender} that no upstream row has`)
        continue
      }
      if (lender.options[c.index] !== text) problems.push(`${at}: choice ${k} is not option ${c.index} of ${c.lender}`)
      if (c.index === lender.answer) problems.push(`${at}: choice ${k} is the right answer of its lender ${c.lender}`)
      const other = toCandidate(lender)
      if (lender.upstreamSplit !== side || sideOfRow(other) !== p.split)
        problems.push(`${at}: lender ${c.lender} is on the other side of the test/val divide`)
      if (groupOf(spec, other) !== groupOf(spec, item))
        problems.push(`${at}: lender ${c.lender} is in group ${groupOf(spec, other)}, the item in ${groupOf(spec, item)}`)
    }
  }
  return problems
}
