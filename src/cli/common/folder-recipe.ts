/**
 * The recipe a built folder was made from: its manifest names it by content hash, and the recipe checked against
 * must be that one. Given --recipe, it must hash so; without it, the package's recipes are searched. RECIPE naming
 * the folder's recipe when it is not at hand.
 */
import { readdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { JevError } from '../../errors.ts'
import { loadRecipe, recipeHash } from '../../recipe/load.ts'
import type { Recipe } from '../../recipe/schema.ts'
import { DEFAULT_RECIPE, PACKAGE_ROOT } from '../../version.ts'

interface Recorded {
  name: string
  version: string
  hash: string
}

/** The recipe manifest.json records, or null where the manifest cannot say (check-dataset then reports the manifest). */
function recorded(manifest: Buffer | null): Recorded | null {
  try {
    const m = JSON.parse(manifest?.toString('utf8') ?? '') as { recipe?: Partial<Recorded> }
    const r = m.recipe
    return r && typeof r.hash === 'string' && typeof r.name === 'string' && typeof r.version === 'string'
      ? { name: r.name, version: r.version, hash: r.hash }
      : null
  } catch {
    return null
  }
}

/** The package's own recipes (recipes/*.json but locks, pinned files and the schema), the default first. */
async function packageRecipes(): Promise<string[]> {
  const dir = join(PACKAGE_ROOT, 'recipes')
  const names = await readdir(dir).catch(() => [] as string[])
  const others = names
    .filter((n) => n.endsWith('.json') && !/\.(lock|judged|screened|schema)\.json$/.test(n))
    .map((n) => join(dir, n))
    .filter((p) => resolve(p) !== resolve(DEFAULT_RECIPE))
    .sort()
  return [DEFAULT_RECIPE, ...others]
}

const describe = (r: Recorded) => `${r.name} ${r.version} (hash ${r.hash.slice(0, 12)}…)`

/** The recipe to check `dir` against, and its file; `manifest`, its manifest.json as read with the files checked. */
export async function recipeOfFolder(
  dir: string,
  manifest: Buffer | null,
  named: string | undefined,
): Promise<{ recipe: Recipe; path: string }> {
  const was = recorded(manifest)
  if (named !== undefined || was === null) {
    const path = named ?? DEFAULT_RECIPE
    const recipe = await loadRecipe(path)
    const hash = recipeHash(recipe)
    if (was && hash !== was.hash)
      throw new JevError(
        'RECIPE',
        `${dir}/ was built from recipe ${describe(was)}, not from ${path}, which is ${describe({ name: recipe.name, version: recipe.version, hash })}`,
        {
          file: path,
          hint: 'check a folder against the recipe it was built from: name that one with --recipe FILE, or rebuild the folder',
        },
      )
    return { recipe, path }
  }
  for (const path of await packageRecipes()) {
    const recipe = await loadRecipe(path).catch(() => null)
    if (recipe && recipeHash(recipe) === was.hash) return { recipe, path }
  }
  throw new JevError('RECIPE', `${dir}/ was built from recipe ${describe(was)}, which is not at hand`, {
    file: join(dir, 'manifest.json'),
    hint: 'name the recipe it was built from with --recipe FILE',
  })
}
