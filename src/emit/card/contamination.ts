import type { ContaminationSummary } from '../../contam/report.ts'
import { DEFAULT_NGRAM, type Recipe } from '../../recipe/schema.ts'
import { table } from './table.ts'

/** Why Japanese is cut into character 15-grams; measured on JCommonsenseQA validation against its train split. */
const JA_LENGTH_NOTE =
  'JCommonsenseQA questions are short (a median of 13 characters, 7 to 24 from the 10th to the 90th percentile); ' +
  'checking its validation split against its train split, character 6-grams flag 659 of 1,119 questions, 8-grams 289, 10-grams 90 and 12-grams 25, ' +
  'most on shared phrasings such as のことを英語でなんと言う; 13- and 14-grams (19 and 15) still flag the template している人のことをなんと呼ぶ; ' +
  '15-grams flag 14 (8 of them by question and answer) and every one is a copied or paraphrased definition, so 15 is the shortest length that flags no mere template. ' +
  'A question shorter than 15 characters is compared by question and answer only.'

/** The flagged-records table; check-dataset recomputes it from provenance.jsonl. */
export function flaggedTable(s: ContaminationSummary): string {
  const rows = Object.entries(s.flagged).map(([source, f]) => [source, f.test, f.testByQuestionAnswer, f.val, f.valByQuestionAnswer])
  const sum = (k: keyof ContaminationSummary['flagged'][string]) => Object.values(s.flagged).reduce((a, f) => a + f[k], 0)
  return table(
    ['source', 'test flagged', 'of them by question and answer', 'val flagged', 'of them by question and answer'],
    [...rows, ['total', sum('test'), sum('testByQuestionAnswer'), sum('val'), sum('valByQuestionAnswer')]],
  )
}

export function contaminationSection(recipe: Recipe, s: ContaminationSummary): string {
  const files = table(
    ['source', 'training split', 'file', 'rows', 'checked'],
    s.files.map((f) => [
      f.source,
      f.split,
      `\`${f.repo}/${f.path}\` at \`${f.revision}\``,
      f.rows ?? '–',
      f.checked ? 'yes' : `not checked: ${f.reason}`,
    ]),
  )
  const missing = s.files.filter((f) => !f.checked)
  const en = s.ngram.en ?? DEFAULT_NGRAM.en
  const ja = s.ngram.ja ?? DEFAULT_NGRAM.ja
  const flagged = Object.values(s.flagged).reduce((a, f) => a + f.test + f.val, 0)
  const decision = `${
    s.exclude
      ? 'Flagged candidates were dropped before selection (`contaminated` in the table of drops) and the quotas were filled from the rest, so no record here is flagged against the files checked.'
      : 'Flagged records are kept and marked.'
  }${recipe.contamination?.decision ? ` ${recipe.contamination.decision}` : ''}`
  return `## Contamination

Every candidate question was checked against the upstream training splits a model is commonly tuned on, or shown as few-shot examples:

${files}
${
  missing.length
    ? `
Not checked: ${missing.map((f) => `${f.source} ${f.split} (${f.reason})`).join('; ')}. An overlap with ${missing.length === 1 ? 'that split' : 'those splits'} is not ruled out.
`
    : ''
}
Method: texts are normalised as the builder compares them (NFKC, white space collapsed, trimmed, lower-cased). English is then cut as lm-evaluation-harness's decontamination cuts it (ASCII punctuation stripped, split on white space) into word ${en}-grams; Japanese, with white space, punctuation and symbols removed, into character ${ja}-grams.${ja === DEFAULT_NGRAM.ja ? ` ${JA_LENGTH_NOTE}` : ''} An item is flagged when an n-gram of its question occurs in a training question of its source, or when its question and right answer together equal a training row's. Where a source has a context, the n-grams are those of the question followed by its context that hold at least one word of the question, on both sides: a shared passage alone (BoolQ's passages are public web text) is not a flag. Each flagged record's line in \`provenance.jsonl\` names the training row it matches (repo, commit, split, file and upstream id or content hash, never a row position) and the shared n-gram.

Flagged records, ${flagged} in all:

${flaggedTable(s)}

${decision}

To report on the clean subset, keep the records whose \`provenance.jsonl\` line has \`"contamination": {"flagged": false}\`, and give its size next to the full-set figures:

\`\`\`python
import json
clean = {(p["split"], p["id"]) for p in map(json.loads, open("provenance.jsonl")) if not p["contamination"]["flagged"]}
test = [r for r in map(json.loads, open("test.jsonl")) if ("test", r["id"]) in clean]
\`\`\``
}
