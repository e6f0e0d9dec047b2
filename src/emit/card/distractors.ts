import { N_CHOICES, type Recipe, SPLITS } from '../../recipe/schema.ts'
import type { Audit } from '../audit.ts'
import { figureLink } from '../figures.ts'
import type { SourceChanges } from '../schema.ts'
import { table } from './table.ts'

/** The card's text on distractors: how they were borrowed, the audit, and what changed from the last version. */

const pct = (x: number) => `${(x * 100).toFixed(1)} %`
const fixed3 = (x: number) => x.toFixed(3)

/**
 * The "Growing" rule of "How it was built", as the recipe sets it (one list item, with sub-items);
 * `namedReviewers`: the marks file names who screened (the card says so below, not as 1.3.0's model instances).
 */
export function growingRule(recipe: Recipe, namedReviewers: boolean): string {
  const b = recipe.distractors.borrow
  const p = b.plausible
  const v = p.vectors
  const skipped = [
    `near-copies of the item (similarity ${b.nearCopy} or more)`,
    b.skipNegativeLenders && 'questions phrased as a negative (their wrong options are often right answers elsewhere)',
    b.skipOverlappingLenders &&
      'questions that share an option with the item (they ask about the same things, perhaps the other way round)',
    b.skipNarrowerLenders &&
      "questions that hold every content word of the item's question (they ask a narrower question about the same thing, so their wrong options are often right here)",
  ]
  const options = [
    "only a lender's wrong options, never its right answer",
    b.rightAnswersOf > 0 &&
      `never the right answer of any of the item's ${b.rightAnswersOf} most similar questions, even where a lender lists it as wrong`,
    `at most ${recipe.borrowMaxChars} characters long, not already among the item's options, each text once`,
    b.likeForLike && "like for like: when all of an item's options are numbers only numbers are lent, when none is no number is",
    b.sameForm &&
      "shaped like the item's own options: the case of the first letter and the closing punctuation of one of them, and a length from half the shortest to twice the longest",
    b.skipNearCopies &&
      "never a near-copy of one of the item's own options (its words a subset or superset of one's; in Japanese, one contains the other)",
    b.skipLabelLike && 'never an option that looks like a label ("(A) …", "A. …", a lone letter)',
  ]
  const ties = p.related && Object.entries(p.related.min).map(([l, m]) => `${l} it must be at least ${m}`)
  return [
    `Growing keeps every upstream option and borrows wrong options of other questions of the item's group on the same side (the ${p.lenders} most similar by TF-IDF cosine, near-copies and the lenders below skipped). Nothing is borrowed across the test/val divide. A candidate must be of the item's own kind and about its topic, and is ranked by its own fit to the item, not only by its lender:`,
    `  - Lenders skipped: ${skipped.filter((x) => x).join('; ')}.`,
    `  - Options lent: ${options.filter((x) => x).join('; ')}; a number only in a unit the own options have; never an option that refers to others ("None of the above", "I only", "both"); never one that shares a content word with the item's right answer (Japanese: a pair of characters, or one holding the other), nor a near-copy of the right answer of any of the ${b.rightAnswersOf} most similar questions.`,
    v &&
      `  - English topic fit: static word vectors (${v.from}, quantised to integers, pinned by sha256 \`${v.sha256.slice(0, 12)}…\`), a candidate's cosine with the item's own options at least ${v.minTopic} and below ${v.maxAnswer} with its right answer.`,
    p.maxWords !== undefined &&
      `  - English items whose longest own option has more than ${p.maxWords} words are not grown (another question's clause reads as foreign).`,
    ties &&
      `  - Ties in the training splits: the required training files named under Contamination tie a candidate to the item when their questions list it with one of the own options, or questions like this one list it as a wrong option; the tie is over the square root of how often the candidate is listed at all. It adds to every candidate's fit, and for ${ties.join(', ')}. An optional training file is never read for this, so a build gives the same records whether or not it could get one.`,
    `  - The candidates are ranked by fit (lender similarity, topic fit, ties and shared words, less a penalty for a length unlike the own options'); the best ones are lent.${p.lengthCue ? ' Where the right answer is the longest own option, a longer candidate is among them often enough that "always the longest" earns about 1/n on grown items (dealt per split and option count).' : ''}`,
    p.screened &&
      `  - Screened by reviewers (${namedReviewers ? 'named below' : 'language-model instances, each seeing only its sheet'}): each item's top candidates were shown to a reviewer with the question, its own options and its right answer, and marked acceptable (a reader would take it for a genuine option, and it is wrong), foreign, or may also be right; where a second reviewer rechecked the accepted ones, only what both passed is lent. An item with too few keeps fewer options, and the option counts go to items that have them. The marks are pinned by sha256 (\`${p.screened.path}\`, \`${p.screened.sha256.slice(0, 12)}…\`); the protocol is in the builder's \`docs/judging.md\`${namedReviewers ? '' : ', the sheets and marks under `docs/judging/`'}.`,
    '  - A question phrased as a negative ("Which is NOT …", "all … EXCEPT", "least likely"; the recipe lists the patterns per language) is never grown: there an off-topic option would be a right answer.',
  ]
    .filter((x) => x)
    .join('\n')
}

