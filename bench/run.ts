import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { type Vocabulary, writeSynthetic } from './synth.ts'

/**
 * npm run bench [-- --runs N] [--mirror DIR] [--scales 1,10,100] [--vocab zipf|uniform] [--against DIR] [--check]
 * Times whole processes (wall clock, peak RSS) so start-up counts as a user feels it, in rounds (each
 * round runs every job once), since this machine's speed drifts by 10–20 % within a run.
 * The targets, ratios to a floor measured in the same run: a warm build ≤ 2.0× the decode-only floor of
 * every file it reads, an uncached build ≤ 10×, peak RSS ≤ 200 MB. The cold verify and the synthetic scales are reported, not targets.
 * --against DIR: another checkout of the builder (compiled), whose warm and uncached builds run in the
 * same rounds, side by side with this one's.
 */
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    mirror: { type: 'string', default: '../shared/hub-mirror' },
    scales: { type: 'string', default: '1,10,100' },
    // the synthetic sources' words: Zipf-like as real questions (default), or uniform, the bench's worst case before
    vocab: { type: 'string', default: 'zipf' },
    against: { type: 'string' },
    check: { type: 'boolean', default: false },
  },
})
const RUNS = Number(values.runs)
if (values.vocab !== 'zipf' && values.vocab !== 'uniform') throw new Error(`--vocab zipf or uniform, not ${values.vocab}`)
const VOCAB: Vocabulary = values.vocab
const root = resolve(import.meta.dirname, '..')
const work = mkdtempSync(join(tmpdir(), 'jev-bench-'))
const JEV = ['dist/cli/main.js']
const RUSAGE = ['--import', join(root, 'bench/rusage.mjs')]

interface Sample {
  wallMs: number
  maxRssMb: number
}
interface Stat {
  name: string
  runs: number
  medianMs: number
  minMs: number
  maxMs: number
  maxRssMb: number
  /** every run's wall time, in the order run */
  wallMs: number[]
}

function runOnce(args: string[], env: Record<string, string> = {}, cwd = root): Promise<Sample> {
  const file = join(work, `rusage-${process.hrtime.bigint()}.json`)
  return new Promise((done, fail) => {
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, [...RUSAGE, ...args], {
      cwd,
      env: { ...process.env, ...env, BENCH_RUSAGE_FILE: file },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    child.on('exit', (code) => {
      const wallMs = Number(process.hrtime.bigint() - start) / 1e6
      if (code !== 0) return fail(new Error(`${args.join(' ')} exited ${code}: ${err.slice(-2000)}`))
      done({ wallMs, maxRssMb: JSON.parse(readFileSync(file, 'utf8')).maxRssKb / 1024 })
    })
  })
}

/** One command the bench times: its arguments, and the environment and clean-up of each run. */
interface Job {
  name: string
  args: string[]
  env?: () => Record<string, string>
  after?: () => void
  /** where it runs (default this checkout) */
  cwd?: string
}

/**
 * Times jobs in rounds, each round running every job once in turn, after
 * `warmup` such rounds: a ratio of two jobs then compares runs made minutes
 * apart at most, not one job's runs before the other's, and this machine's
 * speed drifts by 10–20 % within a bench run.
 */
async function measureRounds(jobs: readonly Job[], runs = RUNS, warmup = 1): Promise<Stat[]> {
  const samples: Sample[][] = jobs.map(() => [])
  for (let round = 0; round < warmup + runs; round++) {
    for (const [j, job] of jobs.entries()) {
      const sample = await runOnce(job.args, job.env?.() ?? {}, job.cwd)
      job.after?.()
      if (round >= warmup) samples[j]!.push(sample)
    }
    const what = round < warmup ? 'warm-up round' : `round ${round - warmup + 1} of ${runs}`
    process.stderr.write(`  ${what}: ${jobs.map((job) => job.name).join(', ')}\n`)
  }
  return jobs.map((job, j) => statOf(job.name, samples[j]!))
}

function report(stat: Stat): Stat {
  process.stderr.write(`  ${stat.name}: ${stat.medianMs.toFixed(0)} ms median, ${stat.maxRssMb.toFixed(0)} MB peak\n`)
  return stat
}

function statOf(name: string, samples: readonly Sample[]): Stat {
  const ms = samples.map((s) => s.wallMs).sort((a, b) => a - b)
  const stat = {
    name,
    runs: samples.length,
    medianMs: ms[Math.floor(ms.length / 2)]!,
    minMs: ms[0]!,
    maxMs: ms.at(-1)!,
    maxRssMb: Math.max(...samples.map((s) => s.maxRssMb)),
    wallMs: samples.map((s) => s.wallMs),
  }
  return stat
}

/**
 * The spread of a ratio taken round by round (runs of the same round side by side). The targets use the
 * ratio of the medians, which need not fall inside this spread when the bottom is a sum of jobs.
 */
function roundRatios(top: Stat, ...bottom: Stat[]): string {
  const r = top.wallMs.map((t, i) => t / bottom.reduce((a, b) => a + b.wallMs[i]!, 0)).sort((a, b) => a - b)
  return `${r[0]!.toFixed(1)}–${r.at(-1)!.toFixed(1)}× by round`
}

/** A command of the CLI over one recipe, lock, mirror and output folder. */
const cliArgs = (command: string, recipe: string, lock: string, mirror: string, out: string) => [
  ...JEV,
  command,
  '--recipe',
  recipe,
  '--lock',
  lock,
  '--mirror',
  mirror,
  '--out',
  out,
]
const buildArgs = (recipe: string, lock: string, mirror: string, out: string) => cliArgs('build-dataset', recipe, lock, mirror, out)

// the CLIs run from dist/ when it is current; measure what users run
if (spawnSync('npm', ['run', '-s', 'compile'], { cwd: root, stdio: 'inherit' }).status !== 0) throw new Error('npm run compile failed')
const results: Record<string, unknown> = { node: process.version }
const rows: string[][] = []
const failures: string[] = []
/** serve-hub on a loopback port; resolves with its endpoint once it listens */
function serveHub(mirror: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...JEV, 'serve-hub', '--mirror', mirror, '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((done, fail) => {
    let out = ''
    child.stdout!.on('data', (d) => {
      out += d
      const m = /HF_ENDPOINT=(http:\/\/\S+)/.exec(out)
      if (m) done({ url: m[1]!, child })
    })
    child.on('exit', (code) => fail(new Error(`serve-hub exited ${code} before listening: ${out}`)))
  })
}

