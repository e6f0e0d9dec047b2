import { stringify } from 'yaml'
import { kindOf } from '../../adapt/kinds.ts'
import type { ContaminationSummary } from '../../contam/report.ts'
import { DROP_REASONS, type DropReason } from '../../prepare/eligibility.ts'
import type { DropCounts } from '../../prepare/prepare.ts'
import { sourceFiles } from '../../recipe/load.ts'
import { LANGUAGES, N_CHOICES, type Recipe, SPLITS } from '../../recipe/schema.ts'
import type { Audit } from '../audit.ts'
import { figureLink } from '../figures.ts'
import { type JudgedRates, judgedSection } from '../judged.ts'
import { CONFIG_OUTPUTS } from '../outputs.ts'
import type { SourceChanges } from '../schema.ts'
import type { DatasetStats } from '../stats.ts'
import { contaminationSection } from './contamination.ts'
import { auditSection, changesSection, growingRule } from './distractors.ts'
import { type HUB_LICENSES, sizeCategoryFor } from './hub-metadata.ts'
import { type ScreeningFacts, screeningLines, variantParagraph } from './screening.ts'
import { table } from './table.ts'

export interface CardInput {
  recipe: Recipe
  recipeHash: string
  builderVersion: string
  stats: DatasetStats
  drops: ReadonlyMap<string, DropCounts>
  audit: Audit
  /** bytes of test.jsonl and val.jsonl, for dataset_info */
  bytes: Record<'test' | 'val', number>
  /** the contamination check, where the recipe asks for one */
  contamination?: ContaminationSummary
  /** the "Changes from" figures pinned in the lock, for a recipe that types none */
  changes?: Readonly<Record<string, SourceChanges>>
  /** the blind hand-judged rates of this build's borrowed options */
  judged?: JudgedRates
  /** who screened, the marks' coverage and the options lent unscreened, where the 1.3.0 text does not say it */
  screening?: ScreeningFacts
}

const LABELS = 'ABCDEFGH'

/** The reference evaluator's repository, on GitHub and as the Hub dataset it reads by default (eval.py's HUB_ID). */
const EVAL_PY_REPO = 'kishida/jev-bench'

const CC_BY_SA_4 = 'https://creativecommons.org/licenses/by-sa/4.0/'

/** The licence `publication` names (without one, jev-bench's): the Hub's id and the text's name; another URL is "other". */
const licenceOf = (recipe: Recipe): { id: (typeof HUB_LICENSES)[number]; name: string } => {
  const url = recipe.publication?.license ?? CC_BY_SA_4
  return url === CC_BY_SA_4 ? { id: 'cc-by-sa-4.0', name: 'CC BY-SA 4.0' } : { id: 'other', name: url }
}

/** What the dataset card says of a source: the kind's `card` data (title, licence, languages, …). */
const sourceCard = (s: Recipe['sources'][number]) => kindOf(s).card

/** The Hub metadata, as an object in the key order the card has always had; card-check.ts guards what the Hub accepts. */
function frontMatter(c: CardInput): string {
  const total = c.stats.total.test + c.stats.total.val
  const languages = c.recipe.sources.map((s) => sourceCard(s).languages)
  const metadata = {
    pretty_name: c.recipe.name,
    license: licenceOf(c.recipe).id,
    language: LANGUAGES.filter((l) => languages.some((langs) => langs.includes(l))),
    task_categories: ['multiple-choice'],
    task_ids: ['multiple-choice-qa'],
    size_categories: [sizeCategoryFor(total)],
    source_datasets: [...new Set(c.recipe.sources.map((s) => s.repo))],
    configs: [{ config_name: 'default', data_files: CONFIG_OUTPUTS.map((o) => ({ split: o.split, path: o.name })) }],
    dataset_info: {
      features: [
        ...['id', 'source', 'question', 'context'].map((name) => ({ name, dtype: 'string' })),
        { name: 'choices', sequence: 'string' },
        ...['answer_idx', 'n_choices'].map((name) => ({ name, dtype: 'int64' })),
      ],
      splits: SPLITS.map((name) => ({ name, num_bytes: c.bytes[name], num_examples: c.stats.total[name] })),
      dataset_size: c.bytes.test + c.bytes.val,
    },
  }
  // block style, sequences flush with their key, never folded: the layout the Hub's own cards use
  return `---\n${stringify(metadata, { indentSeq: false, lineWidth: 0 })}---`
}

