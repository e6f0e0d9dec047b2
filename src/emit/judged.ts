/**
 * The blind judged rates of a build's borrowed options (Amendment 1.2):
 * what `jev judge` scores from the judges' marks, kept next to the
 * recipe and pinned by it, so the card can state them for exactly the build
 * they were judged on (the build and check-dataset compare the dataset hash).
 */
import { z } from 'zod'
import { compareStrings } from '../util/canonical.ts'

const Rates = z.strictObject({
  items: z.int().nonnegative(),
  borrowed: z.int().nonnegative(),
  foreign: z.int().nonnegative(),
  maybeRightItems: z.int().nonnegative(),
  upstream: z.int().nonnegative(),
  upstreamForeign: z.int().nonnegative(),
})
export type JudgedRatesRow = z.infer<typeof Rates>

export const JudgedRates = z.strictObject({
  /** the build the sample was drawn from */
  datasetHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** where the protocol, the sheets and the marks are */
  protocol: z.string().min(1),
  seed: z.int(),
  judges: z.int().positive(),
  sample: z.strictObject({ test: z.int().nonnegative(), val: z.int().nonnegative() }),
  bySource: z.record(z.string(), Rates),
  all: Rates,
  /** who judged, where `jev judge` wrote the file: a model (its name and prompt's sha256) or the sheets' reviewers */
  reviewer: z
    .discriminatedUnion('kind', [
      z.strictObject({
        kind: z.literal('model'),
        model: z.string().min(1),
        endpoint: z.string(),
        prompt: z.string().regex(/^[0-9a-f]{64}$/),
      }),
      z.strictObject({ kind: z.literal('sheets'), sheets: z.string().min(1) }),
    ])
    .optional(),
  /** the same protocol on an earlier version, for the card's comparison */
  earlier: z
    .strictObject({ version: z.string(), items: z.int().nonnegative(), borrowed: z.int().nonnegative(), foreign: z.int().nonnegative() })
    .optional(),
})
export type JudgedRates = z.infer<typeof JudgedRates>

const pct = (a: number, b: number) => (b === 0 ? '–' : `${((100 * a) / b).toFixed(0)} %`)

/** Amendment 1.2's targets: at most 35 % foreign overall and 45 % in every source, at most 2 % of items with a second right answer. */
function meets(j: JudgedRates): boolean {
  const under = (r: JudgedRatesRow, share: number) => r.foreign * 100 <= share * r.borrowed
  return under(j.all, 35) && Object.values(j.bySource).every((r) => under(r, 45)) && j.all.maybeRightItems * 100 <= 2 * j.all.items
}

/** Half the width of a 95 % normal interval for a share a/b, in whole percentage points. */
function margin(a: number, b: number): string {
  if (b === 0) return '–'
  const p = a / b
  return Math.max(1, Math.round(196 * Math.sqrt((p * (1 - p)) / b))).toString()
}

/** Which source's borrowed options were struck most, beside how often its own options were. */
function mostStruck(j: JudgedRates): string {
  const [name, r] = Object.entries(j.bySource)
    .filter(([, r]) => r.borrowed > 0)
    .sort(([a, x], [b, y]) => y.foreign * x.borrowed - x.foreign * y.borrowed || compareStrings(a, b))[0] ?? ['', null]
  if (!r || r.foreign === 0) return ''
  return ` The source whose borrowed options were struck most is ${name}: ${pct(r.foreign, r.borrowed)} of them, where the same reviewers struck ${pct(r.upstreamForeign, r.upstream)} of its upstream options.`
}

/** Who saw the sample: the 1.3.0 protocol's fresh model instances (a file that names no reviewer), a model, or the sheets' reviewers. */
function shownTo(j: JudgedRates): string {
  if (j.reviewer?.kind === 'model')
    return `the model \`${j.reviewer.model}\` as the judge, one request per item, which saw nothing but that item`
  if (j.reviewer?.kind === 'sheets') return `${j.judges} reviewers, each of whom saw nothing but their own sheet`
  return `${j.judges} reviewers (language-model instances, not people), each a fresh one that saw nothing but its sheet`
}

/** Where the protocol and the marks are, and what scored them. */
function whereMarks(j: JudgedRates): string {
  if (j.reviewer?.kind === 'model')
    return `Its instructions are the builder's \`prompts/judge.md\` (sha256 \`${j.reviewer.prompt.slice(0, 12)}…\`), the protocol \`${j.protocol}\`; \`jev judge\` scored its marks against \`provenance.jsonl\`.`
  if (j.reviewer?.kind === 'sheets')
    return `The protocol is \`${j.protocol}\`; the sheets and marks were in \`${j.reviewer.sheets}\`, and \`jev judge\` scored them against \`provenance.jsonl\`.`
  return `The protocol, the sheets and the marks are in the builder's repository (\`${j.protocol}\`); \`scripts/judge.ts\` scores them against \`provenance.jsonl\`.`
}

export const JUDGED_HEADING = '### Judged blind, by reviewers'

/** The card's part: the rates by source and what they mean. */
export function judgedSection(j: JudgedRates): string {
  const rows = [...Object.entries(j.bySource), ['all', j.all] as const].map(
    ([name, r]) =>
      `| ${name} | ${r.items} | ${r.borrowed} | ${r.foreign} (${pct(r.foreign, r.borrowed)}) | ${r.maybeRightItems} (${pct(r.maybeRightItems, r.items)}) | ${pct(r.upstreamForeign, r.upstream)} |`,
  )
  const earlier = j.earlier
    ? ` The same protocol on ${j.earlier.version} (${j.earlier.items} grown items) found ${pct(j.earlier.foreign, j.earlier.borrowed)} of its ${j.earlier.borrowed} borrowed options obviously foreign.`
    : ''
  return `${JUDGED_HEADING}

A seeded sample of grown items (seed ${j.seed}: ${j.sample.test} test and ${j.sample.val} val items, the first of each split in the order of a keyed hash of their ids) was shown to ${shownTo(j)}: each question with its options in the record's order, with no mark of which were borrowed and without the answer. Each option was marked "belongs", "obviously foreign" (struck without knowing the answer) or "may also be right". ${whereMarks(j)}

| source | grown items | borrowed options | obviously foreign | items with a borrowed option that may also be right | upstream options marked foreign |
|---|---:|---:|---:|---:|---:|
${rows.join('\n')}

${pct(j.all.foreign, j.all.borrowed)} of the judged borrowed options are still obviously foreign, and ${pct(j.all.maybeRightItems, j.all.items)} of the judged items have a borrowed option that may also be right; Amendment 1.2 aims at no more than 35 % (45 % in any source) and 2 %, and this version ${meets(j) ? 'meets both' : 'does not reach them'}. The sample is small: even counting its ${j.all.borrowed} options as independent, a share is known only to within about ${margin(j.all.foreign, j.all.borrowed)} points either way (95 %), and they come in ${j.all.items} items from ${j.reviewer?.kind === 'model' ? "one model, whose judgement is one reviewer's" : `${j.judges} reviewers who judge differently`}, so the real uncertainty is larger.${earlier} The last column is the reviewers' strictness on the upstream options themselves.${mostStruck(j)} Read the results with this in mind: on grown items part of what is measured is still striking options that do not belong, so report by option count and by upstream options kept (below), and compare calibration across option counts with care.`
}
