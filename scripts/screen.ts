// Screening of borrowable options by reviewers (docs/judging.md, "Screening").
//   npm run screen -- draw --mirror DIR --dir docs/judging/screen [--top 12] [--top-en 20] [--items 40] [--split val] [--longer]
//   npm run screen -- draw ... --dir docs/judging/screen-2 --after recipes/FILE.screened.json [--want 3]
//   npm run screen -- recheck --dir docs/judging/screen [--dir …] --after recipes/FILE.screened.json --to docs/judging/recheck
//   npm run screen -- collect --dir docs/judging/screen [--dir docs/judging/screen-2 …] [--recheck DIR] --out recipes/FILE.screened.json
// draw rebuilds the recipe's candidate lists with the builder's own code (the recipe's screen left out) and writes
// screen-K.md, each item's question, its own options with the right one marked, and its top candidates;
// a reviewer's answers go to marks-K.txt beside it; collect turns them into the file the recipe pins.
import { readFileSync, writeFileSync } from 'node:fs'
import { join as pathJoin } from 'node:path'
import { parseArgs } from 'node:util'
import { longestCredit } from '../src/borrow/length-cue.ts'
import { ScreenedFile, screenedFile } from '../src/borrow/screen.ts'
import { codePointLength } from '../src/util/canonical.ts'
import { rebuildWithCandidates } from './judging/rebuild.ts'
import { parseScreenMarks, renderScreenSheet, type ScreenItem } from './judging/screen-sheet.ts'

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    recipe: { type: 'string', default: 'recipes/jev-bench.json' },
    mirror: { type: 'string' },
    dir: { type: 'string', multiple: true },
    top: { type: 'string', default: '12' },
    'top-en': { type: 'string', default: '20' },
    items: { type: 'string', default: '40' },
    out: { type: 'string' },
    after: { type: 'string' },
    want: { type: 'string', default: '3' },
    split: { type: 'string' },
    longer: { type: 'boolean', default: false },
    to: { type: 'string' },
    recheck: { type: 'string' },
  },
})
const [command] = positionals
if ((command !== 'draw' && command !== 'collect' && command !== 'recheck') || !values.dir) {
  console.error('usage: npm run screen -- draw --mirror DIR --dir DIR [--top 12] [--top-en 20] [--items 40] | collect --dir DIR --out FILE')
  process.exit(2)
}
const dirs = values.dir
const dir = dirs[0]!
const whole = (flag: 'top' | 'top-en' | 'items' | 'want', least: number) => {
  const n = Number(values[flag])
  if (!Number.isInteger(n) || n < least) throw new Error(`--${flag} must be a whole number of at least ${least}`)
  return n
}

