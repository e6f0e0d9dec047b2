/**
 * Sums and means in numpy's order of operations (pairwise summation in blocks of eight), so the
 * scores computed here agree with the reference evaluator's to the last bits, not only to 1e-9.
 */

/** numpy's pairwise_sum for float64 over `a[from, from + n)`. */
function pairwise(a: ArrayLike<number>, from: number, n: number): number {
  if (n < 8) {
    let res = 0
    for (let i = 0; i < n; i++) res += a[from + i]!
    return res
  }
  if (n <= 128) {
    const r = [a[from]!, a[from + 1]!, a[from + 2]!, a[from + 3]!, a[from + 4]!, a[from + 5]!, a[from + 6]!, a[from + 7]!]
    let i = 8
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j]! += a[from + i + j]!
    let res = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!))
    for (; i < n; i++) res += a[from + i]!
    return res
  }
  let n2 = Math.floor(n / 2)
  n2 -= n2 % 8
  return pairwise(a, from, n2) + pairwise(a, from + n2, n - n2)
}

/** `np.sum` of a float64 vector. */
export function npSum(a: ArrayLike<number>): number {
  return 0 + pairwise(a, 0, a.length)
}

/** `np.mean` of a float64 vector (NaN when empty, as numpy gives with a warning). */
export function npMean(a: ArrayLike<number>): number {
  return npSum(a) / a.length
}