/** The other checkout's warm and uncached builds (--against), each with a prepared cache of its own. */
function againstJobs(recipe: string, lock: string, mirror: string): Job[] {
  if (!values.against) return []
  const dir = resolve(values.against)
  const jev = existsSync(join(dir, 'dist/cli/main.js')) ? ['dist/cli/main.js'] : ['bin/jev.mjs']
  const args = [...jev, 'build-dataset', '--recipe', recipe, '--lock', lock, '--mirror', mirror, '--out', join(work, 'out-against')]
  return [
    { name: `against: build-dataset (warm)`, args, cwd: dir, env: () => ({ JEV_PREPARED_CACHE: join(work, 'prepared-against') }) },
    { name: `against: build-dataset (uncached)`, args, cwd: dir, env: () => ({ JEV_PREPARED_CACHE: '0' }) },
  ]
}

const fmt = (s: Stat) => [s.name, s.medianMs.toFixed(0), `${s.minMs.toFixed(0)}–${s.maxMs.toFixed(0)}`, s.maxRssMb.toFixed(0)]

try {
  const mirror = resolve(values.mirror)
  if (existsSync(mirror)) {
    process.stderr.write(`jev-bench from ${mirror} (${RUNS} rounds after a warm-up round)\n`)
    const recipe = 'recipes/jev-bench.json'
    const lock = 'recipes/jev-bench.lock.json'
    // the builds' cache of prepared sources is the bench's own: warm runs fill it in their warm-up, cold runs start empty
    process.env.JEV_PREPARED_CACHE = join(work, 'prepared')
    // cold runs download the lock's commits from serve-hub on loopback, into an empty HF cache each
    const hub = await serveHub(mirror)
    let stats: Stat[]
    try {
      let cache = ''
      stats = await measureRounds([
        { name: 'floor: read + sha256', args: ['bench/floor.mjs', 'read', recipe, mirror] },
        { name: 'floor: Parquet decode', args: ['bench/floor.mjs', 'decode', recipe, mirror] },
        { name: 'floor: plain HTTP fetch', args: ['bench/fetch-floor.mjs', recipe, hub.url] },
        { name: 'build-dataset (warm)', args: buildArgs(recipe, lock, mirror, join(work, 'out')) },
        // what the cache of prepared sources buys: the same warm build without it
        {
          name: 'build-dataset (uncached)',
          args: buildArgs(recipe, lock, mirror, join(work, 'out')),
          env: () => ({ JEV_PREPARED_CACHE: '0' }),
        },
        // against the folder the builds above wrote, so a stale committed out/ cannot fail the bench
        { name: 'verify-dataset', args: cliArgs('verify-dataset', recipe, lock, mirror, join(work, 'out')) },
        {
          name: 'verify-dataset (cold)',
          args: [...JEV, 'verify-dataset', '--recipe', recipe, '--lock', lock, '--out', join(work, 'out'), '--quiet'],
          env: () => ({
            HF_ENDPOINT: hub.url,
            HF_HUB_CACHE: (cache = mkdtempSync(join(work, 'hf-cache-'))),
            JEV_PREPARED_CACHE: join(cache, 'prepared'),
          }),
          after: () => rmSync(cache, { recursive: true, force: true }),
        },
        ...againstJobs(recipe, lock, mirror),
      ])
    } finally {
      hub.child.kill('SIGTERM')
    }
    for (const stat of stats) report(stat)
    const [read, decode, fetchFloor, build, uncached, verify, cold, ...other] = stats as [
      Stat,
      Stat,
      Stat,
      Stat,
      Stat,
      Stat,
      Stat,
      ...Stat[],
    ]
    const coldFloor = decode.medianMs + fetchFloor.medianMs
    rows.push(fmt(read), fmt(decode), fmt(fetchFloor), fmt(build), fmt(uncached), fmt(verify), fmt(cold))
    results.real = {
      read,
      decode,
      fetch: fetchFloor,
      build,
      uncached,
      verify,
      cold,
      buildOverRead: build.medianMs / read.medianMs,
      buildOverDecode: build.medianMs / decode.medianMs,
      coldOverFloor: cold.medianMs / coldFloor,
    }
    rows.push(['build / read floor', `${(build.medianMs / read.medianMs).toFixed(1)}×`, roundRatios(build, read), ''])
    rows.push(['build / decode floor', `${(build.medianMs / decode.medianMs).toFixed(1)}×`, roundRatios(build, decode), ''])
    rows.push(['uncached build / decode floor', `${(uncached.medianMs / decode.medianMs).toFixed(1)}×`, roundRatios(uncached, decode), ''])
    rows.push([
      'cold verify / (decode + fetch floors)',
      `${(cold.medianMs / coldFloor).toFixed(1)}×`,
      roundRatios(cold, decode, fetchFloor),
      '',
    ])
    if (other.length === 2) {
      const [otherBuild, otherUncached] = other as [Stat, Stat]
      rows.push(fmt(otherBuild), fmt(otherUncached))
      rows.push(['warm build / against', `${(build.medianMs / otherBuild.medianMs).toFixed(2)}×`, roundRatios(build, otherBuild), ''])
      rows.push([
        'uncached build / against',
        `${(uncached.medianMs / otherUncached.medianMs).toFixed(2)}×`,
        roundRatios(uncached, otherUncached),
        '',
      ])
      results.against = { dir: values.against, build: otherBuild, uncached: otherUncached }
    }
    if (build.maxRssMb > 200) failures.push(`warm build peak RSS ${build.maxRssMb.toFixed(0)} MB > 200 MB`)
    if (build.medianMs > 2 * decode.medianMs)
      failures.push(`warm build ${(build.medianMs / decode.medianMs).toFixed(1)}× the decode floor > 2.0×`)
    if (uncached.medianMs > 10 * decode.medianMs)
      failures.push(`uncached build ${(uncached.medianMs / decode.medianMs).toFixed(1)}× the decode floor > 10×`)
  } else {
    process.stderr.write(`no ${mirror}: skipping the real-data part\n`)
  }

  const base = JSON.parse(readFileSync(join(root, 'recipes/jev-bench.json'), 'utf8'))
  const scales = values.scales.split(',').map(Number)
  /** Writes the scale's sources (removed again by `done`) and gives its job. */
  const synthetic = (scale: number): Job & { done: () => void } => {
    const dir = join(work, `x${scale}`)
    mkdirSync(dir, { recursive: true })
    process.stderr.write(`synthetic ×${scale} (${VOCAB} words): generating…\n`)
    const recipe = writeSynthetic(join(dir, 'hub'), scale, base, VOCAB)
    writeFileSync(join(dir, 'recipe.json'), JSON.stringify(recipe))
    // the word vectors the recipe pins, beside it as in recipes/
    const borrow = recipe.distractors?.borrow
    const vectors = borrow?.plausible.vectors?.path
    if (vectors) copyFileSync(join(root, 'recipes', vectors), join(dir, vectors))
    // every run a first build (--update-lock): ×100 gets no warm-up to write a lock, and ×10 is measured the same
    // way for the ratio to mean anything; without the cache of prepared sources: how the builder's own work grows
    return {
      name: `synthetic ×${scale}`,
      args: [...buildArgs(join(dir, 'recipe.json'), join(dir, 'recipe.lock.json'), join(dir, 'hub'), join(dir, 'out')), '--update-lock'],
      env: () => ({ JEV_PREPARED_CACHE: '0' }),
      done: () => rmSync(dir, { recursive: true, force: true }),
    }
  }
  // ×100 takes minutes and GBs: one run, no warm-up (its input is on disk, nothing else to warm), made between the
  // smaller scales' rounds (with --runs 2 or more), so that the ×10 runs it is compared with lie on both sides of it;
  // its sources are written only once the rounds before it are done, and removed before the rounds after it
  const smallScales = scales.filter((s) => s < 100)
  const bigScales = scales.filter((s) => s >= 100)
  const small = smallScales.map(synthetic)
  const smallRuns = Math.min(RUNS, 3)
  const before = small.length ? await measureRounds(small, Math.ceil(smallRuns / 2)) : []
  const bigStats: Stat[] = []
  for (const scale of bigScales) {
    const job = synthetic(scale)
    bigStats.push(...(await measureRounds([job], 1, 0)))
    job.done()
  }
  const after = small.length && smallRuns > 1 ? await measureRounds(small, Math.floor(smallRuns / 2), 0) : []
  for (const job of small) job.done()
  const scaled: Record<string, Stat> = {}
  // a scale's runs before and after ×100 as one stat (each side's peak stands for its runs')
  const samplesOf = (s: Stat | undefined): Sample[] => s?.wallMs.map((wallMs) => ({ wallMs, maxRssMb: s.maxRssMb })) ?? []
  for (const [i, job] of small.entries())
    scaled[smallScales[i]!] = report(statOf(job.name, [...samplesOf(before[i]), ...samplesOf(after[i])]))
  for (const [i, stat] of bigStats.entries()) scaled[bigScales[i]!] = report(stat)
  for (const scale of [...scales].sort((a, b) => a - b)) rows.push(fmt(scaled[scale]!))
  if (scaled[10] && scaled[100]) {
    const growth = scaled[100].medianMs / scaled[10].medianMs
    // against each ×10 run, those before it apart from those after it: how far the machine drifted meanwhile
    const k = smallScales.indexOf(10)
    const each = (runs: readonly number[] = []) => runs.map((ms) => (scaled[100]!.medianMs / ms).toFixed(1)).join(' ')
    const apart = after[k]
      ? `${each(before[k]!.wallMs)} | ${each(after[k].wallMs)}× (each ×10 run before | after)`
      : `${each(before[k]!.wallMs)}× (each ×10 run, all before it)`
    rows.push(['growth ×10 → ×100', `${growth.toFixed(1)}×`, apart, ''])
    results.growth10to100 = growth
  }
  results.synthetic = scaled
  results.vocabulary = VOCAB
} finally {
  rmSync(work, { recursive: true, force: true })
}

const head = ['what', 'median ms', 'range (ms, or ratio)', 'peak RSS MB']
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
const line = (r: string[]) => r.map((c, i) => (i ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')
console.log(`\n${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${rows.map(line).join('\n')}`)
results.failures = failures
mkdirSync(join(root, 'bench/results'), { recursive: true })
const file = join(root, 'bench/results', `bench-${process.platform}-${process.arch}-node${process.versions.node}.json`)
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`)
console.log(`\nraw figures: ${file}`)
if (failures.length) console.log(`targets missed:\n${failures.map((f) => `  - ${f}`).join('\n')}`)
else console.log('all targets met')
if (values.check && failures.length) process.exitCode = 1
