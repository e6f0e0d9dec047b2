/**
 * A build killed at any moment leaves `out/` there, holding the old build, the new one, or — only
 * while the swap that moves the new files in (src/write/out-swap.ts) is cut short — whole files of
 * both beside the swap folder that lists them; repairOutDir, which every build runs before it swaps,
 * finishes that swap and removes what else an interrupted build left.
 *
 * "old" is the fixture recipe (seed 1234) built into out/; "new" is the same recipe with seed 4321,
 * built by a real subprocess (`build-dataset.ts`) that is sent SIGKILL at 6 seeded delays spread over
 * the measured length of an unkilled run (one in each sixth of it), then at changes of the swap itself
 * (the n-th change in out/ and its parent folder), which a delay rarely hits, and at last stopped
 * after each rename of the swap in turn, where out/ is looked at before and after the kill.
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
import { FIXTURE_HUB, FIXTURE_RECIPE, ownFile, ROOT, TS_LOADER } from './helpers/cli.ts'
import { depth, depthNote, FULL } from './helpers/depth.ts'

const SEED = 77
/** most delays land before the swap and prove the same thing; the swap's own steps are each hit below */
const KILLS = depth(6, 2)
/** the swap makes about 20 changes in out/ and its parent: tmp folder made, lock taken, tmp renamed to a swap folder, each file moved in, … */
const SWAP_STEPS = 20
/** the changes killed at: every one under JEV_TEST_FULL=1, else four spread over the swap */
const SWAP_KILLS = FULL ? Array.from({ length: SWAP_STEPS }, (_, k) => k + 1) : [3, 8, 12, 16]
const PAUSE = ownFile('test/helpers/pause-at.ts')
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
function startBuild(preparedCache = '0', pause?: string): ChildProcess {
  // through dist/cli/main.js, as users run it (dist/ when current: `npm test` compiles first); with `pause`, stopped at a point (test/helpers/pause-at.ts)
  return spawn(
    process.execPath,
    [
      ...(pause ? [...TS_LOADER, '--import', PAUSE] : []),
      join(ROOT, 'dist/cli/main.js'),
      'build-dataset',
      '--recipe',
      recipeB,
      '--lock',
      lockB,
      '--mirror',
      FIXTURE_HUB,
      '--out',
      out,
    ],
    {
      cwd: ROOT,
      env: { ...childEnv(preparedCache), ...(pause ? { JEV_TEST_PAUSE: pause } : {}) },
      stdio: ['ignore', 'ignore', pause ? 'pipe' : 'ignore'],
    },
  )
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
}

