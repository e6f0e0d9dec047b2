/**
 * A build killed at any moment leaves `out/` holding a complete build — the old
 * one or the new one — and what an interrupted swap leaves behind is repaired
 * by repairOutDir, which every build runs before it swaps.
 *
 * "old" is the fixture recipe (seed 1234) built into out/; "new" is the same
 * recipe with seed 4321, built by a real subprocess (`build-dataset.ts`) that
 * is sent SIGKILL at 6 seeded delays spread over the measured length of an
 * unkilled run (one in each sixth of it), then at every step of the swap
 * itself in turn (the n-th change in out/'s parent folder, n = 1…8), which a
 * delay rarely hits. Each step is hit once rather than a random step twelve
 * times: fewer kills, and none of the swap's steps left to chance.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { watch } from 'node:fs'
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildFromSources, buildToDir } from '../src/build-io.ts'
import type { OutputContent } from '../src/emit/outputs.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import type { Recipe } from '../src/recipe/schema.ts'
import { randInt, rngFor } from '../src/shape/rng.ts'
import { repairOutDir } from '../src/write/out-repair.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, ROOT } from './helpers/cli.ts'
import { depth, depthNote, FULL } from './helpers/depth.ts'

const SEED = 77
/** most delays land before the swap and prove the same thing; the swap's own steps are each hit below */
const KILLS = depth(6, 2)
/** the swap makes up to 8 changes in out/'s parent: tmp folder made, lock taken, out moved aside, tmp renamed in, old removed, … */
const SWAP_STEPS = 8
/** the changes killed at: every one under JEV_TEST_FULL=1, else three spread over the swap */
const SWAP_KILLS = FULL ? Array.from({ length: SWAP_STEPS }, (_, k) => k + 1) : [2, 5, 7]
const FIXTURE_LOCK = join(ROOT, 'test/fixtures/recipe.lock.json')

let tmp: string
let parent: string
let out: string
let recipeB: string
let lockB: string
let lockText: string
let oldFiles: Map<string, OutputContent>
let newFiles: Map<string, OutputContent>
let recipeBParsed: Recipe

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-kill-'))
  parent = join(tmp, 'parent')
  out = join(parent, 'out')
  const recipeA = await loadRecipe(FIXTURE_RECIPE)
  const lock = (await readLock(FIXTURE_LOCK))!
  // the new build: another seed, the same sources, a lock of its own (copied from the fixture's)
  const json = JSON.parse(await readFile(FIXTURE_RECIPE, 'utf8')) as { seed: number }
  json.seed = 4321
  recipeB = join(tmp, 'recipe-b.json')
  await writeFile(recipeB, JSON.stringify(json, null, 2))
  lockB = join(tmp, 'recipe-b.lock.json')
  await copyFile(FIXTURE_LOCK, lockB)
  lockText = await readFile(lockB, 'utf8')
  recipeBParsed = await loadRecipe(recipeB)
  oldFiles = (await buildToDir(recipeA, createMirrorFetcher(FIXTURE_HUB), out, { lock })).files
  newFiles = (await buildFromSources(recipeBParsed, createMirrorFetcher(FIXTURE_HUB), { lock })).files
  assert.notEqual(oldFiles.get('test.jsonl'), newFiles.get('test.jsonl'), 'old and new differ')
})
after(() => rm(tmp, { recursive: true, force: true }))

/** The child's environment: nothing pointing at a real Hub, nothing of the test runner's. */
function childEnv(preparedCache: string): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const k of Object.keys(env)) if (k.startsWith('HF_') || k.startsWith('NODE_TEST')) delete env[k]
  env.JEV_PREPARED_CACHE = preparedCache
  return env
}

/**
 * A build of the new recipe into out/. Timed kills need every run to decode, as the measured one did (a warm cache
 * of prepared sources would finish before most kill points); kills at a step of the swap may use one, outside out/'s parent.
 */
function startBuild(preparedCache = '0'): ChildProcess {
  // through dist/cli/main.js, as users run it (dist/ when current: `npm test` compiles first)
  return spawn(
    process.execPath,
    [join(ROOT, 'dist/cli/main.js'), 'build-dataset', '--recipe', recipeB, '--lock', lockB, '--mirror', FIXTURE_HUB, '--out', out],
    {
      cwd: ROOT,
      env: childEnv(preparedCache),
      stdio: 'ignore',
    },
  )
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
}

/** 'old', 'new', or 'missing'; anything else fails. */
async function outState(what: string): Promise<'old' | 'new' | 'missing'> {
  if (
    !(await stat(out).then(
      () => true,
      () => false,
    ))
  )
    return 'missing'
  const names = (await readdir(out)).sort()
  assert.deepEqual(names, [...oldFiles.keys()].sort(), `${what}: out/ holds exactly the output files`)
  const files = new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(out, n), 'utf8')] as const)))
  const same = (m: Map<string, OutputContent>) => names.every((n) => files.get(n) === m.get(n))
  if (same(oldFiles)) return 'old'
  if (same(newFiles)) return 'new'
  return assert.fail(`${what}: out/ is neither the old build nor the new one`)
}

const siblings = async () => (await readdir(parent)).filter((e) => e !== 'out').sort()

/** Puts the old build back, as the start of the next round. */
async function resetToOld(): Promise<void> {
  await rm(out, { recursive: true, force: true })
  await mkdir(out, { recursive: true })
  for (const [name, content] of oldFiles) await writeFile(join(out, name), content)
  assert.deepEqual(await siblings(), [])
}

