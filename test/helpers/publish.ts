/** Builds small output folders from the fixtures for the publish tests, and reads repos back through the client. */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { downloadFile, listCommits, listFiles } from '@huggingface/hub'
import { type BuiltDataset, buildToDir } from '../../src/build-io.ts'
import { createMirrorFetcher } from '../../src/fetch/mirror.ts'
import { loadRecipe } from '../../src/recipe/load.ts'
import { readLock, writeLock } from '../../src/recipe/lock.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, ROOT } from './cli.ts'

export const FIXTURE_LOCK = join(ROOT, 'test/fixtures/recipe.lock.json')
export const TOKEN = 'hf_publishTestSecret0123456789abcdef'

/** The fixture recipe's output, built and written to `outDir`. */
export async function buildFixtureOut(outDir: string): Promise<BuiltDataset> {
  return buildToDir(await loadRecipe(FIXTURE_RECIPE), createMirrorFetcher(FIXTURE_HUB), outDir, { lock: await readLock(FIXTURE_LOCK) })
}

/** The fixture recipe with another seed (so other files), plus its own lock, in `dir`; returns the recipe path. */
export async function writeReseededRecipe(dir: string, seed: number): Promise<string> {
  const recipe = JSON.parse(await readFile(FIXTURE_RECIPE, 'utf8')) as { seed: number }
  recipe.seed = seed
  const path = join(dir, `recipe-${seed}.json`)
  await writeFile(path, `${JSON.stringify(recipe, null, 2)}\n`)
  const built = await buildToDir(await loadRecipe(path), createMirrorFetcher(FIXTURE_HUB), join(dir, `out-${seed}`))
  await writeLock(join(dir, `recipe-${seed}.lock.json`), built.lock)
  return path
}

const repoOf = (name: string) => ({ type: 'dataset' as const, name })

/** Every file of the repo at a revision, downloaded back through @huggingface/hub. */
export async function downloadAll(hubUrl: string, repo: string, revision = 'main', accessToken = TOKEN): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>()
  for await (const f of listFiles({ hubUrl, accessToken, repo: repoOf(repo), revision, recursive: true })) {
    if (f.type !== 'file') continue
    const blob = await downloadFile({ hubUrl, accessToken, repo: repoOf(repo), revision, path: f.path, xet: false })
    out.set(f.path, Buffer.from(await blob!.arrayBuffer()))
  }
  return out
}

export async function commitIds(hubUrl: string, repo: string, revision = 'main', accessToken = TOKEN): Promise<string[]> {
  const ids: string[] = []
  for await (const c of listCommits({ hubUrl, accessToken, repo: repoOf(repo), revision })) ids.push(c.oid)
  return ids
}
