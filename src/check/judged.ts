/** check-dataset's part for Amendment 1.2's judged rates: the card states them for the very build they were judged on. */
import { readFile } from 'node:fs/promises'
import { JudgedRates, judgedSection } from '../emit/judged.ts'
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
  const problems: string[] = []
  const test = raw['test.jsonl']?.toString('utf8')
  const val = raw['val.jsonl']?.toString('utf8')
  if (test !== undefined && val !== undefined) {
    const hash = datasetHash({ test: recordLines(test), val: recordLines(val) })
    if (hash !== judged.datasetHash)
      problems.push(
        `${file}: judged on dataset ${judged.datasetHash}, but these records are ${hash}: judge this build, or drop recipe.judged`,
      )
  }
  const card = raw['README.md']?.toString('utf8')
  if (card !== undefined && !card.includes(judgedSection(judged)))
    problems.push("README.md: the judged rates section is missing or differs from the recipe's judged file")
  return problems
}