/** Tables of the audit; check-dataset looks for exactly these in the card. */
export function auditTables(a: Audit): string[] {
  const sources = Object.keys(a.test.bySource)
  const tally = (t: { items: number; grown: number; borrowed: number }) => [t.items, t.grown, t.borrowed]
  const bySource = table(
    ['source', 'test items', 'test grown', 'test borrowed options', 'val items', 'val grown', 'val borrowed options'],
    sources.map((s) => [s, ...tally(a.test.bySource[s]!), ...tally(a.val.bySource[s]!)]),
  )
  const byChoices = table(
    ['n_choices', 'test items', 'test grown', 'test borrowed options', 'val items', 'val grown', 'val borrowed options'],
    N_CHOICES.map((n) => [n, ...tally(a.test.byChoices[String(n)]!), ...tally(a.val.byChoices[String(n)]!)]),
  )
  const row = (name: string, f: (s: Audit['test']) => { all: number; grown: number }) => [
    name,
    ...SPLITS.flatMap((s) => [fixed3(f(a[s]).all), fixed3(f(a[s]).grown)]),
  ]
  const scores = table(
    ['accuracy without knowing the answer', 'test, all items', 'test, grown items', 'val, all items', 'val, grown items'],
    [
      row('chance floor (mean of 1/n)', (s) => s.chance.floor),
      row('chance if borrowed options can be spotted (mean of 1/upstream options kept)', (s) => s.chance.spotter),
      row('always the longest option', (s) => s.baselines.longest),
      row('always the shortest option', (s) => s.baselines.shortest),
      row('most word (Japanese: character-bigram) overlap with question and context', (s) => s.baselines.overlap),
    ],
  )
  return [bySource, byChoices, scores, ...keptTables(a)]
}

/** Per split, items by option count and by upstream options kept (the "effective n"), where the audit has them. */
function keptTables(a: Audit): string[] {
  return SPLITS.flatMap((split) => {
    const byKept = a[split].byKept
    if (!byKept) return []
    const kept = N_CHOICES.filter((k) => Object.values(byKept).some((row) => (row[String(k)] ?? 0) > 0))
    const rows = N_CHOICES.filter((n) => Object.values(byKept[String(n)] ?? {}).some((c) => c > 0)).map((n) => {
      const row = byKept[String(n)] ?? {}
      const items = Object.values(row).reduce((x, c) => x + c, 0)
      const mean = Object.entries(row).reduce((x, [k, c]) => x + Number(k) * c, 0) / items
      return [n, items, ...kept.map((k) => row[String(k)] ?? 0), mean.toFixed(2)]
    })
    return [table([`${split}: n_choices`, 'items', ...kept.map((k) => `${k} upstream kept`), 'mean upstream kept'], rows)]
  })
}

/** The advice on reporting where the audit has the effective n: by option count and by upstream options kept. */
function keptAdvice(a: Audit): string {
  const allGrown = N_CHOICES.filter((n) => {
    const t = a.test.byChoices[String(n)]
    return t !== undefined && t.items > 0 && t.grown === t.items
  })
  const span = allGrown.length === 0 ? '' : allGrown.length === 1 ? `${allGrown[0]}` : `${allGrown[0]}–${allGrown.at(-1)}`
  const contiguous = allGrown.every((n, i) => i === 0 || n === allGrown[i - 1]! + 1)
  return `Report results by option count and, within it, by the number of upstream options kept (the tables above; \`provenance.jsonl\` gives it per item), not as grown against not grown${
    allGrown.length
      ? `: at ${contiguous ? span : allGrown.join(', ')} options every test item is grown, so "grown" there only stands in for the option count`
      : ''
  }.`
}

