/**
 * The result document: every field of the reference evaluator's --out under its names and
 * nesting, then this command's own (intervals, validity counts, more breakdowns, the items). A
 * function of the data, the journaled answers and the settings only, so a rerun, a resumed run
 * and a run from the journal write the same bytes.
 */
import { z } from 'zod'
import { JevError } from '../errors.ts'
import { type Analysis, analyse } from './analysis.ts'
import { type Api, extract, type Mode, normalise, SUM_TOLERANCE } from './answers.ts'
import { DEFAULT_RESAMPLES, DEFAULT_SEED, type Intervals, intervals, resampleIndices } from './bootstrap.ts'
import type { EvalData, EvalItem, EvalSplit } from './data.ts'
import type { AnswerLine } from './journal.ts'
import { breakdown, fitTemperature, probabilitiesOf, type Scored, type Scores, scores } from './metrics.ts'
import { npMean } from './numeric.ts'
import { LABELS } from './prompt.ts'

export interface ResultSettings {
  url: string
  api: Api
  model: string
  assistantPrefix: string | null
  mode: Mode
  resamples?: number
  seed?: number
}

export interface ValidItem extends Scored, EvalItem {}

export interface EvalResult extends Analysis {
  url: string
  mode: Mode
  assistant_prefix: string | null
  seconds: Record<EvalSplit, number>
  temperature?: number
  raw?: Scores
  calibrated?: Scores
  reported?: Scores
  by_n: Record<string, Scores>
  by_source: Record<string, Scores>
  gold_rounded_to_zero?: number
  api: Api
  model: string | null
  dataset: { origin: string; datasetHash: string; recipe: string; skipped_not_distinct: Record<EvalSplit, number> }
  /** always guessing: the mean of 1/n over the test items scored */
  chance: number
  invalid: { count: number; items: { split: EvalSplit; id: string; why: string }[] }
  /** probabilities mode: items whose probabilities summed to 1 only within 0.01 */
  normalised: number
  /** probabilities mode: the scores with each item's probabilities divided by their sum */
  reported_normalised?: Scores
  labels_missing?: { items: number; labels: number }
  bootstrap: { resamples: number; seed: number }
  intervals: Record<string, Intervals>
  by_upstream_kept: Record<string, Scores>
  by_grown: Record<string, Scores>
  /** the test items scored, in file order: their values (logits or probabilities) and right option */
  items: {
    id: string
    source: string
    n: number
    gold: number
    upstream_kept: number | null
    values: number[]
    contaminated: boolean | null
  }[]
}

/** Which answer a request's hash stands for; given by the caller, who knows the request bodies. */
export type KeyOf = (item: EvalItem) => string

const round3 = (x: number) => Math.round(x * 1000) / 1000

export function buildResult(
  data: EvalData,
  splits: Record<EvalSplit, EvalItem[]>,
  answers: ReadonlyMap<string, AnswerLine>,
  keyOf: KeyOf,
  s: ResultSettings,
): EvalResult {
  const invalid: EvalResult['invalid']['items'] = []
  let normalised = 0
  let missingItems = 0
  let missingLabels = 0
  const seconds = { val: 0, test: 0 }
  const valid: Record<EvalSplit, ValidItem[]> = { val: [], test: [] }
  for (const split of ['val', 'test'] as const) {
    let ms = 0
    for (const item of splits[split]) {
      const a = answers.get(keyOf(item))
      if (!a) throw new Error(`no answer for ${split} ${item.id}`)
      ms += a.ms
      const x = extract(item, s.api, s.mode, a.answer)
      if (!x.ok) {
        invalid.push({ split, id: item.id, why: x.why })
        continue
      }
      if (x.normalised) normalised++
      if (x.missing) {
        missingItems++
        missingLabels += x.missing
      }
      valid[split].push({ ...item, values: x.values })
    }
    seconds[split] = round3(ms / 1000)
  }
  const test = valid.test
  const probsMode = s.mode === 'probabilities'
  // no valid answer to score (or, in logits mode, none to fit the temperature on) is a failed run, not a score of nothing
  for (const split of probsMode ? (['test'] as const) : (['val', 'test'] as const))
    if (valid[split].length === 0) {
      const first = invalid.find((x) => x.split === split)
      throw new JevError(
        'DATA',
        `no valid answer in ${split}: all ${splits[split].length} are invalid${split === 'val' ? ', so no temperature can be fitted' : ''}; the first: ${first?.why}`,
        {
          field: split,
          hint: 'the answers are not what --api and --mode expect; fix the server, then remove the journal (it keeps these answers) and run again',
        },
      )
    }
  const head = { url: s.url, mode: s.mode, assistant_prefix: s.assistantPrefix, seconds }
  const T = probsMode ? 1 : fitTemperature(valid.val)
  const byKey = (key: (it: ValidItem) => string) => breakdown(test, key, T, probsMode)
  const eq = {
    by_n: byKey((it) => String(it.n)),
    by_source: byKey((it) => it.source),
  }
  const resamples = s.resamples ?? DEFAULT_RESAMPLES
  const seed = s.seed ?? DEFAULT_SEED
  const draws = resampleIndices(test.length, resamples, seed, `${data.manifest.datasetHash}\u0000test`)
  const gold = test.map((it) => it.gold)
  const ci = (T: number) => intervals(probabilitiesOf(test, T, probsMode), gold, draws)
  const reference = probsMode
    ? {
        reported: scores(test, 1, true),
        ...eq,
        gold_rounded_to_zero: test.filter((it) => it.values[it.gold] === 0).length,
      }
    : { temperature: T, raw: scores(test, 1, false), calibrated: scores(test, T, false), ...eq }
  return {
    ...head,
    ...reference,
    api: s.api,
    model: s.api === 'openai' ? s.model : null,
    dataset: {
      origin: data.origin,
      datasetHash: data.manifest.datasetHash,
      recipe: `${data.manifest.recipe.name} ${data.manifest.recipe.version}`,
      skipped_not_distinct: { val: data.skipped.val.length, test: data.skipped.test.length },
    },
    chance: npMean(test.map((it) => 1 / it.n)),
    invalid: { count: invalid.length, items: invalid },
    normalised,
    ...(probsMode
      ? {
          reported_normalised: scores(
            test.map((it) => ({ ...it, values: normalise(it.values) })),
            1,
            true,
          ),
        }
      : {}),
    ...(s.api === 'openai' ? { labels_missing: { items: missingItems, labels: missingLabels } } : {}),
    bootstrap: { resamples, seed },
    intervals: probsMode ? { reported: ci(1) } : { raw: ci(1), calibrated: ci(T) },
    by_upstream_kept: byKey((it) => (it.upstreamKept === null ? 'unknown' : String(it.upstreamKept))),
    by_grown: byKey((it) => (it.upstreamKept === null ? 'unknown' : it.upstreamKept < it.n ? 'grown' : 'not_grown')),
    ...analyse(test, valid.val, T, probsMode, data.manifest.contamination, {
      resamples,
      seed,
      key: `${data.manifest.datasetHash}\u0000test`,
    }),
    items: test.map((it) => ({
      id: it.id,
      source: it.source,
      n: it.n,
      gold: it.gold,
      upstream_kept: it.upstreamKept,
      values: [...it.values],
      contaminated: it.contaminated,
    })),
  }
}

