import { DEFAULT_NEGATION_PATTERNS, type Language, type Recipe, type SourceSpec } from '../recipe/schema.ts'

/**
 * Whether a question is phrased as a negative ("Which is NOT …", "all EXCEPT",
 * "least likely"): there a borrowed, off-topic option would be a right answer,
 * so such an item is never grown. The patterns are the recipe's, per language;
 * a source that names its language gets only that language's.
 */
export function negationTest(recipe: Recipe): (spec: SourceSpec, normQuestion: string) => boolean {
  const patterns = recipe.distractors?.negatives.patterns ?? DEFAULT_NEGATION_PATTERNS
  const compiled = new Map<Language, RegExp[]>()
  for (const [lang, list] of Object.entries(patterns) as [Language, string[]][])
    compiled.set(
      lang,
      list.map((p) => new RegExp(p, 'u')),
    )
  const all = [...compiled.values()].flat()
  return (spec, normQuestion) => {
    const res = spec.language === undefined ? all : (compiled.get(spec.language) ?? [])
    return res.some((re) => re.test(normQuestion))
  }
}