if (command === 'draw') {
  if (!values.mirror) throw new Error('draw needs --mirror')
  const top = whole('top', 1)
  const topEn = whole('top-en', 1)
  const per = whole('items', 1)
  const { items, identical } = await rebuildWithCandidates(values.recipe, values.mirror)
  // --after: a further round for the items with fewer than --want accepted, showing the next candidates only
  const earlier = values.after ? ScreenedFile.parse(JSON.parse(readFileSync(values.after, 'utf8'))).items : undefined
  const want = whole('want', 0)
  const shown: ScreenItem[] = items
    .filter((x) => values.split === undefined || x.split === values.split)
    .map((x) => {
      const before = earlier?.[x.id]
      // --longer: only items whose right answer is their longest option, and only candidates longer than it
      const right = codePointLength(x.options[x.answer]!)
      if (values.longer && longestCredit(x.options, x.answer) === 0) return { ...x, candidates: [] }
      const fits = (text: string) => !values.longer || codePointLength(text) > right
      const accepted = before ? before.shown.filter((n, i) => before.marks[i] === 'a' && fits(n)).length : 0
      if (earlier && before && accepted >= want) return { ...x, candidates: [] }
      const seen = new Set(before?.shown ?? [])
      const rest = x.candidates.filter((c) => !seen.has(c.norm) && fits(c.text))
      return { ...x, candidates: rest.slice(0, /\p{Script=Latin}/u.test(x.question) ? topEn : top) }
    })
    .filter((x) => x.candidates.length > 0)
  const sheets = writeSheets(dir, shown, per, false)
  const same = identical === null ? '' : ` (a rebuild without the screen is out/: ${identical})`
  console.log(`${shown.length} items on ${sheets} sheets in ${dir}${same}`)
} else if (command === 'recheck') {
  // a second reviewer's look at every candidate the rounds accepted, with the texts the rounds showed
  if (!values.after || !values.to) throw new Error('recheck needs --after FILE and --to DIR')
  const file = ScreenedFile.parse(JSON.parse(readFileSync(values.after, 'utf8'))).items
  const texts = new Map<string, ScreenItem>()
  for (const d of dirs)
    for (const x of (JSON.parse(readFileSync(pathJoin(d, 'items.json'), 'utf8')) as { items: ScreenItem[] }).items) addRound(texts, x)
  const shown: ScreenItem[] = Object.entries(file).flatMap(([id, { shown, marks }]) => {
    const x = texts.get(id)
    if (!x) throw new Error(`${id} is in ${values.after} but in none of the rounds' items.json`)
    const byNorm = new Map(x.candidates.map((c) => [c.norm, c]))
    const candidates = shown.filter((_, i) => marks[i] === 'a').map((n) => byNorm.get(n)!)
    return candidates.length ? [{ ...x, candidates }] : []
  })
  const sheets = writeSheets(values.to, shown, whole('items', 1), true)
  console.log(`${shown.length} items on ${sheets} recheck sheets in ${values.to}`)
} else {
  if (!values.out) throw new Error('collect needs --out')
  // every round's items and marks, in round order: an item's candidates and marks are those of its rounds joined
  const items = new Map<string, ScreenItem>()
  const marks = new Map<string, string>()
  const missing: string[] = []
  for (const dir of dirs) {
    const round = collectRound(dir, missing)
    for (const [id, m] of round.marks) {
      addRound(items, round.byId.get(id)!)
      marks.set(id, (marks.get(id) ?? '') + m)
    }
  }
  const again = values.recheck ? collectRound(values.recheck, missing, true).marks : undefined
  const file = screenedFile([...items.values()], marks, again)
  writeFileSync(values.out, `${JSON.stringify(file, null, 1)}\n`)
  console.log(`${marks.size} items screened in ${dirs.length} round(s); not marked: ${missing.join(' ') || 'none'}`)
}

/** Adds a round's item to `items`, its candidates after those of the item's earlier rounds. */
function addRound(items: Map<string, ScreenItem>, x: ScreenItem): void {
  const had = items.get(x.id)
  items.set(x.id, had ? { ...had, candidates: [...had.candidates, ...x.candidates] } : x)
}

/** Deals the items to sheets of `per` in order, writes them and items.json (which ids each sheet has); the number of sheets. */
function writeSheets(to: string, shown: ScreenItem[], per: number, recheck: boolean): number {
  const sheets: ScreenItem[][] = []
  for (let i = 0; i < shown.length; i += per) sheets.push(shown.slice(i, i + per))
  for (const [k, on] of sheets.entries())
    writeFileSync(pathJoin(to, `screen-${k + 1}.md`), renderScreenSheet(on, `${recheck ? 'Recheck sheet' : 'Sheet'} ${k + 1}`, recheck))
  writeFileSync(pathJoin(to, 'items.json'), `${JSON.stringify({ sheets: sheets.map((s) => s.map((x) => x.id)), items: shown }, null, 1)}\n`)
  return sheets.length
}

function collectRound(dir: string, missing: string[], recheck = false): { byId: Map<string, ScreenItem>; marks: Map<string, string> } {
  const drawn = JSON.parse(readFileSync(pathJoin(dir, 'items.json'), 'utf8')) as { sheets: string[][]; items: ScreenItem[] }
  const byId = new Map(drawn.items.map((x) => [x.id, x]))
  const marks = new Map<string, string>()
  drawn.sheets.forEach((ids, k) => {
    const file = pathJoin(dir, `marks-${k + 1}.txt`)
    let text = ''
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      missing.push(...ids)
      return
    }
    const got = parseScreenMarks(
      text,
      ids.map((id) => byId.get(id)!),
      file,
      recheck,
    )
    for (const id of ids) {
      const m = got.get(id)
      if (m) marks.set(id, m)
      else missing.push(id)
    }
  })
  return { byId, marks }
}
