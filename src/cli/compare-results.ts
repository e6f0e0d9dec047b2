import { readFile } from 'node:fs/promises'
import { JevError } from '../errors.ts'
import { DEFAULT_RESAMPLES, DEFAULT_SEED } from '../eval/bootstrap.ts'
import { type Comparison, compareItems, parseResultItems } from '../eval/compare.ts'
import { SCORE_LABELS } from '../eval/compare-terms.ts'
import { SCORE_NAMES, type ScoreName } from '../eval/metrics.ts'
import { defineCommand, JSON_OPTION } from './common/command.ts'
import type { Io } from './run.ts'

export const compareResultsCommand = defineCommand({
  name: 'compare-results',
  args: { synopsis: 'A.json B.json', max: 2, names: ['a', 'b'] },
  about: [
    'Two eval-model results of like runs compared: each score of B minus A on the items both scored (calibrated',
    'in logits mode, as reported in probabilities mode), with a paired bootstrap 95 % interval and which way is',
    'better (accuracy higher; ECE, NLL, Brier lower); a difference whose interval holds 0 is within the noise.',
  ],
  options: {
    bootstrap: { type: 'string', number: true, arg: 'N', default: String(DEFAULT_RESAMPLES), help: 'paired bootstrap resamples' },
    seed: { type: 'string', number: true, arg: 'N', default: String(DEFAULT_SEED), help: "the bootstrap's seed" },
    raw: { type: 'boolean', default: false, help: 'logits runs: compare the raw scores (T = 1), not the calibrated' },
    'allow-mismatch': {
      type: 'boolean',
      default: false,
      help: 'compare runs of different data (datasetHash), items asked (--limit) or modes, on the items both scored',
    },
    ...JSON_OPTION,
  },
  notes: [
    'Exit status: 0 compared; 2 bad usage, runs of different data, items or modes (without --allow-mismatch), or an item whose gold, n or source differs; 3 a file is not a well-formed result; 7 a file could not be read.',
  ],
  required: ['a', 'b'],
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
  return compareItems(await read(a), await read(b), whole(parsed.values.bootstrap, 'bootstrap', 1), whole(parsed.values.seed, 'seed', 0), {
    allowMismatch: parsed.values['allow-mismatch'],
    raw: parsed.values.raw,
    names: [a, b],
  })
}

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a')
const signed = (x: number) => (x >= 0 ? `+${f3(x)}` : f3(x))

/** Beyond the noise, whether B is better or worse, where the score has a better direction; n/a is never "within the noise". */
function verdict(c: Comparison, k: ScoreName): string {
  const s = c.scores[k]
  if (![s.a, s.b, s.diff, ...s.interval].every(Number.isFinite)) return 'n/a'
  if (!s.significant) return 'within the noise'
  const better = c.better[k]
  if (!better) return 'beyond the noise'
  return `B ${(better === 'higher') === s.diff > 0 ? 'better' : 'worse'}, beyond the noise`
}

export function formatComparison(c: Comparison, a: string, b: string): string[] {
  return [
    `A: ${a}, ${c.compared.a}`,
    `B: ${b}, ${c.compared.b}`,
    ...(c.mismatches.length ? [`not like runs, compared anyway (--allow-mismatch): ${c.mismatches.join('; ')}`] : []),
    `${c.shared} items scored in both${c.onlyA || c.onlyB ? ` (${c.onlyA} only in A, ${c.onlyB} only in B, left out)` : ''}; paired bootstrap, ${c.resamples} resamples, seed ${c.seed}`,
    '| score | better | A | B | B − A | 95 % interval | |',
    '| --- | --- | ---: | ---: | ---: | --- | --- |',
    ...SCORE_NAMES.map((k) => {
      const s = c.scores[k]
      return `| ${SCORE_LABELS[k]} | ${c.better[k] ?? 'neither'} | ${f3(s.a)} | ${f3(s.b)} | ${signed(s.diff)} | [${signed(s.interval[0])}, ${signed(s.interval[1])}] | ${verdict(c, k)} |`
    }),
  ]
}

/** compare-results as a library function: `b` − `a`, two eval-model result files. */
export const compareResults = compareResultsCommand.library(runCompareResults)

export async function compareResultsCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return compareResultsCommand.main(argv, env, io, async (parsed, io) => {
    const c = await compareResults(parsed.params, io)
    for (const l of formatComparison(c, parsed.positionals[0]!, parsed.positionals[1]!)) io.out(l)
    return { json: c }
  })
}
