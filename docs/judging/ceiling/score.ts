// Ceiling experiment, scoring. Reads the judges' replies docs/judging/ceiling/marks-K.txt (K = sheet number; or the files
// given as arguments, named marks-K…), joins them with docs/judging/ceiling/key.json and prints, per source and overall:
//  (i)   the share of top-15 candidates marked p / f / r, the same for the random draws (and the used-extra ones);
//  (ii)  the ceiling foreign rate Σ_items max(0, k − #p among all candidates) / Σ k, and the same with top-15 only;
//  (iii) the share of the build's actually used candidates marked f (and p, r): a check against the judged 61 %.
//   node --import tsx docs/judging/ceiling/score.ts [--items] [marks-1.txt …]
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'

const DIR = 'docs/judging/ceiling'
type Mark = 'p' | 'f' | 'r'
interface KeyCand {
  number: number
  set: 'top' | 'random' | 'used-extra'
  used: boolean
  text: string
}
interface KeyItem {
  n: number
  sheet: number
  id: string
  split: string
  source: string
  k: number
  candidates: KeyCand[]
}
const key = JSON.parse(readFileSync(join(DIR, 'key.json'), 'utf8')) as { items: KeyItem[] }
const byN = new Map(key.items.map((x) => [x.n, x]))

const args = process.argv.slice(2)
const perItem = args.includes('--items')
const given = args.filter((a) => !a.startsWith('--'))
const files = given.length
  ? given
  : readdirSync(DIR)
      .filter((f) => /^marks-\d+\.txt$/.test(f))
      .sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]))
      .map((f) => join(DIR, f))
if (files.length === 0) {
  console.error(`no marks files: put the judges' replies in ${DIR}/marks-K.txt (K = sheet number)`)
  process.exit(2)
}

