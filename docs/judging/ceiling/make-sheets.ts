// Ceiling experiment, step 2 (cheap): from docs/judging/ceiling/raw.json (extract.ts), per item the top 15 candidates by the
// builder's own ranking (strictest level first), the build's used options where they fall outside those, and
// random draws from the rest of the permitted pool up to 25; shuffled; 4 sheets + key.json.
//   node --import tsx docs/judging/ceiling/make-sheets.ts
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'

const DIR = 'docs/judging/ceiling'
const SALT = 'ceiling-777:'
const TOP = 15
const TOTAL = 25
const SHEETS = 4
const LETTERS = 'ABCDEFGH'

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

interface Opt {
  text: string
  norm: string
  lender: string
  index: number
}
const raw = JSON.parse(readFileSync(`${DIR}/raw.json`, 'utf8')) as {
  rebuildIdentical: { test: boolean; val: boolean }
  levels: { test: number; val: number }
  items: any[]
}

// items numbered in a keyed-hash order (test and val mixed), dealt round-robin to the sheets
const ordered = [...raw.items].sort((a, b) => cmp(sha(`${SALT}n:${a.id}`), sha(`${SALT}n:${b.id}`)))

const keyItems = ordered.map((it, i) => {
  const n = i + 1
  const sheet = (i % SHEETS) + 1
  // the builder's ranking, strictest level first: level 0's list by fit, then what each looser level up to the one
  // the build used for this split adds, in that level's fit order (a looser level's list holds the stricter one's)
  const ranked: (Opt & { level: number; rankInLevel: number })[] = []
  const seen = new Set<string>()
  for (const { level, list } of it.levels as { level: number; list: Opt[] | null }[]) {
    if (level > it.usedLevel || list === null) continue
    list.forEach((b, r) => {
      if (seen.has(b.norm)) return
      seen.add(b.norm)
      ranked.push({ ...b, level, rankInLevel: r })
    })
  }
  const usedList: Opt[] = it.levels[it.usedLevel].list ?? []
  const usedRank = new Map(usedList.map((b, r) => [b.norm, r]))
  const usedNorms = new Set((it.used as Opt[]).map((u) => u.norm))
  const pool = new Map((it.pool as Opt[]).map((p) => [p.norm, p]))
  for (const b of ranked) if (!pool.has(b.norm)) throw new Error(`${it.id}: ranked candidate outside the permitted pool: ${b.text}`)
  const top = ranked.slice(0, TOP)
  const chosen = new Set(top.map((b) => b.norm))
  // the build's own choices are always shown, so (iii) can be scored: those outside the top 15 are added as "used-extra"
  const extra = (it.used as Opt[]).filter((u) => !chosen.has(u.norm))
  for (const u of extra) chosen.add(u.norm)
  const rest = [...pool.values()].filter((p) => !chosen.has(p.norm))
  const random = rest
    .map((p) => ({ p, h: sha(`${SALT}random:${it.id}\u0000${p.norm}`) }))
    .sort((a, b) => cmp(a.h, b.h))
    .slice(0, Math.max(0, TOTAL - top.length - extra.length))
    .map((x) => x.p)
  const rankOf = new Map(ranked.map((b, r) => [b.norm, r]))
  const levelOf = new Map(ranked.map((b) => [b.norm, b.level]))
  const all = [
    ...top.map((b) => ({ b: b as Opt, set: 'top' as const })),
    ...extra.map((b) => ({ b, set: 'used-extra' as const })),
    ...random.map((b) => ({ b, set: 'random' as const })),
  ]
    .map((x) => ({ ...x, h: sha(`${SALT}shuffle:${it.id}\u0000${x.b.norm}`) }))
    .sort((a, b) => cmp(a.h, b.h))
  const candidates = all.map(({ b, set }, j) => ({
    number: j + 1,
    text: b.text,
    norm: b.norm,
    lender: b.lender,
    lenderIndex: b.index,
    set,
    used: usedNorms.has(b.norm),
    // position in the strictest-first ranking (0-based), the strictest level that admits it, its position in the
    // list of the level the build used; null where the builder's lists (levels 0..used) do not hold it
    builderRank: rankOf.get(b.norm) ?? null,
    builderLevel: levelOf.get(b.norm) ?? null,
    rankAtUsedLevel: usedRank.get(b.norm) ?? null,
  }))
  const upstream: string[] = it.upstreamInRecordOrder
  return {
    n,
    sheet,
    id: it.id,
    split: it.split,
    source: it.source,
    group: it.group,
    k: it.k,
    usedLevel: it.usedLevel,
    question: it.record.question,
    context: it.record.context,
    recordChoices: it.record.choices,
    recordAnswerIdx: it.record.answer_idx,
    answerText: it.options[it.answer],
    givenOptions: upstream.map((t, j) => ({ letter: LETTERS[j], text: t })),
    used: it.used,
    sizes: {
      pool: pool.size,
      lenders: it.lenders,
      rankedByLevel: (it.levels as { level: number; list: Opt[] | null }[]).map((l) => (l.list === null ? null : l.list.length)),
      ranked: ranked.length,
      top: top.length,
      usedExtra: extra.length,
      random: random.length,
    },
    candidates,
  }
})

