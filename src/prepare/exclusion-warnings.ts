/** Warnings for exclusion-list entries that match no upstream question: each when few, else a count and the first few. */

/** How many unmatched entries of one kind are named; past it, the rest are counted. */
const NAMED = 5
/** A quoted text longer than this is cut, so one long entry stays one short line. */
const SHOWN_CHARS = 120

const quoted = (t: string) => JSON.stringify(t.length > SHOWN_CHARS ? `${t.slice(0, SHOWN_CHARS)}…` : t)

function summarise(kind: 'id' | 'text', missed: readonly string[]): string[] {
  const show = kind === 'id' ? (s: string) => s : quoted
  if (missed.length <= NAMED) return missed.map((m) => `exclusion list: no upstream question has the ${kind} ${show(m)}`)
  const first = missed.slice(0, NAMED).map(show).join(', ')
  return [`exclusion list: ${missed.length} ${kind}s match no upstream question; the first ${NAMED}: ${first}`]
}

/** `hits` holds the ids and normalised texts that excluded something; `norm` normalises a text as the matching does. */
export function unmatchedExclusions(
  exclude: { ids: readonly string[]; texts: readonly string[] },
  hits: ReadonlySet<string>,
  norm: (text: string) => string,
): string[] {
  return [
    ...summarise(
      'id',
      exclude.ids.filter((id) => !hits.has(id)),
    ),
    ...summarise(
      'text',
      exclude.texts.filter((t) => !hits.has(norm(t))),
    ),
  ]
}