/** One judgment of one item: its marks in candidate order. Several files may judge the same item (kept apart). */
interface Judgment {
  item: KeyItem
  marks: Mark[]
  file: string
}
const judgments: Judgment[] = []
const warnings: string[] = []
for (const file of files) {
  if (!existsSync(file)) {
    warnings.push(`${file}: missing`)
    continue
  }
  const sheetNo = Number(basename(file).match(/marks-(\d+)/)?.[1] ?? NaN)
  const here = new Map<number, Judgment>()
  readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .forEach((raw, i) => {
      // tolerant: markdown emphasis, code marks, quotes, "Item 3:", list bullets, full-width colon, spaces or commas between letters
      const line = raw.replace(/[*`_"'“”]/g, ' ').replace(/：/g, ':')
      const m = /(?:^|[^\w])(?:item\s*)?(\d{1,3})\s*[:.)\-]\s*((?:[pfr][\s,;/|]*)+)(?=$|[^a-z])/i.exec(line)
      if (!m) return
      const n = Number(m[1])
      const item = byN.get(n)
      const marks = m[2]!.toLowerCase().replace(/[^pfr]/g, '').split('') as Mark[]
      if (!item) return void warnings.push(`${file}:${i + 1}: no item ${n} in the key (skipped)`)
      if (marks.length !== item.candidates.length)
        return void warnings.push(`${file}:${i + 1}: item ${n} has ${item.candidates.length} candidates, ${marks.length} marks (skipped)`)
      if (Number.isFinite(sheetNo) && item.sheet !== sheetNo) warnings.push(`${file}:${i + 1}: item ${n} is on sheet ${item.sheet}, not ${sheetNo} (kept)`)
      if (here.has(n)) warnings.push(`${file}:${i + 1}: item ${n} marked again in the same file (the last line kept)`)
      here.set(n, { item, marks, file })
    })
  judgments.push(...here.values())
}
const judgedItems = new Set(judgments.map((j) => j.item.n))
const unjudged = key.items.filter((x) => !judgedItems.has(x.n)).map((x) => x.n)

interface Tally {
  p: number
  f: number
  r: number
}
interface Agg {
  judgments: number
  sumK: number
  top: Tally
  random: Tally
  extra: Tally
  used: Tally
  missAll: number
  missTop: number
  /** items where even all candidates cannot supply k plausible ones */
  shortAll: number
}
const zeroT = (): Tally => ({ p: 0, f: 0, r: 0 })
const zero = (): Agg => ({ judgments: 0, sumK: 0, top: zeroT(), random: zeroT(), extra: zeroT(), used: zeroT(), missAll: 0, missTop: 0, shortAll: 0 })
const groups = new Map<string, Agg>()
const agg = (name: string) => groups.get(name) ?? groups.set(name, zero()).get(name)!
const itemLines: string[] = []
for (const j of judgments) {
  const { item, marks } = j
  let pAll = 0
  let pTop = 0
  const tallies = (a: Agg) => {
    a.judgments++
    a.sumK += item.k
    item.candidates.forEach((c, i) => {
      const m = marks[i]!
      const set = c.set === 'top' ? a.top : c.set === 'random' ? a.random : a.extra
      set[m]++
      if (c.used) a.used[m]++
    })
  }
  item.candidates.forEach((c, i) => {
    if (marks[i] === 'p') {
      pAll++
      if (c.set === 'top') pTop++
    }
  })
  for (const a of [agg(item.source), agg('all')]) {
    tallies(a)
    a.missAll += Math.max(0, item.k - pAll)
    a.missTop += Math.max(0, item.k - pTop)
    if (pAll < item.k) a.shortAll++
  }
  const usedMarks = item.candidates.flatMap((c, i) => (c.used ? [marks[i]] : [])).join('')
  itemLines.push(
    `  item ${String(item.n).padStart(2)} ${item.split.padEnd(4)} ${item.source.padEnd(14)} k=${item.k}  p: all ${String(pAll).padStart(2)}/${item.candidates.length}, top ${String(pTop).padStart(2)}/${item.candidates.filter((c) => c.set === 'top').length}  used marked ${usedMarks}  (${basename(j.file)})`,
  )
}

const pct = (x: number, n: number) => (n === 0 ? '   –  ' : `${((100 * x) / n).toFixed(1).padStart(5)}%`)
const sh = (t: Tally) => {
  const n = t.p + t.f + t.r
  return `n=${String(n).padStart(4)}  p ${pct(t.p, n)} f ${pct(t.f, n)} r ${pct(t.r, n)}`
}
const order = ['arc_challenge', 'arc_easy', 'mmlu', 'jcommonsenseqa', 'all']
const names = [...groups.keys()].sort((a, b) => (order.indexOf(a) + 99 * +!order.includes(a)) - (order.indexOf(b) + 99 * +!order.includes(b)))
console.log(`marks: ${files.map((f) => basename(f)).join(', ')}; ${judgments.length} item judgments over ${judgedItems.size} of ${key.items.length} items`)
if (unjudged.length) console.log(`not judged: items ${unjudged.join(', ')}`)
for (const w of warnings) console.log(`warning: ${w}`)
console.log('')
for (const name of names) {
  const a = groups.get(name)!
  console.log(`== ${name}: ${a.judgments} item judgments, Σk = ${a.sumK} borrowed slots`)
  console.log(`  (i)   top-15      ${sh(a.top)}`)
  console.log(`        random      ${sh(a.random)}`)
  if (a.extra.p + a.extra.f + a.extra.r > 0) console.log(`        used-extra  ${sh(a.extra)}   (build's picks outside the top 15)`)
  console.log(
    `  (ii)  ceiling foreign rate, best of all candidates: ${pct(a.missAll, a.sumK)}  (${a.missAll}/${a.sumK}; items short of k plausible: ${a.shortAll})`,
  )
  console.log(`        ceiling foreign rate, top-15 only:          ${pct(a.missTop, a.sumK)}  (${a.missTop}/${a.sumK})`)
  const u = a.used
  console.log(`  (iii) build's used candidates: ${sh(u)}   (foreign ${u.f}/${u.f + u.p + u.r}; judged build: 61% overall)`)
  console.log('')
}
if (perItem) console.log(['per item:', ...itemLines.sort()].join('\n'))
console.log('target: ceiling foreign rate ≤ 35%. The ceiling counts a slot as foreign only where fewer than k of the item’s candidates were marked p.')