export function auditSection(a: Audit, recipe: Recipe): string {
  const [bySource, byChoices, scores, ...kept] = auditTables(a)
  const t = a.test
  const grownTest = Object.values(t.bySource).reduce((x, s) => x + s.grown, 0)
  const borrowedTest = Object.values(t.bySource).reduce((x, s) => x + s.borrowed, 0)
  const balanced = new Set(recipe.sources.filter((s) => s.balanceSides === 'answer').map((s) => s.name))
  const first = Object.entries(t.firstRight).map(([s, f]) => {
    const v = a.val.firstRight[s]
    const val = balanced.has(s) && v ? ` and ${v.first} of its ${v.items} val answers (${pct(v.items ? v.first / v.items : 0)})` : ''
    return `${s} keeps the upstream option order ("yes" first): ${f.first} of its ${f.items} test answers (${pct(f.items ? f.first / f.items : 0)})${val} are the first option`
  })
  const negatives = `${t.negatives.items} test items (${a.val.negatives.items} val) are phrased as a negative and were held to at most their own option count; none was grown.`
  const grown = (f: (s: Audit['test']) => { grown: number }) => fixed3(f(t).grown)
  return `## Distractor audit

Every choice's origin is in \`provenance.jsonl\`: its index among the upstream options, or the lender it was borrowed from and its index there. From the records and that file:

${bySource}

${byChoices}

${figureLink('borrowed-options.svg')}

${scores}
${
  kept.length
    ? `
Items by the number of upstream options they keep, per option count (the "effective n": a reader who strikes every borrowed option faces the upstream ones):

${kept.join('\n\n')}
`
    : ''
}
${negatives}${first.length ? ` ${first.join('; ')}.` : ''}

What this means for readers: ${grownTest} of the ${Object.values(t.bySource).reduce((x, s) => x + s.items, 0)} test items were grown, with ${borrowedTest} borrowed options. At 5–8 options, part of what is measured is rejecting options that do not belong to the question: a model that could spot every borrowed option and guess among the rest would score ${fixed3(t.chance.spotter.all)} on test (${grown((s) => s.chance.spotter)} on grown items) against a chance floor of ${fixed3(t.chance.floor.all)} (${grown((s) => s.chance.floor)}); that gap is inherent to growing. The baselines above never read the answer; on grown items the longest option scores ${grown((s) => s.baselines.longest)}, the shortest ${grown((s) => s.baselines.shortest)} and the one with most overlap ${grown((s) => s.baselines.overlap)}, against their floor of ${grown((s) => s.chance.floor)}. ${
    t.byKept
      ? keptAdvice(a)
      : 'When comparing calibration across option counts, report grown and not-grown items separately (`provenance.jsonl` tells them apart).'
  }`
}

/**
 * "Changes from <previous>": the figures the recipe carries, or those pinned in its lock (`pinned`, when it
 * has none); CI recomputes them from builds of both versions.
 */
export function changesSection(recipe: Recipe, pinned?: Readonly<Record<string, SourceChanges>>): string {
  const c = recipe.changesFrom
  if (!c) return ''
  const figures = c.bySource ?? pinned
  if (!figures) throw new Error(`changesFrom ${c.version}: no figures, typed or pinned`)
  const rows = Object.entries(figures).map(([s, f]) => [s, f.kept, f.optionsChanged, f.replaced])
  const sum = (k: 'kept' | 'optionsChanged' | 'replaced') => Object.values(figures).reduce((x, f) => x + f[k], 0)
  return `## Changes from ${c.version}

${c.note} Compared record by record with a rebuild of ${c.version} (its recipe, \`recipes/${c.recipe}\` in the builder's repository, still rebuilds the published ${c.version} files byte for byte): ${sum('kept')} records are unchanged, ${sum('optionsChanged')} keep their question in the same split with other options, and ${sum('replaced')} are questions that replace others.

${table(['source', 'unchanged', 'same question, other options', 'replaced'], [...rows, ['total', sum('kept'), sum('optionsChanged'), sum('replaced')]])}`
}
