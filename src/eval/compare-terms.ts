/**
 * What a comparison of two results says about itself: which scores it compares (raw, calibrated
 * or as reported), which way each score is better, and whether the two runs are alike enough to
 * compare (the same data, the same items asked, the same mode).
 */
import type { ScoreName } from './metrics.ts'

/** Which way a score is better; mean confidence is neither (it is compared with accuracy, not ranked). */
export const BETTER: Record<ScoreName, 'higher' | 'lower' | null> = {
  acc: 'higher',
  ece: 'lower',
  nll: 'lower',
  brier: 'lower',
  mean_conf: null,
}

export const SCORE_LABELS: Record<ScoreName, string> = {
  acc: 'accuracy',
  ece: 'ECE',
  nll: 'NLL',
  brier: 'Brier',
  mean_conf: 'mean confidence',
}

/** What of a result the terms read. */
export interface RunFacts {
  mode: 'logits' | 'probabilities'
  temperature?: number | undefined
  dataset: { datasetHash: string }
  items: readonly { id: string }[]
  invalid?: { items: readonly { split: string; id: string }[] } | undefined
}

/** The temperature the compared scores are at: the fitted one (calibrated), 1 (raw, or probabilities as reported). */
export const comparedTemperature = (r: RunFacts, raw: boolean) => (r.mode === 'logits' && !raw ? (r.temperature ?? 1) : 1)

/** The scores compared, in words. */
export function comparedScores(r: RunFacts, raw: boolean): string {
  if (r.mode === 'probabilities') return 'scores as reported (probabilities mode)'
  return raw ? 'raw scores (logits mode, T = 1)' : `calibrated scores (logits mode, T = ${(r.temperature ?? 1).toFixed(3)} fitted on val)`
}

/** The test items a run asked: those scored and those whose answer was invalid. */
const asked = (r: RunFacts) =>
  new Set([...r.items.map((it) => it.id), ...(r.invalid?.items ?? []).filter((x) => x.split === 'test').map((x) => x.id)])

/** How two runs differ in what makes their scores comparable; empty when they are alike. */
export function mismatches(a: RunFacts, b: RunFacts): string[] {
  const out: string[] = []
  if (a.dataset.datasetHash !== b.dataset.datasetHash)
    out.push(`different data (datasetHash ${a.dataset.datasetHash.slice(0, 12)}… in A, ${b.dataset.datasetHash.slice(0, 12)}… in B)`)
  else {
    const [x, y] = [asked(a), asked(b)]
    const onlyA = [...x].filter((id) => !y.has(id)).length
    const onlyB = [...y].filter((id) => !x.has(id)).length
    if (onlyA || onlyB) out.push(`different items asked (${x.size} in A, ${y.size} in B; ${onlyA} only in A, ${onlyB} only in B)`)
  }
  if (a.mode !== b.mode) out.push(`different modes (A ${a.mode}, B ${b.mode})`)
  return out
}