interface Round {
  state: string
  killed: boolean
}

/**
 * After a kill: out/ is old or new, or moved aside by a swap that died between
 * its renames; then repair (repairOutDir, or the next build's own start) leaves
 * old or new and nothing else next to it.
 */
async function checkAfterKill(what: string, child: ChildProcess, repairByNextBuild: boolean): Promise<Round> {
  const { code, signal } = await exited(child)
  const killed = signal === 'SIGKILL'
  assert.ok(killed || code === 0, `${what}: killed, or finished cleanly (exit ${code}, signal ${signal})`)
  const before = await outState(what)
  const left = await siblings()
  if (before === 'missing')
    assert.ok(
      left.some((e) => e.startsWith(`.out.old-${child.pid}-`)),
      `${what}: out/ is missing only because the swap moved it aside: ${left.join(', ')}`,
    )
  if (!killed) assert.deepEqual([before, left], ['new', []], `${what}: an unkilled build leaves the new build and nothing else`)
  let after: string
  if (repairByNextBuild) {
    // the next build repairs before it swaps, and then swaps in its own
    await buildToDir(recipeBParsed, createMirrorFetcher(FIXTURE_HUB), out, { lock: (await readLock(lockB))! })
    after = await outState(`${what}, after the next build`)
    assert.equal(after, 'new')
  } else {
    await repairOutDir(out)
    after = await outState(`${what}, after repair`)
    assert.notEqual(after, 'missing', `${what}: repair brings out/ back`)
    if (before !== 'missing') assert.equal(after, before, `${what}: repair does not touch a complete out/`)
  }
  assert.deepEqual(await siblings(), [], `${what}: no temp, old or lock siblings left (there were: ${left.join(', ') || 'none'})`)
  const state = `${before}${
    left.length
      ? ` + ${left
          .map((e) => e.replace(/\.out\.(\w+).*/, '$1'))
          .sort()
          .join('+')}`
      : ''
  }`
  return { state: killed ? state : 'finished', killed }
}

let measuredMs = 0

test('an unkilled run of the new build: exit 0, the new build in out/, and the frozen lock accepts the seed change untouched', async () => {
  const t0 = performance.now()
  const child = startBuild()
  const { code } = await exited(child)
  measuredMs = performance.now() - t0
  assert.equal(code, 0)
  assert.equal(await outState('unkilled'), 'new')
  assert.deepEqual(await siblings(), [])
  assert.equal(await readFile(lockB, 'utf8'), lockText, 'a frozen build does not rewrite its lock')
  await resetToOld()
})

test(`SIGKILL at ${KILLS} seeded points spread over a build: out/ is always the old or the new build, and repair leaves nothing else`, async (t) => {
  assert.ok(measuredMs > 0, 'the unkilled run was measured')
  const tally = new Map<string, number>()
  const slice = measuredMs / KILLS
  const started = performance.now()
  for (let k = 0; k < KILLS; k++) {
    // one point in each of KILLS equal slices of the measured run, at a seeded place within it
    const delay = Math.floor(k * slice + randInt(rngFor(SEED, 'kill', String(k)), Math.max(1, Math.floor(slice))))
    const child = startBuild()
    const timer = setTimeout(() => child.kill('SIGKILL'), delay)
    // every fifth, and the last, is repaired by the next build rather than by repairOutDir
    const r = await checkAfterKill(`kill ${k} at ${delay} ms`, child, k % 5 === 4 || k === KILLS - 1)
    clearTimeout(timer)
    tally.set(r.state, (tally.get(r.state) ?? 0) + 1)
    await resetToOld()
  }
  t.diagnostic(
    `unkilled run ${Math.round(measuredMs)} ms; ${depthNote(KILLS, 6)} kills in ${((performance.now() - started) / 1000).toFixed(1)} s: ${[...tally].map(([s, n]) => `${s} ${n}`).join(', ')}`,
  )
  assert.ok((tally.get('old') ?? 0) > 0, 'some kills came before the swap')
})

test(`SIGKILL at ${SWAP_KILLS.length === SWAP_STEPS ? 'each' : `${SWAP_KILLS.length}`} of the ${SWAP_STEPS} steps of the swap itself: the same guarantees`, async (t) => {
  const tally = new Map<string, number>()
  for (const [k, nth] of SWAP_KILLS.entries()) {
    let seen = 0
    // the watcher counts changes in out/'s parent only, so the cache's own writes do not move the kill
    const child = startBuild(join(tmp, 'prepared'))
    const watcher = watch(parent, () => {
      if (++seen === nth) child.kill('SIGKILL')
    })
    try {
      const r = await checkAfterKill(`swap kill at change ${nth}`, child, k % 4 === 3 || k === SWAP_KILLS.length - 1)
      tally.set(r.state, (tally.get(r.state) ?? 0) + 1)
    } finally {
      watcher.close()
    }
    await resetToOld()
  }
  t.diagnostic(
    `kills at ${depthNote(SWAP_KILLS.length, SWAP_STEPS)} changes of the swap: ${[...tally].map(([s, n]) => `${s} ${n}`).join(', ')}`,
  )
  // the swap was really interrupted: something had to be repaired at least once
  assert.ok(
    [...tally.keys()].some((s) => s.includes('+') || s === 'missing'),
    `a kill left something to repair: ${[...tally.keys()].join(', ')}`,
  )
})
