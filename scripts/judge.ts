// Blind judging of borrowed options (docs/judging.md).
//   npm run judge -- draw OUT_DIR --dir docs/judging/NAME --seed N [--test 60] [--val 20] [--sheets 4]
//   npm run judge -- score OUT_DIR --dir docs/judging/NAME [--publish recipes/FILE.judged.json [--earlier DIR/result.json --earlier-version V]]
// draw writes sample.json (the ids, never which options were borrowed) and sheet-K.md for the judges;
// a judge's answers go to marks-K.txt beside its sheet; score joins them with OUT_DIR/provenance.jsonl.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { JudgedRates } from '../src/emit/judged.ts'
import { datasetHash, recordLines } from '../src/emit/manifest.ts'
import { sha256Hex } from '../src/util/hash.ts'
import { drawSample, parseBuild, parseMarks, renderSheet, type SampleItem, scoreMarks, scoreTable } from './judging/sheet.ts'

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    dir: { type: 'string' },
    seed: { type: 'string' },
    test: { type: 'string', default: '60' },
    val: { type: 'string', default: '20' },
    sheets: { type: 'string', default: '4' },
    publish: { type: 'string' },
    earlier: { type: 'string' },
    'earlier-version': { type: 'string' },
  },
})
const [command, out] = positionals
if ((command !== 'draw' && command !== 'score') || !out || !values.dir) {
  console.error('usage: npm run judge -- draw|score OUT_DIR --dir DIR [--seed N --test 60 --val 20 --sheets 4]')
  process.exit(2)
}
const dir = values.dir
const read = (f: string) => readFileSync(join(out, f), 'utf8')
const build = parseBuild({ test: read('test.jsonl'), val: read('val.jsonl'), provenance: read('provenance.jsonl') })
const hash = datasetHash({ test: recordLines(read('test.jsonl')), val: recordLines(read('val.jsonl')) })

interface SampleFile {
  seed: number
  datasetHash: string
  sheets: number[][]
  items: SampleItem[]
}

if (command === 'draw') {
  const seed = Number(values.seed)
  if (!Number.isInteger(seed)) throw new Error('--seed must be an integer')
  for (const flag of ['test', 'val', 'sheets'] as const)
    if (!Number.isInteger(Number(values[flag])) || Number(values[flag]) < (flag === 'sheets' ? 1 : 0))
      throw new Error(`--${flag} must be a whole number`)
  const items = drawSample(build, seed, { test: Number(values.test), val: Number(values.val) })
  const k = Number(values.sheets)
  const sheets = Array.from({ length: k }, (_, i) => items.filter((_, j) => j % k === i).map((x) => x.n))
  mkdirSync(dir, { recursive: true })
  const sample: SampleFile = { seed, datasetHash: hash, sheets, items }
  writeFileSync(join(dir, 'sample.json'), `${JSON.stringify(sample, null, 2)}\n`)
  for (const [i, ns] of sheets.entries()) {
    const on = items.filter((x) => ns.includes(x.n))
    writeFileSync(join(dir, `sheet-${i + 1}.md`), renderSheet(build, on, `Sheet ${i + 1}`))
  }
  console.log(`${items.length} items on ${k} sheets in ${dir}`)
} else {
  const sample = JSON.parse(readFileSync(join(dir, 'sample.json'), 'utf8')) as SampleFile
  if (sample.datasetHash !== hash) throw new Error(`${dir}/sample.json was drawn from another build (datasetHash ${sample.datasetHash})`)
  const marks = new Map<number, ReturnType<typeof parseMarks> extends Map<number, infer M> ? M : never>()
  sample.sheets.forEach((ns, i) => {
    const file = join(dir, `marks-${i + 1}.txt`)
    if (!existsSync(file)) return
    const items = sample.items.filter((x) => ns.includes(x.n))
    for (const [n, m] of parseMarks(readFileSync(file, 'utf8'), items, build, file)) marks.set(n, m)
  })
  const score = scoreMarks(build, sample.items, marks)
  const table = scoreTable(score)
  const note = score.unmarked.length ? `\nNot marked: items ${score.unmarked.join(', ')}.\n` : ''
  writeFileSync(join(dir, 'result.md'), `# Result\n\nSample seed ${sample.seed}, dataset ${sample.datasetHash}.\n\n${table}${note}`)
  writeFileSync(join(dir, 'result.json'), `${JSON.stringify(score, null, 2)}\n`)
  process.stdout.write(table + note)
  if (values.publish) {
    // what the card states, pinned by the recipe (recipe.judged): only a full marking of the sample counts
    if (score.unmarked.length) throw new Error(`items ${score.unmarked.join(', ')} are not marked`)
    if (values.earlier && !values['earlier-version']) throw new Error('--earlier needs --earlier-version')
    const earlier = values.earlier ? (JSON.parse(readFileSync(values.earlier, 'utf8')) as typeof score).all : null
    const judged: JudgedRates = JudgedRates.parse({
      datasetHash: hash,
      protocol: 'docs/judging.md',
      seed: sample.seed,
      judges: sample.sheets.length,
      sample: { test: sample.items.filter((x) => x.split === 'test').length, val: sample.items.filter((x) => x.split === 'val').length },
      bySource: score.bySource,
      all: score.all,
      ...(earlier && {
        earlier: { version: values['earlier-version']!, items: earlier.items, borrowed: earlier.borrowed, foreign: earlier.foreign },
      }),
    })
    const text = `${JSON.stringify(judged, null, 2)}\n`
    writeFileSync(values.publish, text)
    console.log(`${values.publish}: sha256 ${sha256Hex(text)} (the recipe's judged.sha256)`)
  }
}