/** The scores a comparison or a report leads with: calibrated in logits mode, as reported in probabilities mode. */
export function headline(r: Pick<EvalResult, 'mode' | 'calibrated' | 'reported'>): Scores {
  return (r.mode === 'logits' ? r.calibrated : r.reported)!
}

// a score JSON cannot hold (NaN) is written as null
const ScoresSchema = z.object({
  count: z.int().nonnegative(),
  acc: z.number().nullable(),
  ece: z.number().nullable(),
  nll: z.number().nullable(),
  brier: z.number().nullable(),
  mean_conf: z.number().nullable(),
})

const ItemSchema = z.object({
  id: z.string(),
  source: z.string(),
  n: z.int().min(2).max(LABELS.length),
  gold: z.int(),
  upstream_kept: z.int().nullable(),
  values: z.array(z.number()),
})

/**
 * A result file as eval-model writes it, read back (compare-results): the fields' types, then what
 * they must agree on: each item's gold among its n options and one value per option, a positive
 * temperature in logits mode, and in probabilities mode values in [0, 1] summing to 1.
 */
export const ResultSchema = z
  .object({
    url: z.string(),
    mode: z.enum(['logits', 'probabilities']),
    assistant_prefix: z.string().nullable(),
    temperature: z.number().optional(),
    raw: ScoresSchema.optional(),
    calibrated: ScoresSchema.optional(),
    reported: ScoresSchema.optional(),
    by_n: z.record(z.string(), ScoresSchema),
    by_source: z.record(z.string(), ScoresSchema),
    api: z.enum(['systemone', 'openai']),
    model: z.string().nullable(),
    dataset: z.object({ origin: z.string(), datasetHash: z.string(), recipe: z.string() }),
    chance: z.number(),
    invalid: z.object({
      count: z.int().nonnegative(),
      items: z.array(z.object({ split: z.enum(['val', 'test']), id: z.string(), why: z.string() })),
    }),
    bootstrap: z.object({ resamples: z.int().positive(), seed: z.int().nonnegative() }),
    items: z.array(ItemSchema),
  })
  .superRefine((r, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message })
    if (r.items.length === 0) issue(['items'], 'no item: a result scores at least one')
    if (r.invalid.count !== r.invalid.items.length)
      issue(['invalid', 'count'], `${r.invalid.count}, but ${r.invalid.items.length} invalid items are listed`)
    if (r.mode === 'logits') {
      if (r.temperature === undefined) issue(['temperature'], 'missing: a logits result has its fitted temperature')
      else if (!(r.temperature > 0)) issue(['temperature'], `${r.temperature}: a temperature is above 0`)
      if (!r.raw || !r.calibrated) issue([r.raw ? 'calibrated' : 'raw'], 'missing: a logits result has raw and calibrated scores')
    } else if (!r.reported) issue(['reported'], 'missing: a probabilities result has its reported scores')
    const ids = new Set<string>()
    r.items.forEach((it, i) => {
      const at = (f: string) => ['items', i, f]
      if (ids.has(it.id)) issue(at('id'), `${JSON.stringify(it.id)} is listed twice`)
      ids.add(it.id)
      if (it.values.length === 0) issue(at('values'), 'empty: one value per option')
      else if (it.values.length !== it.n) issue(at('values'), `${it.values.length} values for n = ${it.n} options`)
      if (it.gold < 0 || it.gold >= it.n) issue(at('gold'), `${it.gold} is not an option of the ${it.n} (0 to ${it.n - 1})`)
      if (r.mode === 'probabilities' && it.values.length) {
        let sum = 0
        for (const v of it.values) sum += v
        if (it.values.some((v) => v < 0 || v > 1) || Math.abs(sum - 1) > SUM_TOLERANCE)
          issue(at('values'), `not probabilities (they sum to ${sum}, values in [0, 1] sum to 1): logits labelled probabilities?`)
      }
    })
  })
export type ResultFile = z.infer<typeof ResultSchema>
