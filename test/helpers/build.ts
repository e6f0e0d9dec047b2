/** The build's own steps over raw questions, for tests that look at the pure middle without the build's I/O. */
import type { UpstreamQuestion } from '../../src/adapt/adapter.ts'
import { type BuildOutput, type BuildResources, buildFromPrepared } from '../../src/build.ts'
import type { FileFetcher } from '../../src/fetch/types.ts'
import { type LoadedSource, loadSource } from '../../src/load-sources.ts'
import { prepareSource } from '../../src/prepare/prepare.ts'
import type { Recipe } from '../../src/recipe/schema.ts'

/** Each source's questions prepared, then the pure middle. */
export function buildRecords(
  recipe: Recipe,
  questionsBySource: ReadonlyMap<string, readonly UpstreamQuestion[]>,
  resources: BuildResources = {},
): BuildOutput {
  const prepared = recipe.sources.map((spec) => prepareSource(spec, questionsBySource.get(spec.name) ?? [], recipe))
  return buildFromPrepared(recipe, prepared, new Map(), resources)
}

/** Every file of every source fetched, decoded and adapted, in recipe order, with its questions kept. */
export async function loadSources(recipe: Recipe, fetcher: FileFetcher): Promise<LoadedSource[]> {
  const out: LoadedSource[] = []
  for (const spec of recipe.sources) out.push(await loadSource(spec, spec.revision, fetcher))
  return out
}