const key = {
  note:
    'Ceiling experiment key. set: top = the builder\'s top 15 (strictest plausible-rule level first, then what each looser level up to the split\'s used level adds, each in its own fit order); used-extra = an option the build used that is not in that top 15; random = keyed-hash draw from the rest of the permitted pool (filling to 25 where the builder ranked fewer than 15). used = the build put it in the record.',
  salt: SALT,
  rebuildIdentical: raw.rebuildIdentical,
  levels: raw.levels,
  sheets: Array.from({ length: SHEETS }, (_, s) => keyItems.filter((x) => x.sheet === s + 1).map((x) => x.n)),
  items: keyItems,
}
writeFileSync(`${DIR}/key.json`, `${JSON.stringify(key, null, 2)}\n`)

const INSTRUCTIONS = `You are judging candidate options for multiple-choice questions. Each item shows a question, its given options
(lettered), and a numbered list of candidates. Nothing else is known about them, and you need not answer the question.

For each candidate, imagine it were added as one more option to this question, beside the given options. Would a reader
who does not know the answer

- **p** (plausible): accept it as an option: it is about the question's topic and of the same kind as the given options,
  and could not be dismissed without knowing the answer;
- **f** (obviously foreign): strike it at once without knowing the answer: off the topic, or of the wrong kind (a number
  where words are asked, a sentence among single words, another unit, a thing where a process is asked, plainly written
  for another question, ...);
- **r** (may also be right): think it may also be a correct answer to the question (it could be defended as right, e.g.
  a synonym of a correct answer or another true answer).

Judge each candidate on its own, against the question and the given options only (not against the other candidates).
Japanese items are judged as a Japanese reader would judge them.

Reply with one line per item: the item number, a colon, and one letter (p, f or r) per candidate, in candidate order,
with no spaces, e.g. \`3: ppfffrpfpfpfffpprpffpfppf\`. Each item says how many candidates it has (25 unless stated).
Write nothing else.`

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()
const quote = (s: string) =>
  s
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n')

for (let s = 1; s <= SHEETS; s++) {
  const parts = [`# Sheet ${s}`, '', INSTRUCTIONS, '']
  for (const it of keyItems.filter((x) => x.sheet === s)) {
    parts.push('---', '', `## Item ${it.n} (${it.candidates.length} candidates)`, '')
    if (it.context) parts.push('Context:', '', quote(it.context), '')
    parts.push('Question:', '', quote(it.question), '', 'Given options:', '')
    for (const o of it.givenOptions) parts.push(`- ${o.letter}. ${oneLine(o.text)}`)
    parts.push('', 'Candidates:', '')
    for (const c of it.candidates) parts.push(`${c.number}. ${oneLine(c.text)}`)
    parts.push('')
  }
  writeFileSync(`${DIR}/sheet-${s}.md`, `${parts.join('\n')}\n`)
}

const sizes = keyItems.map((x) => x.sizes.pool).sort((a, b) => a - b)
const med = (a: number[]) => (a.length % 2 ? a[(a.length - 1) / 2]! : (a[a.length / 2 - 1]! + a[a.length / 2]!) / 2)
const ranked = keyItems.map((x) => x.sizes.ranked).sort((a, b) => a - b)
console.log(
  `items ${keyItems.length}; pool min/median/max ${sizes[0]}/${med(sizes)}/${sizes.at(-1)}; builder-ranked min/median/max ${ranked[0]}/${med(ranked)}/${ranked.at(-1)}; ` +
    `items with <15 ranked: ${keyItems.filter((x) => x.sizes.top < TOP).length}; used-extra: ${keyItems.reduce((s, x) => s + x.sizes.usedExtra, 0)}; ` +
    `candidates ${keyItems.reduce((s, x) => s + x.candidates.length, 0)}`,
)
const bySrc = new Map<string, number[]>()
for (const x of keyItems) bySrc.set(`${x.split}/${x.source}`, [...(bySrc.get(`${x.split}/${x.source}`) ?? []), x.sizes.pool])
for (const [k, v] of [...bySrc].sort()) console.log(`  ${k}: ${v.length} items, pool ${Math.min(...v)}-${Math.max(...v)}`)
