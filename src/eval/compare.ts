/**
 * Two results on the same items, compared: each headline score's difference (B − A) with a
 * paired bootstrap interval, resampling the shared test items together, so whether a difference
 * is noise is a number per comparison.
 */
import { JevError } from '../errors.ts'
import { diffIntervals, type Interval, resampleIndices } from './bootstrap.ts'
import { BETTER, comparedScores, comparedTemperature, mismatches } from './compare-terms.ts'
import { probabilitiesOf, SCORE_NAMES, type ScoreName, scoresOf } from './metrics.ts'
import { type ResultFile, ResultSchema } from './result.ts'

/** What compare-results reads of a result: the whole file, checked against the result schema. */
export type ResultItems = ResultFile

export function parseResultItems(text: string, file: string): ResultItems {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    throw new JevError('DATA', `${file} is not JSON`, { file, hint: 'give two result files eval-model --out wrote' })
  }
  const r = ResultSchema.safeParse(v)
  if (!r.success) {
    const issue = r.error.issues[0]!
    const field = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('')
    throw new JevError('DATA', `${file} is not a well-formed eval-model result: ${field || '(the document)'}: ${issue.message}`, {
      file,
      field,
      hint: "give two result files eval-model --out wrote, unedited (eval.py's have no items to pair)",
    })
  }
  return r.data
}

export interface Comparison {
  /** items scored in both, and in only one */
  shared: number
  onlyA: number
  onlyB: number
  resamples: number
  seed: number
  scores: Record<ScoreName, { a: number; b: number; diff: number; interval: Interval; significant: boolean }>
  /** the scores compared in each, in words (raw, calibrated or as reported) */
  compared: { a: string; b: string }
  /** which way each score is better (null: neither) */
  better: typeof BETTER
  /** how the runs differ in data, items asked or mode (compared only with allowMismatch) */
  mismatches: string[]
}

export interface CompareOptions {
  /** compare runs that differ in data, items asked or mode, on the items both scored */
  allowMismatch?: boolean
  /** logits runs: their raw scores (T = 1) rather than calibrated */
  raw?: boolean
  /** how the two results are named in messages (their files) */
  names?: readonly [string, string]
}

export function compareItems(a: ResultItems, b: ResultItems, resamples: number, seed: number, o: CompareOptions = {}): Comparison {
  const names = o.names ?? ['A', 'B']
  const differ = mismatches(a, b)
  if (differ.length && !o.allowMismatch)
    throw new JevError('USAGE', `the two results are not of like runs: ${differ.join('; ')}`, {
      usage: null,
      hint: 'compare runs of the same data, items (--limit) and mode, or give --allow-mismatch to compare the items both scored anyway',
    })
  const inB = new Map(b.items.map((it) => [it.id, it]))
  // the same data has the same item under one id: a gold, option count or source that differs is a result edited
  for (const x of o.allowMismatch ? [] : a.items) {
    const y = inB.get(x.id)
    const f = y && (['gold', 'n', 'source'] as const).find((k) => x[k] !== y[k])
    if (y && f)
      throw new JevError(
        'USAGE',
        `the two results disagree on item ${JSON.stringify(x.id)}: its ${f} is ${JSON.stringify(x[f])} in ${names[0]}, ${JSON.stringify(y[f])} in ${names[1]}`,
        { usage: null, field: f, id: x.id, hint: 'compare unedited results of the same dataset build' },
      )
  }
  // the shared items in A's order (the dataset's): paired item by item; across other data, only an item asked the
  // same way in both (its right answer and option count alike) is paired, since both are scored against one gold
  const alike = (x: ResultItems['items'][number]) => {
    const y = inB.get(x.id)
    return y !== undefined && y.gold === x.gold && y.n === x.n
  }
  const pairs = a.items.filter(alike).map((it) => [it, inB.get(it.id)!] as const)
  const paired = new Set(pairs.map(([x]) => x.id))
  const unlike = a.items.filter((x) => inB.has(x.id) && !paired.has(x.id)).length
  if (unlike) differ.push(`${unlike} items of the same id asked otherwise (another right answer or option count), left out`)
  if (pairs.length === 0) throw new JevError('USAGE', 'the two results share no scored item')
  const probsOf = (r: ResultItems, items: ResultItems['items']) =>
    probabilitiesOf(items, comparedTemperature(r, o.raw ?? false), r.mode === 'probabilities')
  const pa = probsOf(
    a,
    pairs.map(([x]) => x),
  )
  const pb = probsOf(
    b,
    pairs.map(([, y]) => y),
  )
  const gold = pairs.map(([x]) => x.gold)
  const sa = scoresOf(pa, gold)
  const sb = scoresOf(pb, gold)
  const draws = resampleIndices(pairs.length, resamples, seed, `${a.dataset.datasetHash}\u0000compare`)
  const ci = diffIntervals(pa, gold, pb, draws)
  const scores = Object.fromEntries(
    SCORE_NAMES.map((s) => {
      const [lo, hi] = ci[s]
      return [
        s,
        { a: sa[s], b: sb[s], diff: sb[s] - sa[s], interval: ci[s], significant: Number.isFinite(sb[s] - sa[s]) && (lo > 0 || hi < 0) },
      ]
    }),
  ) as Comparison['scores']
  return {
    shared: pairs.length,
    onlyA: a.items.length - pairs.length,
    onlyB: b.items.length - pairs.length,
    resamples,
    seed,
    scores,
    compared: { a: comparedScores(a, o.raw ?? false), b: comparedScores(b, o.raw ?? false) },
    better: BETTER,
    mismatches: differ,
  }
}
