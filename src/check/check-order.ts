/**
 * check-dataset's problems with their root causes first: a file missing or not in the manifest,
 * then a file whose rows or bytes are not the manifest's, then everything that follows from
 * those (the counts, the card's tables, the figures). One deleted line otherwise came 20th of 22.
 */

const RANKS: readonly RegExp[] = [
  /^[\w.-]+: missing$/,
  /^manifest\.json: outputs do not list /,
  /^[\w.-]+: row count differs from the manifest$/,
  /^[\w.-]+: does not match the manifest's sha256\/bytes$/,
]

/** The rank of one problem: its pattern's place in RANKS, after them all when none matches. */
function rank(problem: string): number {
  const i = RANKS.findIndex((r) => r.test(problem))
  return i === -1 ? RANKS.length : i
}

/** The same problems, root causes first; within a rank in the order they were found (a stable sort). */
export function rootCausesFirst(problems: readonly string[]): string[] {
  return problems
    .map((p, i) => ({ p, i, r: rank(p) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.p)
}