/** 'old', 'new', 'mixed' (each file whole, of one build or the other), or 'missing'; anything else fails. */
async function outState(what: string): Promise<'old' | 'new' | 'mixed' | 'missing'> {
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
  if (names.every((n) => files.get(n) === oldFiles.get(n) || files.get(n) === newFiles.get(n))) return 'mixed'
  return assert.fail(`${what}: out/ holds a file of neither the old build nor the new one`)
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

/** out/ as a stopped or killed build left it: there, and a mix of the two builds only beside the swap folder that finishes it. */
async function assertPresent(what: string, pid: number | undefined): Promise<'old' | 'new' | 'mixed'> {
  const state = await outState(what)
  assert.notEqual(state, 'missing', `${what}: out/ is there at every instant`)
  if (state === 'mixed')
    assert.ok(
      (await siblings()).some((e) => e.startsWith(`.out.swap-${pid}-`)),
      `${what}: out/ holds files of both builds only while the swap folder that finishes it is there: ${(await siblings()).join(', ')}`,
    )
  return state as 'old' | 'new' | 'mixed'
}

/**
 * After a kill: out/ is old or new, or a mix beside the swap folder the kill cut short; then repair
 * (repairOutDir, or the next build's own start) leaves old or new and nothing else next to it.
 */
async function checkAfterKill(what: string, child: ChildProcess, repairByNextBuild: boolean): Promise<Round> {
  const { code, signal } = await exited(child)
  const killed = signal === 'SIGKILL'
  assert.ok(killed || code === 0, `${what}: killed, or finished cleanly (exit ${code}, signal ${signal})`)
  const before = await assertPresent(what, child.pid)
  const left = await siblings()
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
    // a swap cut short is finished; a complete out/ is not otherwise touched
    const cutShort = left.some((e) => e.startsWith(`.out.swap-${child.pid}-`))
    assert.equal(after, cutShort ? 'new' : before, `${what}: after repair`)
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

test(`SIGKILL at ${KILLS} seeded points spread over a build: out/ is always there, the old or the new build or a swap repair finishes, and repair leaves nothing else`, async (t) => {
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
    const count = () => {
      if (++seen === nth) child.kill('SIGKILL')
    }
    const watchers = [watch(parent, count), watch(out, count)]
    try {
      const r = await checkAfterKill(`swap kill at change ${nth}`, child, k % 4 === 3 || k === SWAP_KILLS.length - 1)
      tally.set(r.state, (tally.get(r.state) ?? 0) + 1)
    } finally {
      for (const w of watchers) w.close()
    }
    await resetToOld()
  }
  t.diagnostic(
    `kills at ${depthNote(SWAP_KILLS.length, SWAP_STEPS)} changes of the swap: ${[...tally].map(([s, n]) => `${s} ${n}`).join(', ')}`,
  )
  // the swap was really interrupted: something had to be repaired at least once
  assert.ok(
    [...tally.keys()].some((s) => s.includes('+')),
    `a kill left something to repair: ${[...tally.keys()].join(', ')}`,
  )
})

/** Starts the new build stopped at `pause`: the path it stopped at, or null when it finished without reaching it. */
async function stoppedAt(pause: string): Promise<{ child: ChildProcess; path: string | null }> {
  const child = startBuild(join(tmp, 'prepared'), pause)
  let err = ''
  const path = await new Promise<string | null>((ok) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /^paused (.+)$/m.exec(err)
      if (m) ok(m[1]!)
    })
    child.once('exit', () => ok(null))
  })
  return { child, path }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

test('stopped after renames of the swap, then SIGKILLed: out/ is there throughout, and repair finishes the swap', async (t) => {
  // the swap folder renamed in beside out/, then each file moved into out/, the manifest last
  const renames = 1 + newFiles.size
  const stops = FULL ? Array.from({ length: renames + 1 }, (_, k) => k + 1) : [1, 2, Math.ceil(renames / 2), renames]
  const tally = new Map<string, number>()
  for (const n of stops) {
    const { child, path } = await stoppedAt(`rename|^${escapeRe(parent)}/|after|${n}`)
    if (path === null) {
      assert.equal(n, renames + 1, `the build stopped after every rename of its swap but the ${n}-th`)
      assert.deepEqual([(await exited(child)).code, await outState('unstopped')], [0, 'new'])
      break
    }
    let during: string
    try {
      // the instant between two steps of the swap, held open: what a reader sees then
      during = await assertPresent(`stopped after rename ${n} (${path})`, child.pid)
      assert.equal(during, n === 1 ? 'old' : n === renames ? 'new' : 'mixed', `stopped after rename ${n} (${path})`)
    } finally {
      child.kill('SIGKILL')
    }
    const r = await checkAfterKill(`killed after rename ${n}`, child, n % 2 === 0)
    assert.equal(r.state.split(' ')[0], during, 'the kill changed nothing the stop had not')
    tally.set(r.state, (tally.get(r.state) ?? 0) + 1)
    await resetToOld()
  }
  t.diagnostic(
    `stopped and killed after ${depthNote(Math.min(stops.length, renames), renames)} of the swap's renames: ${[...tally].map(([s, c]) => `${s} ${c}`).join(', ')}`,
  )
})
