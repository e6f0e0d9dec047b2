/**
 * One judging run on a built folder: a seeded blind sample of its grown items, marked by a model (one request per
 * item, which sees only the question and its options) or by people on sheets, scored against provenance.jsonl
 * into the judged rates a recipe pins.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { JudgedRates } from '../emit/judged.ts'
import { datasetHash, recordLines } from '../emit/manifest.ts'
import { JevError } from '../errors.ts'
import { writeAtomic } from '../util/atomic.ts'
import type { Progress } from '../util/progress.ts'
import {
  type Build,
  drawSample,
  type Mark,
  parseBuild,
  parseMarks,
  questionText,
  recordsById,
  renderSheet,
  type SampleItem,
  type Score,
  scoreMarks,
  scoreTable,
} from './judge-sheets.ts'
import { askModel, type ModelReviewer, modelIdentity } from './model.ts'

export interface JudgePeople {
  kind: 'people'
  /** the folder of sample.json, the sheets and the marks */
  sheets: string
  /** how many sheets the sample is dealt to, one per judge */
  judges: number
}

export interface JudgeSettings {
  /** the built folder */
  dir: string
  seed: number
  counts: { test: number; val: number }
  reviewer: ModelReviewer | JudgePeople
  /** the same protocol's overall rates on an earlier version, for the card's comparison */
  earlier?: { version: string; all: Score['all'] } | undefined
}

export interface JudgeOutcome {
  status: 'scored' | 'waiting'
  datasetHash: string
  /** the marks files people are yet to fill */
  waiting: string[]
  score: Score | null
  /** the judged rates, once every item is marked */
  judged: JudgedRates | null
  /** the score as a table */
  table: string | null
}

interface SampleFile {
  seed: number
  datasetHash: string
  sheets: number[][]
  items: SampleItem[]
}

async function readBuild(dir: string): Promise<{ build: Build; hash: string }> {
  const read = async (f: string) => {
    try {
      return await readFile(join(dir, f), 'utf8')
    } catch (e) {
      throw new JevError('IO', `cannot read ${join(dir, f)}: ${(e as Error).message}`, {
        file: join(dir, f),
        hint: 'name a folder a build wrote',
      })
    }
  }
  const [test, val, provenance] = [await read('test.jsonl'), await read('val.jsonl'), await read('provenance.jsonl')]
  let build: Build
  try {
    build = parseBuild({ test, val, provenance })
  } catch (e) {
    throw new JevError('DATA', `${dir}/: a record or provenance line does not parse: ${(e as Error).message.split('\n')[0]}`, {
      file: dir,
      hint: `check the folder first: jev check-dataset ${dir}`,
    })
  }
  return { build, hash: datasetHash({ test: recordLines(test), val: recordLines(val) }) }
}

/** The people's marks by item number, or the marks files still to fill (sample.json and the sheets written first). */
async function askPeople(
  r: JudgePeople,
  build: Build,
  sample: SampleFile,
): Promise<{ marks: Map<number, Mark[]> } | { waiting: string[] }> {
  const index = join(r.sheets, 'sample.json')
  const had = await readFile(index, 'utf8').catch(() => null)
  if (had === null) {
    await writeAtomic(index, `${JSON.stringify(sample, null, 2)}\n`)
    for (const [i, ns] of sample.sheets.entries())
      await writeAtomic(
        join(r.sheets, `sheet-${i + 1}.md`),
        renderSheet(
          build,
          sample.items.filter((x) => ns.includes(x.n)),
          `Sheet ${i + 1}`,
        ),
      )
  } else if (had !== `${JSON.stringify(sample, null, 2)}\n`)
    throw new JevError('USAGE', `${index} is another sample's (another build, seed, size or number of sheets)`, {
      usage: null,
      file: index,
      hint: 'give each sample a folder of its own',
    })
  const marks = new Map<number, Mark[]>()
  const waiting: string[] = []
  for (const [i, ns] of sample.sheets.entries()) {
    const file = join(r.sheets, `marks-${i + 1}.txt`)
    const text = await readFile(file, 'utf8').catch(() => null)
    if (text === null) {
      waiting.push(file)
      continue
    }
    const got = parseMarks(
      text,
      sample.items.filter((x) => ns.includes(x.n)),
      build,
      file,
    )
    if (ns.some((n) => !got.has(n))) waiting.push(file)
    for (const [n, m] of got) marks.set(n, m)
  }
  return waiting.length ? { waiting } : { marks }
}

export async function runJudging(
  s: JudgeSettings,
  io: { log: (line: string) => void; progress?: Progress | undefined },
): Promise<JudgeOutcome> {
  const { build, hash } = await readBuild(s.dir)
  const items = drawSample(build, s.seed, s.counts)
  const r = s.reviewer
  const k = r.kind === 'people' ? r.judges : 1
  const sample: SampleFile = {
    seed: s.seed,
    datasetHash: hash,
    sheets: Array.from({ length: k }, (_, i) => items.filter((_, j) => j % k === i).map((x) => x.n)),
    items,
  }
  let marks: Map<number, Mark[]>
  if (r.kind === 'people') {
    const got = await askPeople(r, build, sample)
    if ('waiting' in got) return { status: 'waiting', datasetHash: hash, waiting: got.waiting, score: null, judged: null, table: null }
    marks = got.marks
  } else {
    const byId = recordsById(build)
    const record = (x: SampleItem) => byId.get(`${x.split}\u0000${x.id}`)!
    // keyed by the item's split and id: a sample item's number depends on the sample, its record does not
    const key = (x: SampleItem) => `${x.split}\u0000${x.id}`
    const got = await askModel(
      'judge',
      r,
      items.map((x) => ({ id: key(x), text: questionText(record(x), 1), count: record(x).choices.length })),
      io,
    )
    marks = new Map(items.map((x) => [x.n, [...got.get(key(x))!] as Mark[]]))
  }
  const score = scoreMarks(build, items, marks)
  const table = scoreTable(score)
  if (r.kind === 'people') {
    const note = score.unmarked.length ? `\nNot marked: items ${score.unmarked.join(', ')}.\n` : ''
    await writeAtomic(join(r.sheets, 'result.md'), `# Result\n\nSample seed ${s.seed}, dataset ${hash}.\n\n${table}${note}`)
    await writeAtomic(join(r.sheets, 'result.json'), `${JSON.stringify(score, null, 2)}\n`)
  }
  const judged = JudgedRates.parse({
    datasetHash: hash,
    protocol: 'docs/judging.md',
    seed: s.seed,
    judges: k,
    sample: s.counts,
    bySource: score.bySource,
    all: score.all,
    reviewer: r.kind === 'model' ? modelIdentity('judge', r) : { kind: 'sheets', sheets: r.sheets },
    ...(s.earlier && {
      earlier: { version: s.earlier.version, items: s.earlier.all.items, borrowed: s.earlier.all.borrowed, foreign: s.earlier.all.foreign },
    }),
  })
  return { status: 'scored', datasetHash: hash, waiting: [], score, judged, table }
}

/** The judged-rates file's text, as the recipe pins it. */
export const judgedText = (j: JudgedRates) => `${JSON.stringify(j, null, 2)}\n`
