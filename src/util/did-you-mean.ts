/** "did you mean …?" for a mistyped option or command name: the closest names by edit distance, when close enough. */

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`: the optimal string alignment distance. */
export function editDistance(a: string, b: string): number {
  // d[i][j]: the distance between a's first i and b's first j code units
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  return d[a.length]![b.length]!
}

/**
 * The names nearest to `typed`, in code-unit order; none unless the nearest is within 2 edits, or a third of
 * the typed length, and fewer edits than the typed length (so a name is never suggested for a wholly different one).
 */
export function closest(typed: string, names: readonly string[]): string[] {
  const limit = Math.min(Math.max(2, Math.floor(typed.length / 3)), typed.length - 1)
  let best = Number.POSITIVE_INFINITY
  let found: string[] = []
  for (const name of names) {
    const d = editDistance(typed, name)
    if (d > limit || d > best) continue
    if (d < best) {
      best = d
      found = []
    }
    found.push(name)
  }
  return [...new Set(found)].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
}

/** `did you mean --a?` or `did you mean --a or --b?`, or null when nothing is close; `prefix` is put before each name. */
export function didYouMean(typed: string, names: readonly string[], prefix = ''): string | null {
  const near = closest(typed, names).map((n) => `${prefix}${n}`)
  if (near.length === 0) return null
  return `did you mean ${near.length === 1 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near.at(-1)}`}?`
}
