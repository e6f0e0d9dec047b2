import type { UpstreamQuestion } from '../adapt/adapter.ts'
import { normalize } from '../util/canonical.ts'
import { sha256Hex } from '../util/hash.ts'

/** Why an upstream question did not become a candidate; the card counts these. */
export type DropReason =
  | 'duplicate_row'
  | 'empty_text'
  | 'options_not_distinct'
  | 'option_refers_to_options'
  | 'excluded'
  | 'in_test_split'
  | 'duplicate_question'
  | 'duplicate_passage'
  | 'final_not_distinct'
  | 'contaminated'

export const DROP_REASONS: Record<DropReason, string> = {
  duplicate_row: 'exact repeat of an upstream row (counted once)',
  empty_text: 'empty question or option text',
  options_not_distinct: 'upstream options not all distinct (normalised)',
  option_refers_to_options: 'an option refers to other options ("all of the above", "both A and B", …)',
  excluded: 'on the exclusion list',
  in_test_split: 'val-side question that also appears in the upstream test split',
  duplicate_question: 'same question (identity or question-plus-context text) as another on its side, or as one already taken',
  duplicate_passage: 'same passage (normalised) as a question earlier in selection order: one question per passage',
  final_not_distinct: 'final options not all distinct (replaced by the next candidate)',
  contaminated: 'overlaps an upstream training split (see Contamination; dropped because the recipe excludes such items)',
}

// Normalised option texts that point at other options by position or as a set.
const LETTER = String.raw`\(?[a-f]\)?\.?`
// MAY_REFER (below) must match every text these do: a new pattern needs its word added there (test/eligibility.unit.ts checks)
export const REFERS_TO_OPTIONS: readonly RegExp[] = [
  /\bof (the )?(above|below)\b/u,
  /\blisted (above|below)\b/u,
  /^(all|none|both|neither|nither|nether|either|any|each) (the )?(above|below)\b/u,
  /^(all|none|both|neither|nither|nether|either|any|each) (one )?of (these|those|them)\b/u,
  /\b(all|none|both|neither|any) (of )?(the )?(options|choices|answers)\b/u,
  /^(both|neither)\.?$/u,
  /^(both|neither|either) \d+ (and|nor|or) \d+\.?$/u,
  /\bcombination of (these|those|the above)\b/u,
  new RegExp(String.raw`\b(both|neither|nither|nether|either) ${LETTER} (and|nor|or|&)\.? ${LETTER}(\s|$)`, 'u'),
  new RegExp(
    String.raw`^((options?|choices?|answers?) )?${LETTER}(,? ${LETTER})*,? (and|or|&|nor) ${LETTER}( (only|both|above|are (both )?(correct|true)|both .*))?\.?$`,
    'u',
  ),
]

export function refersToOptions(option: string): boolean {
  return normRefersToOptions(normalize(option))
}

/**
 * Something each pattern above needs (above/below, "of these/those/them", option/choice/answer,
 * both/either/nither/nether, or a leading letter label "a " "(a)" "a." "a,"): one test turns away
 * most options before the ten patterns.
 */
const MAY_REFER = /above|below|of th(?:ese|ose|em)|option|choice|answer|both|either|nither|nether|^\(?[a-f][). ,]/

function normRefersToOptions(norm: string): boolean {
  return MAY_REFER.test(norm) && REFERS_TO_OPTIONS.some((re) => re.test(norm))
}

/** A question with the keys the spec compares it by. */
export interface Candidate extends UpstreamQuestion {
  /** identity: normalised question, context and sorted normalised options */
  identity: string
  /** normalised question plus context, for text-level disjointness */
  textKey: string
  normQuestion: string
  normOptions: string[]
  /** for a source with one question per context: a hash of the normalised context */
  contextKey?: string
}

export function toCandidate(q: UpstreamQuestion): Candidate {
  let normOptions = q.options.map(normalize)
  // often nothing changes: then one array serves both
  if (normOptions.every((n, i) => n === q.options[i])) normOptions = q.options
  const nq = normalize(q.question)
  const nc = q.context === null ? null : normalize(q.context)
  // [nq, nc] as JSON, once: the identity's JSON is the same with the sorted options appended
  const text = JSON.stringify([nq, nc])
  // an explicit literal: object spread is several times slower here
  return {
    source: q.source,
    id: q.id,
    subject: q.subject,
    question: q.question,
    context: q.context,
    options: q.options,
    answer: q.answer,
    upstreamSplit: q.upstreamSplit,
    file: q.file,
    row: q.row,
    normQuestion: nq,
    normOptions,
    // only strings and null: plain JSON is already canonical
    identity: sha256Hex(`${text.slice(0, -1)},${JSON.stringify([...normOptions].sort())}]`),
    textKey: sha256Hex(text),
  }
}

/** The first eligibility rule a question fails, or null. */
export function ineligibility(c: Candidate, excludedIds: ReadonlySet<string>, excludedTexts: ReadonlySet<string>): DropReason | null {
  if (excludedIds.has(c.id) || excludedTexts.has(c.normQuestion)) return 'excluded'
  if (c.normQuestion === '' || c.normOptions.some((o) => o === '')) return 'empty_text'
  if (new Set(c.normOptions).size !== c.normOptions.length) return 'options_not_distinct'
  if (c.normOptions.some(normRefersToOptions)) return 'option_refers_to_options'
  return null
}
