/** Bounds for the pruned top-k search of ./similarity.ts: a k-th best partial score, kept in a min-heap. */

/**
 * Far above a double sum's rounding error over a few hundred terms of at most
 * 1 (~1e-13), and 2 steps of the quantised scale (similarity.ts's SCALE, 2^30): a document a bound prunes
 * scores strictly below the k-th, after quantising too.
 */
export const SLACK = 2 / 2 ** 30

/**
 * The k-th largest partial score among the touched documents but `self`
 * that are sure to end above 0 and at most `ceil` (with `rest` still to
 * come), or -1 when fewer than k are, into out[2k]; and the k-th largest
 * among all but `self` (SLACK when fewer than k score above it), into
 * out[2k + 1]. out[0..k) and out[k..2k) are the two heaps. Returns how
 * many could still reach `below` (a k-th best known before).
 */
export function kthBest(
  acc: Float64Array,
  touched: Int32Array,
  m: number,
  self: number,
  rest: number,
  ceil: number,
  k: number,
  out: Float64Array,
  below: number,
): number {
  let sure = 0
  let all = 0
  let kept = 0
  for (let j = 0; j < m; j++) {
    const doc = touched[j]!
    const p = acc[doc]!
    if (p + rest >= below) kept++
    if (doc === self || p <= SLACK) continue
    if (all < k || p > out[k]!) all = pushTop(out, k, all, k, p)
    if (p + rest < ceil && (sure < k || p > out[0]!)) sure = pushTop(out, 0, sure, k, p)
  }
  out[2 * k] = sure < k ? -1 : out[0]!
  out[2 * k + 1] = all < k ? SLACK : out[k]!
  return kept
}

/** Adds p to the min-heap of the k largest at heap[at .. at + h); returns its new size */
function pushTop(heap: Float64Array, at: number, h: number, k: number, p: number): number {
  if (h < k) {
    // sift up
    let i = h++
    while (i > 0) {
      const up = (i - 1) >> 1
      if (heap[at + up]! <= p) break
      heap[at + i] = heap[at + up]!
      i = up
    }
    heap[at + i] = p
    return h
  }
  // replace the least and sift down
  let i = 0
  for (;;) {
    let child = 2 * i + 1
    if (child >= k) break
    if (child + 1 < k && heap[at + child + 1]! < heap[at + child]!) child++
    if (heap[at + child]! >= p) break
    heap[at + i] = heap[at + child]!
    i = child
  }
  heap[at + i] = p
  return h
}
