/**
 * What the result adds to the reference scores for its report: the breakdowns with intervals,
 * the same on the clean subset (items the data does not flag as contaminated), and where the
 * fitted temperature sits in the reference search.
 */
import type { ContaminationSummary } from '../contam/report.ts'
import {
  type BootstrapSettings,
  type Breakdowns,
  type Figure,
  type GroupedItem,
  type SubsetBreakdowns,
  type SubsetFigures,
  standardWeights,
  subsetFigures,
} from './figures.ts'
import { probabilitiesOf, type Scored } from './metrics.ts'
import { type TemperatureFit, temperatureFit } from './temperature.ts'

export interface AnalysedItem extends Scored, GroupedItem {
  /** whether provenance.jsonl flags the record as contaminated; null where the data marks nothing */
  contaminated: boolean | null
}

export interface CleanSubset {
  /** test items scored that the data does not flag */
  count: number
  /** test items scored that it flags, in all and by source */
  flagged: number
  flagged_by_source: Record<string, number>
  /** training files the build could not check: an overlap with them is not ruled out */
  not_checked: string[]
  /** the clean items' scores (calibrated or as reported, as the breakdowns); absent when no item is clean */
  scores?: Figure
  /** standardised to the full test split's mix, so the two sets' figures are on one mix */
  breakdowns: SubsetBreakdowns
}

export interface Analysis {
  /** logits mode: the fitted temperature against the reference search's range */
  temperature_fit?: TemperatureFit
  /** the scores the breakdowns are of: calibrated at T (logits mode) or as reported (probabilities mode) */
  breakdowns: { scores: 'calibrated' | 'reported' } & Breakdowns
  /** null when the data marks no contamination (no `contamination` in provenance.jsonl) */
  clean: CleanSubset | null
}

export function analyse(
  test: readonly AnalysedItem[],
  val: readonly Scored[],
  T: number,
  probsMode: boolean,
  contamination: ContaminationSummary | undefined,
  b: BootstrapSettings,
): Analysis {
  const marked = test.length > 0 && test.every((it) => it.contaminated !== null)
  const { all, subset } = subsetFigures(
    test,
    probabilitiesOf(test, T, probsMode),
    test.map((it) => it.gold),
    marked ? (i) => test[i]!.contaminated === false : null,
    standardWeights(test),
    { ...b, key: `${b.key}\u0000cells` },
  )
  return {
    ...(probsMode ? {} : { temperature_fit: temperatureFit(val, T) }),
    breakdowns: { scores: probsMode ? 'reported' : 'calibrated', ...all },
    clean: subset ? cleanSubset(test, contamination, subset) : null,
  }
}

function cleanSubset(test: readonly AnalysedItem[], contamination: ContaminationSummary | undefined, figures: SubsetFigures): CleanSubset {
  const flagged: Record<string, number> = {}
  for (const it of test) if (it.contaminated) flagged[it.source] = (flagged[it.source] ?? 0) + 1
  const count = test.filter((it) => it.contaminated === false).length
  return {
    count,
    flagged: test.length - count,
    flagged_by_source: Object.fromEntries(Object.entries(flagged).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    not_checked: (contamination?.files ?? [])
      .filter((f) => !f.checked)
      .map((f) => `${f.source} ${f.split}${f.reason ? ` (${f.reason})` : ''}`),
    ...(count && figures.whole ? { scores: figures.whole } : {}),
    breakdowns: figures.breakdowns,
  }
}
