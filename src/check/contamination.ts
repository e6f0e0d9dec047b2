import { ContaminationSummary, flaggedCounts } from '../contam/report.ts'
import { contaminationSection } from '../emit/card/contamination.ts'
import type { ProvenanceLine } from '../emit/provenance.ts'
import type { Recipe } from '../recipe/schema.ts'

/**
 * The contamination marks, the manifest's counts and the card's section must agree with each other and the
 * recipe: every record marked when the recipe has the section, none otherwise, none flagged when it excludes them.
 */
export function checkContamination(recipe: Recipe, lines: readonly ProvenanceLine[], manifest: unknown, card: string | null): string[] {
  const marked = lines.filter((l) => l.contamination !== undefined).length
  if (!recipe.contamination)
    return marked ? [`provenance.jsonl: ${marked} lines carry a contamination mark, but the recipe has no contamination section`] : []
  const problems: string[] = []
  if (marked !== lines.length) problems.push(`provenance.jsonl: ${lines.length - marked} lines have no contamination mark`)
  const flagged = flaggedCounts(recipe, lines)
  const total = Object.values(flagged).reduce((a, f) => a + f.test + f.val, 0)
  if (recipe.contamination.exclude && total > 0)
    problems.push(`provenance.jsonl: ${total} records are flagged, but the recipe excludes flagged items`)
  const raw = typeof manifest === 'object' && manifest !== null ? (manifest as { contamination?: unknown }).contamination : undefined
  const parsed = ContaminationSummary.safeParse(raw)
  if (!parsed.success) return [...problems, 'manifest.json: no valid contamination summary']
  if (JSON.stringify(parsed.data.flagged) !== JSON.stringify(flagged))
    problems.push('manifest.json: contamination.flagged does not match provenance.jsonl')
  if (card !== null && !card.includes(contaminationSection(recipe, { ...parsed.data, flagged })))
    problems.push('README.md: the Contamination section is not what provenance.jsonl and the manifest give')
  return problems
}