/** "a", "a and b", "a, b and c". */
function inWords(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`
}

/** The record-format rows that depend on the sources: how ids are made, what a context is. */
function sourceDependentFields(recipe: Recipe): { id: string; context: string } {
  const content = recipe.sources.filter((s) => kindOf(s).adapter.idFrom === 'content')
  const notes = [...new Set(content.map((s) => sourceCard(s).idNote ?? s.name))]
  const contexts = [...new Set(recipe.sources.flatMap((s) => sourceCard(s).context ?? []))]
  return {
    id: `stable identifier prefixed with the source (upstream id${content.length ? `; for ${inWords(content.map((s) => s.name))}, 16 hex digits of sha256 over its own upstream fields: ${notes.join('; ')}` : ''})`,
    context: contexts.length ? `${inWords(contexts)}; null elsewhere` : 'null',
  }
}

function dropTable(c: CardInput): string {
  const reasons = (Object.keys(DROP_REASONS) as DropReason[]).filter((r) => [...c.drops.values()].some((d) => (d.get(r) ?? 0) > 0))
  if (reasons.length === 0) return 'Nothing was dropped.'
  const sources = [...c.drops.keys()]
  const rows = reasons.map((r) => [
    `${r} — ${DROP_REASONS[r]}`,
    ...sources.map((s) => c.drops.get(s)?.get(r) ?? 0),
    sources.reduce((a, s) => a + (c.drops.get(s)?.get(r) ?? 0), 0),
  ])
  return table(['reason', ...sources, 'total'], rows)
}

/** The card's count tables; check-dataset recomputes them from the records. */
export function countsTable(stats: DatasetStats): string {
  const rows = Object.entries(stats.bySource).map(([s, n]) => [s, n.test, n.val])
  return table(['source', 'test', 'val'], [...rows, ['total', stats.total.test, stats.total.val]])
}

export function choicesTable(stats: DatasetStats): string {
  return table(
    ['split', ...N_CHOICES.map(String)],
    SPLITS.map((s) => [s, ...N_CHOICES.map((n) => stats.byChoices[s][String(n)] ?? 0)]),
  )
}

export function positionsTable(stats: DatasetStats): string {
  const rows = SPLITS.flatMap((s) => [
    [`${s} observed`, ...stats.answerPositions[s]],
    [`${s} expected if uniform`, ...stats.expectedPositions[s].map((x) => x.toFixed(1))],
  ])
  return table(['split', ...LABELS.split('')], rows)
}

/** One section of the card: its markdown, or nothing where it does not apply to this build. */
type Section = (c: CardInput) => string | undefined

const names = (list: Recipe['sources']) => list.map((s) => s.name).join(', ')
/** "keeps" for one source, "keep" for several. */
const keep = (list: readonly unknown[]) => (list.length === 1 ? 'keeps' : 'keep')
const unshuffled = (recipe: Recipe) => recipe.sources.filter((s) => !s.shuffle)

const intro: Section = (c) => `# ${c.recipe.name}

A multiple-choice set for models that return a probability for every option instead of generated text. It measures two things at once: **accuracy** (is the top-probability option the right one) and **calibration** (when the model says 0.7, is it right 70 % of the time). The number of options varies from 2 to 8, because calibration on binary questions says little about calibration on eight-way ones; 5 and 7 options are present in quantity on purpose.

\`test\` is what results are reported on. \`val\` exists only to fit a temperature and is never reported on. The two are disjoint.`

const counts: Section = (c) => `## Splits and counts

${countsTable(c.stats)}`

const optionCounts: Section = ({ stats }) => `## Option counts

${choicesTable(stats)}

Chance floor (the mean of 1/n, what always guessing scores): **${stats.chanceFloor.test.toFixed(3)}** on test, ${stats.chanceFloor.val.toFixed(3)} on val.

${figureLink('option-counts.svg')}`

const answerPositions: Section = ({ recipe, stats }) => {
  const fixedOrder = unshuffled(recipe)
  return `## Answer positions

Where the right option sits (A = first), against what a uniform placement would give for these option counts${recipe.placement === 'dealt' ? '. Positions are dealt evenly within each split, source and option count (see "How it was built")' : ''}${fixedOrder.length ? `. ${names(fixedOrder)} ${keep(fixedOrder)} the upstream option order, so ${fixedOrder.length === 1 ? 'its' : 'their'} answers sit where upstream has them` : ''}:

${positionsTable(stats)}

${figureLink('answer-positions.svg')}`
}

const recordFormat: Section = ({ recipe, stats }) => {
  const fields = sourceDependentFields(recipe)
  return `## Record format

One JSON object per line (UTF-8, \`\\n\` line ends), keys in this order:

${table(
  ['field', 'type', 'meaning'],
  [
    ['id', 'string', fields.id],
    ['source', 'string', Object.keys(stats.bySource).join(', ')],
    ['question', 'string', 'the upstream question text, verbatim'],
    ['context', 'string or null', fields.context],
    ['choices', 'string[]', '2 to 8 option texts, in the order the model sees them'],
    ['answer_idx', 'integer', 'index into choices of the right option'],
    ['n_choices', 'integer', 'choices.length'],
  ],
)}`
}

const dropped: Section = (c) => `## What was dropped, and why

${c.recipe.exclude.ids.length + c.recipe.exclude.texts.length ? `The exclusion list named ${c.recipe.exclude.ids.length} ids and ${c.recipe.exclude.texts.length} question texts.` : 'No exclusion list was used.'} Upstream rows removed before or during selection, by reason, counted over every row read:

${dropTable(c)}`

const howBuilt: Section = (c) => {
  const { recipe } = c
  const twoSplits = recipe.sources.filter((s) => s.test.from !== s.val.from)
  const oneSplit = recipe.sources.filter((s) => s.test.from === s.val.from)
  const balanced = oneSplit.filter((s) => s.balanceSides === 'answer')
  const fixed = recipe.sources.filter((s) => s.fixedChoices !== undefined)
  const onePer = recipe.sources.filter((s) => s.onePerContext)
  const fixedOrder = unshuffled(recipe)
  const sides = `${twoSplits.length ? ` for ${names(twoSplits)} the test side and the val side are different upstream splits, and a val-side question that also appears anywhere in the test-side split is dropped.` : ''}${oneSplit.length ? ` ${names(oneSplit)} draw${oneSplit.length === 1 ? 's' : ''} both sides from one upstream split: each question goes to one side by a keyed hash of its text, in the ratio of the two counts.` : ''}${balanced.length ? ` For ${names(balanced)} each split is drawn in proportion within each right answer (its share among both sides' eligible questions, by largest remainder), so test and val have the same share of each answer within one item.` : ''}`
  const placement =
    recipe.placement === 'dealt'
      ? `The right answer's position is dealt, not left to chance: within each split, source and option count the items are ordered by a keyed hash of their identity and each run of n of them is given the positions 0 … n−1 in a seeded order, so position counts differ by at most one; the wrong options fill the other slots in the order of the item's seeded Fisher–Yates shuffle${fixedOrder.length ? ` (${names(fixedOrder)} ${keep(fixedOrder)} the upstream order)` : ''}.`
      : `Options are shuffled with a seeded Fisher–Yates shuffle${fixedOrder.length ? ` (except ${names(fixedOrder)}, which ${keep(fixedOrder)} the upstream order)` : ''}.`
  const rules = [
    '- Eligibility: options all distinct after normalisation (NFKC, whitespace collapsed, trimmed, lower-cased — used only to compare, never to rewrite); no option that refers to other options ("all of the above", "both A and B", …); not on the exclusion list. Exact repeats of an upstream row count once.',
    `- Sides:${sides}`,
    '- Selection: each split takes its items from its side in the order of a keyed hash of their identity (normalised question, context and sorted options), so the upstream row order cannot change which items are chosen. No question appears twice, by identity or by question-plus-context text.',
    `- Option counts:${fixed.length ? ` ${fixed.map((s) => `${s.name} items always have ${s.fixedChoices} options`).join('; ')}.` : ''} The rest of each split's quota is dealt to the other items by a seeded shuffle; an item dealt more options than it can have (its own plus what the borrowing rules below let it borrow, at most 8; only its own for a question that is never grown) trades with others, so the table is met exactly.`,
    `- Shrinking keeps the right option and a uniformly random subset of the wrong ones. ${growingRule(recipe, c.screening?.reviewers != null)}`,
    c.screening && screeningLines(c.screening),
    onePer.length > 0 &&
      `- ${names(onePer)}: one question per ${onePer.length === 1 ? 'context (passage)' : 'context'} in the whole dataset; the first in selection order is kept, the others are dropped as \`duplicate_passage\`.`,
    `- ${placement} All randomness comes from seed ${recipe.seed} through seedrandom (alea) streams keyed by purpose and upstream identity.`,
  ]
    .filter((x) => x)
    .join('\n')
  const pinned = recipe.sources.map((s) => [
    s.name,
    `\`${s.repo}\``,
    s.config,
    `\`${s.revision}\``,
    s.test.from,
    s.val.from,
    s.fixedChoices === undefined ? (s.group === 'subject' ? 'the subject' : 'the source') : '(never grown)',
  ])
  const files = recipe.sources.flatMap((s) => sourceFiles(s).map((f) => `\`${s.repo}/${f.path}\` (${f.split})`))
  return `## How it was built

Built by jev-bench builder ${c.builderVersion} from recipe \`${recipe.name}\` ${recipe.version} (content hash \`${c.recipeHash}\`), seed **${recipe.seed}**. The same recipe over the same upstream rows gives byte-identical files on any machine.

${table(['source', 'Hub repo', 'config', 'pinned revision', 'test side from', 'val side from', 'group for borrowing'], pinned)}

Files read: ${files.join(', ')}. No other split (no train split) is used${recipe.contamination ? ' for items; the training splits under Contamination are only compared against' : ''}.

${rules}`
}

const evaluating: Section = () => `## Evaluating

Numbers are only comparable between servers that build the same prompt. Send each record as one choice question whose options are the choices, labelled ${LABELS.slice(0, 3).split('').join(', ')}, … (up to H) in order. The reference prompt is exactly this one user message (\`{…}\` are the record's fields; the context line is \`(none)\` when \`context\` is null; one option line per choice):

\`\`\`text
Context:
{context, or (none)}

Answer the question with only the label of the best option (the character before the colon), nothing else.
Question: {question}
Options:
A: {choices[0]}
B: {choices[1]}
…
\`\`\`

The probability of each single-token label at the first generated position is read off. Scores: accuracy of the top option; expected calibration error (ECE) over 15 equal-width bins of top-option confidence; negative log-likelihood (NLL, probabilities floored at 1e-12) and the multi-class Brier score (the sum of squared errors over the options); and a single temperature T fitted on \`val\` by minimising the cross-entropy of the right option, then applied to \`test\`. In probabilities-only mode no temperature is fitted, and rounded probabilities inflate NLL and Brier (accuracy and ECE are unaffected).

The reference evaluator is \`eval.py\` in the dataset's GitHub repository (${EVAL_PY_REPO}). It reads exactly the fields \`question\`, \`context\`, \`choices\`, \`answer_idx\`, \`n_choices\` and \`source\`, and skips a record whose choices are not all distinct as strings (none here). From the Hub (\`${EVAL_PY_REPO}\`, splits \`test\` and \`val\`):

\`\`\`sh
python eval.py --url http://127.0.0.1:8080
\`\`\`

On a local build, reading \`test.jsonl\` and \`val.jsonl\` from a folder instead:

\`\`\`sh
python eval.py --url http://127.0.0.1:8080 --data out/
\`\`\``

const caveats: Section = () => `## Caveats

- A small set: accuracy differences under about 0.02 are noise.
- Not comparable to published MMLU or ARC numbers: the option counts and the options themselves differ from the originals.
- Borrowed distractors come from other questions and are not checked to be wrong for this one by a person; the rules above make a second right answer unlikely, not impossible. \`provenance.jsonl\` names the lender of every one.
- \`val\` is for fitting a temperature only; do not report on it.`

/** One attribution line per upstream work: sources of one kind (ARC's two configs) share it. */
const licence: Section = ({ recipe }) => `## Licence and attribution

This derivative is released under **${licenceOf(recipe).name}**. It contains text from:

${[...new Set(recipe.sources.map(sourceCard).map((a) => `- ${a.title} — ${a.licence}; ${a.citation}`))].join('\n')}`

const machineReadable: Section = ({ recipe }) =>
  recipe.publication &&
  `## Machine-readable metadata

\`croissant.json\` describes this dataset in [Croissant 1.0](http://mlcommons.org/croissant/1.0): licence, creator, citation, version ${recipe.version}, the sha256 of \`test.jsonl\` and \`val.jsonl\`, and one record set per split with the fields above (\`choices\` a repeated text field, \`id\` the key).`

/** The card's body, in order. */
const SECTIONS: readonly Section[] = [
  intro,
  ({ recipe }) => recipe.variantOf && variantParagraph(recipe),
  ({ recipe, changes }) => recipe.changesFrom && changesSection(recipe, changes),
  counts,
  optionCounts,
  answerPositions,
  recordFormat,
  dropped,
  ({ recipe, contamination }) => contamination && contaminationSection(recipe, contamination),
  howBuilt,
  ({ audit, recipe }) => auditSection(audit, recipe),
  ({ judged }) => judged && judgedSection(judged),
  evaluating,
  caveats,
  licence,
  machineReadable,
]

/** The dataset card (README.md): the Hub metadata, then each section that applies, a blank line between. */
export function renderCard(c: CardInput): string {
  const parts = [frontMatter(c), ...SECTIONS.map((section) => section(c))]
  return `${parts.filter((p) => p).join('\n\n')}\n`
}
