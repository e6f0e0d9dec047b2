import { readFile } from 'node:fs/promises'
import { JevError } from '../errors.ts'
import { DEFAULT_RESAMPLES, DEFAULT_SEED } from '../eval/bootstrap.ts'
import { type Comparison, compareItems, parseResultItems } from '../eval/compare.ts'
import type { ScoreName } from '../eval/metrics.ts'
import { defineCommand, JSON_OPTION } from './common/command.ts'
import type { Io } from './run.ts'

export const compareResultsCommand = defineCommand({
  name: 'compare-results',
  args: { synopsis: 'A.json B.json', max: 2 },
  about: [
    'Two eval-model results on the same data compared: each score of B minus A on the items both scored,',
    'with a paired bootstrap 95 % interval; a difference whose interval holds 0 is within the noise.',
  ],
  options: {
    bootstrap: { type: 'string', arg: 'N', default: String(DEFAULT_RESAMPLES), help: 'paired bootstrap resamples' },
    seed: { type: 'string', arg: 'N', default: String(DEFAULT_SEED), help: "the bootstrap's seed" },
    ...JSON_OPTION,
  },
  notes: [
    'Exit status: 0 compared; 2 bad usage or results of different data (another datasetHash, or an item whose gold, n or source differs); 3 a file is not a well-formed result; 7 a file could not be read.',
  ],
})

export const parseCompareResults = (argv: string[], io: Io) => compareResultsCommand.parse(argv, io)

const whole = (v: string, flag: string, min: number) => {
  const n = /^\d+$/.test(v.trim()) ? Number(v) : NaN
  if (!Number.isSafeInteger(n) || n < min)
    throw new JevError('USAGE', `--${flag} ${JSON.stringify(v)} is not a whole number of at least ${min}`)
  return n
}

export async function runCompareResults(parsed: NonNullable<ReturnType<typeof parseCompareResults>>): Promise<Comparison> {
  const [a, b] = parsed.positionals
  if (!a || !b) throw new JevError('USAGE', 'give two result files: A.json B.json')
  const read = async (f: string) =>
    parseResultItems(
      await readFile(f, 'utf8').catch((e: Error) => {
        throw new JevError('IO', `cannot read ${f}: ${e.message}`, { file: f })
      }),
      f,
    )
  return compareItems(await read(a), await read(b), whole(parsed.values.bootstrap, 'bootstrap', 1), whole(parsed.values.seed, 'seed', 0), [
    a,
    b,
  ])
}

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a')
const signed = (x: number) => (x >= 0 ? `+${f3(x)}` : f3(x))

/** A difference with a score or a bound that is not a number is not judged: n/a is not "within the noise". */
const verdict = (s: Comparison['scores'][ScoreName]) =>
  ![s.a, s.b, s.diff, ...s.interval].every(Number.isFinite) ? 'n/a' : s.significant ? 'beyond the noise' : 'within the noise'

export function formatComparison(c: Comparison, a: string, b: string): string[] {
  return [
    `A: ${a}`,
    `B: ${b}`,
    `${c.shared} items scored in both${c.onlyA || c.onlyB ? ` (${c.onlyA} only in A, ${c.onlyB} only in B, left out)` : ''}; paired bootstrap, ${c.resamples} resamples, seed ${c.seed}`,
    '| score | A | B | B − A | 95 % interval | |',
    '| --- | ---: | ---: | ---: | --- | --- |',
    ...Object.entries(c.scores).map(
      ([k, s]) =>
        `| ${k} | ${f3(s.a)} | ${f3(s.b)} | ${signed(s.diff)} | [${signed(s.interval[0])}, ${signed(s.interval[1])}] | ${verdict(s)} |`,
    ),
  ]
}

export async function compareResultsCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return compareResultsCommand.main(argv, env, io, async (parsed, io) => {
    const c = await runCompareResults(parsed)
    for (const l of formatComparison(c, parsed.positionals[0]!, parsed.positionals[1]!)) io.out(l)
    return { json: c }
  })
}
