/**
 * check-dataset run while a build replaces out/ checks one build, never files of two: what it reports
 * is what it reports of the old build alone or of the new one alone. "A" is the fixture recipe's build
 * (no problems against that recipe), "B" the same build whose card states another seed, its manifest
 * matching (one problem). First a check stopped between two files while B is swapped in, then checks raced
 * against swaps back and forth.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildFromSources } from '../src/build-io.ts'
import { checkFolder } from '../src/check/check.ts'
import type { OutputContent } from '../src/emit/outputs.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import { sha256Hex } from '../src/util/hash.ts'
import { writeOutDir } from '../src/write/out-dir.ts'
import { childEnv, FIXTURE_HUB, FIXTURE_RECIPE, ownFile, ROOT, TS_LOADER } from './helpers/cli.ts'
import { depth } from './helpers/depth.ts'

const PAUSE = ownFile('test/helpers/pause-at.ts')
let tmp: string
let out: string
let filesA: Map<string, OutputContent>
let filesB: Map<string, OutputContent>
/** what check-dataset reports of each build alone */
let alone: { A: string[]; B: string[] }

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-check-swap-'))
  out = join(tmp, 'out')
  const lock = (await readLock(join(ROOT, 'test/fixtures/recipe.lock.json')))!
  const recipeA = await loadRecipe(FIXTURE_RECIPE)
  filesA = (await buildFromSources(recipeA, createMirrorFetcher(FIXTURE_HUB), { lock })).files
  // B: the same build with a card that states another seed, its manifest made to match, so that each folder is whole
  // and of the same recipe, and only B has a problem
  filesB = new Map(filesA)
  const card = String(filesA.get('README.md')).replace('seed **1234**', 'seed **4321**')
  assert.notEqual(card, String(filesA.get('README.md')))
  const manifest = JSON.parse(String(filesA.get('manifest.json'))) as { outputs: { path: string; sha256: string; bytes: number }[] }
  Object.assign(manifest.outputs.find((o) => o.path === 'README.md')!, { sha256: sha256Hex(card), bytes: Buffer.byteLength(card) })
  filesB.set('README.md', card)
  filesB.set('manifest.json', `${JSON.stringify(manifest, null, 2)}\n`)
  await writeOutDir(join(tmp, 'a'), filesA)
  await writeOutDir(join(tmp, 'b'), filesB)
  alone = { A: await checkFolder(join(tmp, 'a'), recipeA), B: await checkFolder(join(tmp, 'b'), recipeA) }
  assert.deepEqual(alone.A, [])
  assert.deepEqual(alone.B, ['README.md: does not state the seed 1234'])
})
after(() => rm(tmp, { recursive: true, force: true }))

/** `check-dataset out --json` against the fixture recipe, as users run it; with `pause`, stopped at a point (test/helpers/pause-at.ts). */
function startCheck(pause?: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      ...(pause ? [...TS_LOADER, '--import', PAUSE] : []),
      join(ROOT, 'dist/cli/main.js'),
      'check-dataset',
      out,
      '--recipe',
      FIXTURE_RECIPE,
      '--json',
    ],
    { cwd: ROOT, env: { ...childEnv(), ...(pause ? { JEV_TEST_PAUSE: pause } : {}) }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
}

/** The check's exit status and the problems it printed. */
async function result(child: ChildProcess): Promise<{ status: number | null; problems: string[] }> {
  let stdout = ''
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
  const status = await new Promise<number | null>((ok) => child.once('close', (code) => ok(code)))
  const json = JSON.parse(stdout) as { problems: { message: string }[] }
  return { status, problems: json.problems.map((p) => p.message) }
}

test('a check stopped after reading test.jsonl while B is swapped in reports exactly what B alone has', async () => {
  await writeOutDir(out, filesA)
  const go = join(tmp, 'go')
  const child = startCheck(String.raw`readFile|/out/val\.jsonl$|before|1|${go}`)
  const done = result(child)
  let err = ''
  await new Promise<void>((ok, ko) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      if (/^paused /m.test(err)) ok()
    })
    child.once('exit', () => ko(new Error(`the check ended before its pause:\n${err}`)))
  })
  // test.jsonl is A's; every other file the check reads will be B's
  await writeOutDir(out, filesB)
  await writeFile(go, '')
  const { status, problems } = await done
  assert.deepEqual(problems, alone.B, 'the problems of B alone, none of a mix of A and B')
  assert.equal(status, 8)
})

test('checks raced against builds swapping A and B back and forth report what one of them alone has', async (t) => {
  await writeOutDir(out, filesA)
  let stop = false
  let swaps = 0
  const swapping = (async () => {
    while (!stop) await writeOutDir(out, ++swaps % 2 ? filesB : filesA)
  })()
  const runs = depth(24, 8)
  const seen = { A: 0, B: 0 }
  try {
    for (let k = 0; k < runs; k++) {
      const { status, problems } = await result(startCheck())
      const which = JSON.stringify(problems) === JSON.stringify(alone.A) ? 'A' : 'B'
      assert.deepEqual(problems, alone[which], `run ${k}: the problems of one build alone`)
      assert.equal(status, which === 'A' ? 0 : 8)
      seen[which]++
    }
  } finally {
    stop = true
    await swapping
  }
  t.diagnostic(`${runs} checks during ${swaps} swaps: A read ${seen.A} times, B ${seen.B}`)
  assert.ok(swaps > runs, `out/ was swapped while the checks ran (${swaps} swaps, ${runs} checks)`)
})
