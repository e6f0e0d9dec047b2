/**
 * The golden hashes: sha256 of every output file of the fixture build (test/fixtures/recipe.json
 * from test/fixtures/hub, with the committed lock), pinned in test/fixtures/golden.json so that a
 * change to any byte of the output, selection order included, fails `npm test`.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildFromSources } from '../../src/build-io.ts'
import { OUTPUT_FILES } from '../../src/emit/outputs.ts'
import { createMirrorFetcher } from '../../src/fetch/mirror.ts'
import { loadRecipe } from '../../src/recipe/load.ts'
import { readLock } from '../../src/recipe/lock.ts'
import { sha256Hex } from '../../src/util/hash.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, ROOT } from './cli.ts'

export const GOLDEN = join(ROOT, 'test/fixtures/golden.json')
export const PIN_COMMAND = 'npm run pin-golden'

/** file name → sha256, in OUTPUT_FILES order, of one in-process fixture build. */
export async function fixtureHashes(): Promise<Record<string, string>> {
  const lock = (await readLock(join(ROOT, 'test/fixtures/recipe.lock.json')))!
  const built = await buildFromSources(await loadRecipe(FIXTURE_RECIPE), createMirrorFetcher(FIXTURE_HUB), { lock })
  return Object.fromEntries(OUTPUT_FILES.map((f) => [f, sha256Hex(built.files.get(f)!)]))
}

export const readGolden = async () => JSON.parse(await readFile(GOLDEN, 'utf8')) as Record<string, string>

export const writeGolden = (hashes: Record<string, string>) => writeFile(GOLDEN, `${JSON.stringify(hashes, null, 2)}\n`)
