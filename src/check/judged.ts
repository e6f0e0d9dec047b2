/** check-dataset's part for Amendment 1.2's judged rates: the card states them for the very build they were judged on, and only there. */
import { readFile } from 'node:fs/promises'
import { JUDGED_HEADING, JudgedRates, judgedSection } from '../emit/judged.ts'
import { datasetHash, recordLines } from '../emit/manifest.ts'
import { pinnedResource } from '../recipe/load.ts'
import type { Recipe } from '../recipe/schema.ts'
import { sha256Hex } from '../util/hash.ts'

export async function checkJudged(recipe: Recipe, raw: Readonly<Record<string, Buffer | null>>): Promise<string[]> {
  if (!recipe.judged) return []
  const file = pinnedResource(recipe, recipe.judged.path, 'judged.path')
  let judged: JudgedRates
  try {
    const bytes = await readFile(file)
    if (sha256Hex(bytes) !== recipe.judged.sha256)
      return [`${file}: sha256 is ${sha256Hex(bytes)}, the recipe pins ${recipe.judged.sha256}`]
    judged = JudgedRates.parse(JSON.parse(bytes.toString('utf8')))
  } catch (e) {
    return [`${file}: cannot read the judged rates: ${(e as Error).message}`]
  }
  const test = raw['test.jsonl']?.toString('utf8')
  const val = raw['val.jsonl']?.toString('utf8')
  const card = raw['README.md']?.toString('utf8')
  if (test === undefined || val === undefined || card === undefined) return []
  // rates judged on other records are not this build's: its card must not state them
  if (datasetHash({ test: recordLines(test), val: recordLines(val) }) !== judged.datasetHash)
    return card.includes(JUDGED_HEADING)
      ? [`README.md: states judged rates, but ${file} was judged on other records (dataset ${judged.datasetHash})`]
      : []
  return card.includes(judgedSection(judged))
    ? []
    : ["README.md: the judged rates section is missing or differs from the recipe's judged file"]
}
