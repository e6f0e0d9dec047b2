/**
 * Where the fitted temperature sits in the reference search (log T in [-3, 3]) and what an
 * unbounded fit gives: a T at the edge means the best T lies outside the search, so the
 * calibrated scores are those of a T the val split did not choose.
 */
import { goldNll, type Scored } from './metrics.ts'

/** The reference evaluator's search range, in log T. */
export const SEARCH_LOG_T: readonly [number, number] = [-3, 3]
/** How far the unbounded fit looks, in log T: e^±30 is beyond any temperature that changes a ranking of sane logits. */
export const UNBOUNDED_LOG_T = 30
/** The reference search ends within about 3e-7 of its bound in log T when the best T is beyond it. */
const EDGE = 1e-6
const STEP = 0.25

export interface TemperatureFit {
  /** the reference search's range of log T */
  log_t_range: [number, number]
  /** whether the fitted T is at an end of that range (e^-3 ≈ 0.0498 or e^3 ≈ 20.09) */
  at_edge: boolean
  /** the right option's mean cross-entropy on val at the fitted T */
  val_nll: number
  /** the minimum over log T in [-30, 30] (the fitted T when it is inside the search); at_limit: none inside, the loss still falls towards T → 0 or ∞ */
  unbounded: { temperature: number; val_nll: number; at_limit: boolean }
}

/** The minimum of the loss over log T in [lo, hi]: a grid, then a ternary search around its best point unless that is an end. */
function minimiseLogT(loss: (logT: number) => number, lo: number, hi: number): { logT: number } {
  const steps = Math.round((hi - lo) / STEP)
  let best = 0
  let bestLoss = Infinity
  for (let k = 0; k <= steps; k++) {
    const l = loss(lo + k * STEP)
    if (l < bestLoss) {
      bestLoss = l
      best = k
    }
  }
  if (best === 0 || best === steps) return { logT: lo + best * STEP }
  let a = lo + (best - 1) * STEP
  let b = lo + (best + 1) * STEP
  for (let r = 0; r < 60; r++) {
    const x = a + (b - a) / 3
    const y = b - (b - a) / 3
    if (loss(x) < loss(y)) b = y
    else a = x
  }
  return { logT: (a + b) / 2 }
}

export function temperatureFit(val: readonly Scored[], T: number): TemperatureFit {
  const logT = Math.log(T)
  const [lo, hi] = SEARCH_LOG_T
  const loss = (x: number) => goldNll(val, Math.exp(x))
  const low = logT - lo < EDGE
  const high = hi - logT < EDGE
  const valNll = goldNll(val, T)
  // the loss has one minimum in log T: beyond the edge the fit reached, or at the fitted T
  const u = low ? minimiseLogT(loss, -UNBOUNDED_LOG_T, lo) : high ? minimiseLogT(loss, hi, UNBOUNDED_LOG_T) : null
  return {
    log_t_range: [lo, hi],
    at_edge: low || high,
    val_nll: valNll,
    unbounded: u
      ? { temperature: Math.exp(u.logT), val_nll: loss(u.logT), at_limit: u.logT === (low ? -UNBOUNDED_LOG_T : UNBOUNDED_LOG_T) }
      : { temperature: T, val_nll: valNll, at_limit: false },
  }
}
