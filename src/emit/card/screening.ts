/**
 * The card's account of a screened build that the 1.3.0 protocol's text does not describe: who made the marks (a
 * marks file `jev screen` wrote names them), how many of the build's items they cover, and, where the recipe lets
 * items no mark covers borrow unscreened, how many borrowed options were lent that way. A variant is named as one.
 */
import type { ScreenedFile, ScreenReviewer } from '../../borrow/screen.ts'
import type { Recipe } from '../../recipe/schema.ts'
import { compareStrings } from '../../util/canonical.ts'

export interface ScreeningFacts {
  /** the marks file, as the recipe names it */
  file: string
  /** per reviewer (first round, then recheck), the build's items whose marks it made; null where the file names none */
  reviewers: { first: [ScreenReviewer, number][]; second: [ScreenReviewer, number][] } | null
  /** the build's records the marks cover, of all its records */
  covered: number
  records: number
  /** with allowUnscreened: borrowed options lent to items no mark covers, those items, and all borrowed options */
  unscreened: { options: number; items: number; borrowed: number } | null
}

/**
 * What the card says of the screening, or null where the 1.3.0 text says it all (a file naming no reviewer, and no
 * unscreened borrowing allowed).
 */
export function screeningFacts(
  file: ScreenedFile,
  path: string,
  allowUnscreened: boolean,
  origins: ReadonlyMap<string, { choices: readonly { from: string }[] }>,
): ScreeningFacts | null {
  if (!file.reviewers && !allowUnscreened) return null
  const ids = [...origins.keys()]
  const tally = (pick: (x: ScreenedFile['items'][string]) => readonly (readonly [string, number])[] | undefined) => {
    const n = new Map<string, number>()
    for (const id of ids)
      for (const key of new Set((pick(file.items[id] ?? { shown: [], marks: '' }) ?? []).map(([k]) => k))) n.set(key, (n.get(key) ?? 0) + 1)
    return [...n.keys()].sort(compareStrings).map((k): [ScreenReviewer, number] => [file.reviewers![k]!, n.get(k)!])
  }
  let options = 0
  let items = 0
  let borrowed = 0
  for (const [id, o] of origins) {
    const lent = o.choices.filter((c) => c.from === 'borrowed').length
    borrowed += lent
    if (lent > 0 && file.items[id] === undefined) {
      options += lent
      items++
    }
  }
  return {
    file: path,
    reviewers: file.reviewers ? { first: tally((x) => x.by), second: tally((x) => x.recheckBy) } : null,
    covered: ids.filter((id) => file.items[id] !== undefined).length,
    records: ids.length,
    unscreened: allowUnscreened ? { options, items, borrowed } : null,
  }
}

function reviewer(r: ScreenReviewer, prompt: string): string {
  if (r.kind === 'model')
    return `the model \`${r.model}\` (one item per request; its prompt, the builder's \`prompts/${prompt}\`, sha256 \`${r.prompt.slice(0, 12)}…\`)`
  if (r.kind === 'sheets') return `the reviewers of the sheets in \`${r.sheets}\``
  return `the reviewers of \`${r.file}\` (\`${r.protocol}\`)`
}

const list = (rs: readonly [ScreenReviewer, number][], prompt: string) =>
  rs.map(([r, n]) => `${reviewer(r, prompt)} for ${n} item${n === 1 ? '' : 's'}`).join('; ')

/** Sub-items of "Growing", after the rule's own. */
export function screeningLines(f: ScreeningFacts): string {
  const lines: string[] = []
  if (f.reviewers)
    lines.push(
      `  - Who screened (\`${f.file}\`): ${list(f.reviewers.first, 'screen.md') || 'no one, for these items'}; rechecked by ${list(f.reviewers.second, 'recheck.md') || 'no second reviewer'}. The marks cover ${f.covered} of this build's ${f.records} items (an item that is never grown needs none).`,
    )
  if (f.unscreened)
    lines.push(
      `  - Not every option was screened: the recipe lets an item no mark covers borrow unscreened (\`allowUnscreened\`), and ${f.unscreened.options} of the ${f.unscreened.borrowed} borrowed options, in ${f.unscreened.items} items, were lent without a reviewer's mark.`,
    )
  return lines.join('\n')
}

/** The paragraph that names a variant and the published version it derives from. */
export function variantParagraph(recipe: Recipe): string {
  const v = recipe.variantOf
  if (!v) return ''
  return `**A variant of ${v.name} ${v.version}.** It was built from a recipe of its own (\`${recipe.name}\` ${recipe.version}) derived from the published ${v.name} ${v.version}: its records, and every figure and rate below, are its own, not the published version's, and results on it are not comparable with results on ${v.name} ${v.version}.`
}
