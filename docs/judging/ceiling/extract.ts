// Ceiling experiment, step 1 (heavy): rebuild jev-bench 1.2.0 in memory with the builder's own code, from the hub
// mirror, keeping the lending memos (each item's ranked candidate list, per plausible-rule level) that
// buildFromPrepared fills in. Output: docs/judging/ceiling/raw.json
//   node --import tsx docs/judging/ceiling/extract.ts
// Main builds only the current version: run it at the commit recipes/versions.json records for 1.2.0.
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { isReferential } from '../../../src/borrow/fit.ts'
import type { Borrowed } from '../../../src/borrow/lend.ts'
import { groupOf } from '../../../src/borrow/pool.ts'
import { buildFromPrepared, type LendingMemos } from '../../../src/build.ts'
import { toJsonl } from '../../../src/emit/jsonl.ts'
import { refersToOptions } from '../../../src/prepare/eligibility.ts'
import { codePointLength, compareStrings, normalize } from '../../../src/util/canonical.ts'
import { loadBuildInputs } from '../../../scripts/judging/rebuild.ts'

// the experiment was on 1.2.0: its recipe, and (JEV_OUT) a folder it built, as out/ was then
const RECIPE = 'recipes/jev-bench-1.2.0.json'
const MIRROR = process.env.JEV_MIRROR ?? '../shared/hub-mirror'
const OUT = process.env.JEV_OUT ?? 'out'
const SALT = 'ceiling-777:'
const N_TEST = 30
const N_VAL = 10
const MAX_CHARS = 200

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')
const log = (s: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${s}\n`)

// ---- the sample, from out/provenance.jsonl ----
type Choice = { from: 'upstream'; index: number } | { from: 'borrowed'; lender: string; index: number }
interface Prov {
  id: string
  split: 'test' | 'val'
  choices: Choice[]
}
const prov: Prov[] = readFileSync(`${OUT}/provenance.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
const recs = new Map<string, any>()
for (const split of ['test', 'val'] as const)
  for (const l of readFileSync(`${OUT}/${split}.jsonl`, 'utf8').trim().split('\n')) {
    const r = JSON.parse(l)
    recs.set(`${split}\u0000${r.id}`, r)
  }
const pick = (split: 'test' | 'val', n: number) =>
  prov
    .filter((p) => p.split === split && !p.id.startsWith('boolq-') && p.choices.some((c) => c.from === 'borrowed'))
    .map((p) => ({ p, h: sha(SALT + p.id) }))
    .sort((a, b) => compareStrings(a.h, b.h))
    .slice(0, n)
    .map((x) => x.p)
const sample = [...pick('test', N_TEST), ...pick('val', N_VAL)]
log(`sample: ${sample.length} items`)

// ---- the builder's own inputs, as build-io.ts's buildFromSources reads them ----
log('loading the sources and training splits')
const { recipe, prepared, resources } = await loadBuildInputs(RECIPE, MIRROR)
const borrow = recipe.distractors.borrow
log('building (buildFromPrepared)')
const memos: LendingMemos = new Map()
const built = buildFromPrepared(recipe, prepared, memos, resources)
const same = {
  test: toJsonl(built.records.test) === readFileSync(`${OUT}/test.jsonl`, 'utf8'),
  val: toJsonl(built.records.val) === readFileSync(`${OUT}/val.jsonl`, 'utf8'),
}
log(`rebuild identical to out/: test ${same.test}, val ${same.val}; levels ${JSON.stringify(built.levels)}`)

// ---- per sampled item: the builder's ranked lists, what it used, and the permitted pool ----
const items = sample.map((p) => {
  const source = p.id.slice(0, p.id.indexOf('-'))
  const spec = recipe.sources.find((s) => p.id.startsWith(`${s.name}-`))!
  const ps = prepared.find((x) => x.spec.name === spec.name)!
  const c = ps.sides[p.split].find((x) => x.id === p.id)
  if (!c) throw new Error(`${p.id} not on ${p.split} side`)
  const group = groupOf(spec, c)
  const key = `${spec.name}\u0000${p.split}\u0000${group}`
  const usedLevel = built.levels![p.split]
  const levels: { level: number; list: Borrowed[] | null }[] = []
  for (let level = 0; level <= (borrow.rule === 'similar' ? (borrow.plausible?.fallback.length ?? 0) : 0); level++) {
    const memo = memos.get(level === 0 ? key : `${key}\u0000${level}`)
    levels.push({ level, list: memo?.get(c.id) ?? null })
  }
  const side = ps.lenders[p.split].filter((l) => groupOf(spec, l) === group)
  const byId = new Map(side.map((l) => [l.id, l]))
  const used = p.choices.flatMap((ch) => {
    if (ch.from !== 'borrowed') return []
    const l = byId.get(ch.lender)
    if (!l) throw new Error(`${p.id}: lender ${ch.lender} not in its group's side`)
    return [{ text: l.options[ch.index]!, norm: l.normOptions[ch.index]!, lender: ch.lender, index: ch.index }]
  })
  // permitted: wrong options of the other eligible questions of the group's side, <= 200 code points,
  // not one of the item's own options (normalised), deduplicated, none that refer to other options
  const mine = new Set(c.normOptions)
  const pool = new Map<string, { text: string; norm: string; lender: string; index: number }>()
  for (const l of [...side].sort((a, b) => compareStrings(a.id, b.id))) {
    if (l.id === c.id || l.identity === c.identity) continue
    l.options.forEach((text, i) => {
      if (i === l.answer) return
      const norm = l.normOptions[i]!
      if (mine.has(norm) || pool.has(norm)) return
      if (codePointLength(text) > MAX_CHARS) return
      if (isReferential(text) || refersToOptions(text) || /^(none|both)\b/i.test(text.trim())) return
      pool.set(norm, { text, norm, lender: l.id, index: i })
    })
  }
  const upstream = p.choices.flatMap((ch) => (ch.from === 'upstream' ? [c.options[ch.index]!] : []))
  return {
    id: p.id,
    split: p.split,
    source,
    group,
    k: used.length,
    usedLevel,
    record: recs.get(`${p.split}\u0000${p.id}`),
    provenance: p.choices,
    question: c.question,
    context: c.context,
    options: c.options,
    answer: c.answer,
    upstreamInRecordOrder: upstream,
    lenders: side.length - 1,
    levels: levels.map(({ level, list }) => ({
      level,
      list: list?.map((b) => ({ ...b, norm: normalize(b.text) })) ?? null,
    })),
    used,
    pool: [...pool.values()],
  }
})
writeFileSync('docs/judging/ceiling/raw.json', JSON.stringify({ rebuildIdentical: same, levels: built.levels, items }))
log('wrote docs/judging/ceiling/raw.json')
