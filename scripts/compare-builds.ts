// Compares two built folders record by record and prints, per source, what the card's "Changes from" section reports.
//   npm run compare-builds -- OLD_DIR NEW_DIR [--recipe FILE] [--lock FILE] [--check | --pin]
// Sources in the recipe's order (default recipes/jev-bench.json). The figures are computed once, at release: --pin
// writes them into the recipe's lock (changesFrom), where a build reads them. With --check, exits 1 unless the
// recipe's changesFrom.bySource, or else the lock's pinned figures, say exactly that (CI runs it on fresh builds of both versions).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { compareBuildTexts } from '../src/check/compare.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { lockPathFor, readLock, writeLock } from '../src/recipe/lock.ts'
import { SPLITS, type Split } from '../src/recipe/schema.ts'

const USAGE = 'usage: npm run compare-builds -- OLD_DIR NEW_DIR [--recipe FILE] [--lock FILE] [--check | --pin]'
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    recipe: { type: 'string', default: 'recipes/jev-bench.json' },
    lock: { type: 'string' },
    check: { type: 'boolean', default: false },
    pin: { type: 'boolean', default: false },
  },
})
const fail = (line: string, status = 1): never => {
  console.error(line)
  process.exit(status)
}
if (positionals.length !== 2 || (values.check && values.pin)) fail(USAGE, 2)
const [oldDir, newDir] = positionals as [string, string]
const recipe = await loadRecipe(values.recipe)
const lockPath = values.lock ?? lockPathFor(values.recipe)
const from = recipe.changesFrom
if ((values.check || values.pin) && !from)
  fail(`${values.recipe}: no changesFrom, so there are no figures to ${values.pin ? 'pin' : 'check'}`)

// where a folder's manifest names its recipe version, it must be the one compared
for (const [dir, version] of [
  [oldDir, from?.version],
  [newDir, recipe.version],
] as const) {
  const manifest = join(dir, 'manifest.json')
  if (!version || !existsSync(manifest)) continue
  const built = JSON.parse(readFileSync(manifest, 'utf8')).recipe?.version
  if (built !== version) fail(`${dir} holds a build of ${built}, not of ${version}`)
}

const read = (dir: string) =>
  Object.fromEntries(SPLITS.map((s) => [s, readFileSync(join(dir, `${s}.jsonl`), 'utf8')])) as Record<Split, string>
const changes = compareBuildTexts(
  read(oldDir),
  read(newDir),
  recipe.sources.map((s) => s.name),
)
console.log(JSON.stringify(changes, null, 2))

if (values.pin) {
  if (from!.bySource)
    fail(`${values.recipe}: changesFrom.bySource types the figures already; the lock pins them only for a recipe that does not`)
  const lock = await readLock(lockPath)
  if (!lock) fail(`no lock at ${lockPath}: build the recipe once without changesFrom (its records do not depend on it) to write one`)
  await writeLock(lockPath, { ...lock!, changesFrom: { version: from!.version, bySource: changes } })
  console.log(`pinned the changes from ${from!.version} in ${lockPath}`)
}
if (values.check) {
  const typed = from!.bySource
  const pinned = typed ? undefined : (await readLock(lockPath))?.changesFrom
  const where = typed ? `${values.recipe}: changesFrom.bySource` : `${lockPath}: changesFrom`
  if (!typed && pinned?.version !== from!.version) fail(`${where} pins no figures for ${from!.version}; pin them with --pin`)
  const stated = typed ?? pinned!.bySource
  if (JSON.stringify(stated) !== JSON.stringify(changes)) fail(`${where} is ${JSON.stringify(stated)}, the builds give the figures above`)
  console.log(`ok: ${where} states these changes`)
}
