import assert from 'node:assert/strict'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildFromSources, buildToDir } from '../src/build-io.ts'
import { checkFolder } from '../src/check/check.ts'
import { datasetHash, Manifest, recordLines } from '../src/emit/manifest.ts'
import { OUTPUT_FILES, outputText } from '../src/emit/outputs.ts'
import { isJevError } from '../src/errors.ts'
import { createHubFetcher } from '../src/fetch/hub.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import type { Recipe } from '../src/recipe/schema.ts'
import { rowsHash } from '../src/util/canonical.ts'
import { sha256Hex } from '../src/util/hash.ts'
import { writeOutDir } from '../src/write/out-dir.ts'
import { repairOutDir } from '../src/write/out-repair.ts'
import { ROOT } from './helpers/cli.ts'
import { startHubServer } from './helpers/hub-server.ts'
import { narrowInt64, readRows, rewriteRows } from './helpers/parquet.ts'

const FIXTURE_HUB = join(ROOT, 'test/fixtures/hub')
const RECIPE_FILE = join(ROOT, 'test/fixtures/recipe.json')
const FILES = OUTPUT_FILES

/** Rows per fixture file, as test/fixtures/hub/README.md lists them. */
const FIXTURE_ROWS: Record<string, number> = {
  'ARC-Challenge/test-00000-of-00001.parquet': 40,
  'ARC-Challenge/validation-00000-of-00001.parquet': 20,
  'ARC-Easy/test-00000-of-00001.parquet': 40,
  'ARC-Easy/validation-00000-of-00001.parquet': 20,
  'all/test-00000-of-00001.parquet': 80,
  'all/validation-00000-of-00001.parquet': 33,
  'data/validation-00000-of-00001.parquet': -1, // jcommonsenseqa 60, boolq 50: checked per repo below
}

let tmp: string
let recipe: Recipe
/** The reference build: the fixture recipe through the mirror fetcher. */
let refDir: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-pipeline-'))
  recipe = await loadRecipe(RECIPE_FILE)
  refDir = join(tmp, 'ref', 'out')
  await buildToDir(recipe, createMirrorFetcher(FIXTURE_HUB), refDir)
})

after(async () => {
  await rm(tmp, { recursive: true, force: true })
})

async function readOut(dir: string): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {}
  for (const f of FILES) out[f] = await readFile(join(dir, f))
  return out
}

async function assertSameFiles(a: string, b: string, what: string): Promise<void> {
  const [x, y] = [await readOut(a), await readOut(b)]
  for (const f of FILES) assert.ok(x[f]!.equals(y[f]!), `${what}: ${f} differs`)
  assert.deepEqual((await readdir(b)).sort(), [...FILES].sort(), `${what}: exactly the output files`)
}

async function rejectsWithCode(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isJevError(e), `expected a JevError, got ${String(e)}`)
    assert.equal(e.code, code, e.message)
    return true
  })
}

async function freshCopy(name: string): Promise<string> {
  const dir = join(tmp, name)
  await cp(refDir, dir, { recursive: true })
  return dir
}

async function* walk(dir: string): AsyncGenerator<string> {
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, d.name)
    if (d.isDirectory()) yield* walk(p)
    else yield p
  }
}

// ---------------------------------------------------------------- reproducibility

test('two mirror builds are byte-identical', async () => {
  const again = join(tmp, 'mirror2', 'out')
  await buildToDir(recipe, createMirrorFetcher(FIXTURE_HUB), again)
  await assertSameFiles(refDir, again, 'second mirror build')
})

test('the order of keys in a recipe, which its hash ignores, changes no output byte', async () => {
  const reordered = structuredClone(recipe)
  let reversed = 0
  for (const s of reordered.sources) {
    const splits = Object.keys(s.files)
    if (splits.length > 1) reversed++
    s.files = Object.fromEntries(splits.reverse().map((k) => [k, s.files[k]!]))
  }
  assert.ok(reversed > 0, 'some source reads more than one split')
  const built = await buildFromSources(reordered, createMirrorFetcher(FIXTURE_HUB))
  const ref = await readOut(refDir)
  for (const f of FILES) assert.equal(built.files.get(f), ref[f]!.toString('utf8'), `${f} differs`)
})

test('the Hub client against the loopback server builds the same bytes as the mirror; warm and offline builds make no requests', async () => {
  const server = await startHubServer({ root: FIXTURE_HUB })
  const cacheDir = join(tmp, 'hub-cache')
  try {
    const hubOut = join(tmp, 'hub1', 'out')
    const built = await buildToDir(recipe, createHubFetcher({ endpoint: server.url, cacheDir }), hubOut)
    assert.ok(server.requests.length > 0, 'the cold build talked to the server')
    assert.ok(
      server.requests.some((r) => r.url.startsWith('/cdn-lfs/')),
      'parquet files came through the LFS redirect',
    )
    await assertSameFiles(refDir, hubOut, 'Hub build vs mirror build')
    for (const s of built.sources) assert.equal(s.commit, s.spec.revision, `${s.spec.name}: a pinned revision is its own commit`)

    // warm: same cache dir, a fresh fetcher, zero requests
    server.requests.length = 0
    const warmOut = join(tmp, 'hub2', 'out')
    await buildToDir(recipe, createHubFetcher({ endpoint: server.url, cacheDir }), warmOut)
    assert.deepEqual(server.requests, [], 'a warm build makes no request')
    await assertSameFiles(refDir, warmOut, 'warm Hub build')

    // offline with the warm cache
    const offOut = join(tmp, 'hub3', 'out')
    await buildToDir(recipe, createHubFetcher({ endpoint: server.url, cacheDir, offline: true }), offOut)
    assert.deepEqual(server.requests, [], 'an offline build makes no request')
    await assertSameFiles(refDir, offOut, 'offline Hub build')

    // offline with an empty cache
    const emptyCache = join(tmp, 'hub-cache-empty')
    const failOut = join(tmp, 'hub4', 'out')
    await rejectsWithCode(
      buildToDir(recipe, createHubFetcher({ endpoint: server.url, cacheDir: emptyCache, offline: true }), failOut),
      'OFFLINE',
    )
    assert.deepEqual(server.requests, [], 'a failed offline build makes no request')
    assert.equal(
      await stat(failOut).then(
        () => true,
        () => false,
      ),
      false,
      'a failed build writes no output folder',
    )
  } finally {
    await server.close()
  }
})

test('permuted upstream rows (re-encoded Parquet) give identical output and identical rowsHash values', async () => {
  const permHub = join(tmp, 'permuted-hub')
  await cp(FIXTURE_HUB, permHub, { recursive: true })
  let rewritten = 0
  for await (const file of walk(join(permHub, 'datasets'))) {
    if (!file.endsWith('.parquet')) continue
    const original = await readFile(file)
    const rows = await readRows(file)
    assert.ok(rows.length >= 2, file)
    // a fixed permutation that moves every row: reverse, then rotate by a third
    const rev = [...rows].reverse()
    const k = Math.max(1, Math.floor(rows.length / 3))
    const permuted = [...rev.slice(k), ...rev.slice(0, k)]
    await rewriteRows(file, () => permuted)
    assert.ok(!(await readFile(file)).equals(original), `${file}: the permuted file has different bytes`)
    const back = await readRows(file)
    assert.deepEqual(back, permuted, `${file}: read back as written`)
    assert.notDeepEqual(back, rows, `${file}: row order did change`)
    rewritten++
  }
  assert.equal(rewritten, 8, 'every fixture parquet file was permuted')

  const permOut = join(tmp, 'permuted', 'out')
  // the frozen lock accepts it: its row hashes ignore order and encoding (bytes only warn)
  const lock = await readLock(join(ROOT, 'test/fixtures/recipe.lock.json'))
  const built = await buildToDir(recipe, createMirrorFetcher(permHub), permOut, { lock })
  assert.equal(built.warnings.length, 8, 'one byte-level warning per re-encoded file')
  await assertSameFiles(refDir, permOut, 'build from permuted rows')
  const ref = Manifest.parse(JSON.parse(await readFile(join(refDir, 'manifest.json'), 'utf8')))
  const refHashes = ref.sources.flatMap((s) => s.files.map((f) => `${s.name} ${f.path} ${f.rows} ${f.rowsHash}`))
  const permHashes = built.manifest.sources.flatMap((s) => s.files.map((f) => `${s.name} ${f.path} ${f.rows} ${f.rowsHash}`))
  assert.deepEqual(permHashes, refHashes)
  // while the byte-level hashes the fetcher reports do differ
  const refBuilt = await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB))
  const shas = (b: typeof built) => b.sources.flatMap((s) => s.files.map((f) => f.sha256))
  assert.ok(
    shas(built).every((h, i) => h !== shas(refBuilt)[i]),
    'source file bytes differ',
  )
})

test('int64 columns narrowed to INT32 (the same rows for the lock) give identical output', async () => {
  const hub = join(tmp, 'int32-hub')
  await cp(FIXTURE_HUB, hub, { recursive: true })
  const file = join(hub, 'datasets/sbintuitions/JCommonsenseQA/data/validation-00000-of-00001.parquet')
  assert.deepEqual(await narrowInt64(file), ['q_id', 'label'])
  assert.ok(
    (await readRows(file)).every((r) => typeof r.q_id === 'number' && typeof r.label === 'number'),
    'read back as numbers',
  )
  const lock = await readLock(join(ROOT, 'test/fixtures/recipe.lock.json'))
  const out = join(tmp, 'int32', 'out')
  const built = await buildToDir(recipe, createMirrorFetcher(hub), out, { lock })
  assert.equal(built.warnings.length, 1, 'only the byte-level warning for the re-encoded file')
  await assertSameFiles(refDir, out, 'build from INT32 columns')
})

test('a bad file in one source and a lock that does not fit the next: the first error, and no unhandled rejection', async () => {
  const hub = join(tmp, 'bad-first-hub')
  await cp(FIXTURE_HUB, hub, { recursive: true })
  await writeFile(join(hub, 'datasets/sbintuitions/JCommonsenseQA/data/validation-00000-of-00001.parquet'), 'not parquet')
  const lock = structuredClone((await readLock(join(ROOT, 'test/fixtures/recipe.lock.json')))!)
  lock.sources.find((x) => x.name === 'mmlu')!.revision = 'f'.repeat(40)
  const leaked: unknown[] = []
  const onLeak = (e: unknown) => void leaked.push(e)
  process.on('unhandledRejection', onLeak)
  try {
    await assert.rejects(
      buildFromSources(recipe, createMirrorFetcher(hub), { lock }),
      (e) => isJevError(e) && e.code === 'DATA' && e.context.source === 'jcommonsenseqa',
    )
    await new Promise((r) => setTimeout(r, 50))
  } finally {
    process.off('unhandledRejection', onLeak)
  }
  assert.deepEqual(leaked, [])
})

test('a different seed changes test.jsonl', async () => {
  const other = structuredClone(recipe)
  other.seed = recipe.seed + 1
  const built = await buildFromSources(other, createMirrorFetcher(FIXTURE_HUB))
  const refTest = await readFile(join(refDir, 'test.jsonl'), 'utf8')
  assert.notEqual(built.files.get('test.jsonl'), refTest)
  assert.equal(built.manifest.seed, recipe.seed + 1)
  // the counts still hold
  assert.equal(recordLines(outputText(built.files.get('test.jsonl')!)).length, recordLines(refTest).length)
})

// ---------------------------------------------------------------- check-dataset

test('checkFolder passes the built folder', async () => {
  assert.deepEqual(await checkFolder(refDir, recipe), [])
})

test('checkFolder: deleting a line of test.jsonl breaks counts and the manifest', async () => {
  const dir = await freshCopy('tamper-delete')
  const lines = recordLines(await readFile(join(dir, 'test.jsonl'), 'utf8'))
  const removed = JSON.parse(lines[5]!) as { source: string; n_choices: number }
  lines.splice(5, 1)
  await writeFile(join(dir, 'test.jsonl'), `${lines.join('\n')}\n`)
  const problems = await checkFolder(dir, recipe)
  const has = (re: RegExp) =>
    assert.ok(
      problems.some((p) => re.test(p)),
      `expected a problem matching ${re}:\n${problems.join('\n')}`,
    )
  has(new RegExp(`^test: ${removed.source} has \\d+ items, the recipe wants`))
  has(new RegExp(`^test: \\d+ items with ${removed.n_choices} options, the quota is`))
  has(/^test\.jsonl: does not match the manifest's sha256\/bytes/)
  has(/^test\.jsonl: row count differs from the manifest/)
})

test('checkFolder: a choice changed to duplicate another is a distinctness problem', async () => {
  const dir = await freshCopy('tamper-dup')
  const lines = recordLines(await readFile(join(dir, 'test.jsonl'), 'utf8'))
  const i = lines.findIndex((l) => (JSON.parse(l) as { n_choices: number }).n_choices >= 3)
  const r = JSON.parse(lines[i]!) as { id: string; choices: string[]; answer_idx: number }
  const wrong = r.choices.findIndex((_c, j) => j !== r.answer_idx)
  const other = r.choices.findIndex((_c, j) => j !== wrong)
  r.choices[wrong] = ` ${r.choices[other]!.toUpperCase()} ` // equal once normalised
  lines[i] = JSON.stringify(r)
  await writeFile(join(dir, 'test.jsonl'), `${lines.join('\n')}\n`)
  const problems = await checkFolder(dir, recipe)
  assert.ok(problems.includes(`test ${r.id}: options not all distinct`), problems.join('\n'))
})

test('checkFolder: a card without the chance-floor line is a card problem', async () => {
  const dir = await freshCopy('tamper-card')
  const card = await readFile(join(dir, 'README.md'), 'utf8')
  const kept = card.split('\n').filter((l) => !l.startsWith('Chance floor'))
  assert.equal(kept.length, card.split('\n').length - 1, 'the card has exactly one chance-floor line')
  await writeFile(join(dir, 'README.md'), kept.join('\n'))
  const problems = await checkFolder(dir, recipe)
  assert.ok(
    problems.some((p) => /^README\.md: does not state the test chance floor 0\.\d{3}/.test(p)),
    problems.join('\n'),
  )
  assert.ok(
    problems.some((p) => p.startsWith("README.md: does not match the manifest's sha256")),
    problems.join('\n'),
  )
})

// ---------------------------------------------------------------- manifest

test('the manifest records sources, pinned revisions, per-file rows and rowsHash, and the outputs on disk', async () => {
  const m = Manifest.parse(JSON.parse(await readFile(join(refDir, 'manifest.json'), 'utf8')))
  assert.equal(m.recipe.name, recipe.name)
  assert.equal(m.recipe.version, recipe.version)
  assert.equal(m.seed, recipe.seed)
  assert.deepEqual(
    m.sources.map((s) => s.name),
    recipe.sources.map((s) => s.name),
  )
  for (const [i, s] of m.sources.entries()) {
    const spec = recipe.sources[i]!
    assert.equal(s.repo, spec.repo)
    assert.equal(s.revision, spec.revision)
    assert.match(s.revision, /^[0-9a-f]{40}$/)
    assert.equal(s.commit, spec.revision)
    assert.equal(s.config, spec.config)
    const wanted = Object.values(spec.files).flat().sort()
    assert.deepEqual(s.files.map((f) => f.path).sort(), wanted, `${s.name}: every recipe file is listed`)
    for (const f of s.files) {
      const bytes = await readFile(join(FIXTURE_HUB, 'datasets', s.repo, f.path))
      const rows = await readRows(join(FIXTURE_HUB, 'datasets', s.repo, f.path))
      assert.equal(f.rows, rows.length, `${s.name} ${f.path} rows`)
      const expectedRows = FIXTURE_ROWS[f.path] === -1 ? (s.repo === 'google/boolq' ? 50 : 60) : FIXTURE_ROWS[f.path]
      assert.equal(f.rows, expectedRows, `${s.name} ${f.path} rows as the fixture README lists`)
      assert.equal(f.rowsHash, rowsHash(rows), `${s.name} ${f.path} rowsHash`)
      assert.notEqual(f.rowsHash, sha256Hex(bytes), 'rowsHash is not a byte hash')
    }
  }
  // the ARC-Challenge and ARC-Easy sources share a repo but not files
  const all = m.sources.flatMap((s) => s.files.map((f) => f.rowsHash))
  assert.equal(new Set(all).size, all.length, 'different files, different rowsHash')

  assert.deepEqual(
    m.outputs.map((o) => o.path),
    [
      'test.jsonl',
      'val.jsonl',
      'README.md',
      'provenance.jsonl',
      'option-counts.svg',
      'answer-positions.svg',
      'borrowed-options.svg',
      'croissant.json',
    ],
  )
  for (const o of m.outputs) {
    const buf = await readFile(join(refDir, o.path))
    assert.equal(o.sha256, sha256Hex(buf), `${o.path} sha256`)
    assert.equal(o.bytes, buf.byteLength, `${o.path} bytes`)
    if (o.path.endsWith('.jsonl')) assert.equal(o.rows, recordLines(buf.toString('utf8')).length, `${o.path} rows`)
    else assert.equal(o.rows, undefined)
  }
  const testRows = m.outputs.find((o) => o.path === 'test.jsonl')!.rows
  assert.equal(
    testRows,
    recipe.sources.reduce((a, s) => a + s.test.count, 0),
  )
  assert.deepEqual(
    Object.fromEntries(Object.entries(m.counts.bySource)),
    Object.fromEntries(recipe.sources.map((s) => [s.name, { test: s.test.count, val: s.val.count }])),
  )
  assert.deepEqual(
    Object.fromEntries(Object.entries(m.counts.byChoices.test).filter(([, n]) => n > 0)),
    Object.fromEntries(Object.entries(recipe.quotas.test).filter(([, n]) => n > 0)),
  )

  // the manifest is the pretty JSON of itself, with a final newline
  const text = await readFile(join(refDir, 'manifest.json'), 'utf8')
  assert.equal(text, `${JSON.stringify(JSON.parse(text), null, 2)}\n`)
})

test('datasetHash does not depend on line order, but does on content and split', async () => {
  const m = Manifest.parse(JSON.parse(await readFile(join(refDir, 'manifest.json'), 'utf8')))
  const test_ = recordLines(await readFile(join(refDir, 'test.jsonl'), 'utf8'))
  const val = recordLines(await readFile(join(refDir, 'val.jsonl'), 'utf8'))
  assert.equal(datasetHash({ test: test_, val }), m.datasetHash)
  const shuffled = [...test_].reverse()
  ;[shuffled[0], shuffled[7]] = [shuffled[7]!, shuffled[0]!]
  assert.notDeepEqual(shuffled, test_)
  assert.equal(datasetHash({ test: shuffled, val: [...val].reverse() }), m.datasetHash)
  assert.notEqual(datasetHash({ test: test_.slice(1), val }), m.datasetHash)
  assert.notEqual(
    datasetHash({ test: test_.slice(1), val: [...val, test_[0]!] }),
    m.datasetHash,
    'a line moved across splits changes the hash',
  )
})

// ---------------------------------------------------------------- card

test('the card has no date and its YAML front matter matches the built files', async () => {
  const card = await readFile(join(refDir, 'README.md'), 'utf8')
  assert.doesNotMatch(card, /\b\d{4}-\d{2}-\d{2}\b/, 'no ISO date')
  assert.doesNotMatch(card, /\b\d{1,2}:\d{2}(:\d{2})?\b/, 'no time of day')
  assert.doesNotMatch(card, /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2},? \d{4}\b/, 'no written-out date')
  assert.doesNotMatch(card, /\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4}\b/, 'no written-out date')

  assert.ok(card.startsWith('---\n'))
  const end = card.indexOf('\n---\n', 4)
  assert.ok(end > 0, 'front matter is closed')
  const yaml = card.slice(4, end).split('\n')
  for (const key of [
    'pretty_name',
    'license',
    'language',
    'task_categories',
    'task_ids',
    'size_categories',
    'source_datasets',
    'configs',
    'dataset_info',
  ])
    assert.ok(
      yaml.some((l) => l.startsWith(`${key}:`)),
      `front matter has ${key}`,
    )
  assert.ok(yaml.includes('license: cc-by-sa-4.0'))
  assert.ok(yaml.some((l) => l.trim() === '- multiple-choice'))
  assert.ok(yaml.some((l) => l.trim() === '- multiple-choice-qa'))
  assert.ok(!yaml.some((l) => l.includes('\t')), 'YAML has no tabs')

  // dataset_info.splits: "- name: <split>" then num_bytes and num_examples
  const at = yaml.indexOf('  splits:')
  assert.ok(at > 0 && yaml.slice(0, at).includes('dataset_info:'), 'dataset_info has splits')
  const splits: Record<string, { num_bytes?: number; num_examples?: number }> = {}
  let current: string | undefined
  for (const line of yaml.slice(at + 1)) {
    if (!line.startsWith('    ') && !line.startsWith('  - ')) break
    const name = /^ {2}- name: (\S+)$/.exec(line)
    const field = /^ {4}(num_bytes|num_examples): (\d+)$/.exec(line)
    if (name) splits[(current = name[1]!)] = {}
    else if (field && current) splits[current]![field[1] as 'num_bytes' | 'num_examples'] = Number(field[2])
  }
  assert.deepEqual(Object.keys(splits), ['test', 'val'])
  for (const split of ['test', 'val'] as const) {
    const buf = await readFile(join(refDir, `${split}.jsonl`))
    assert.equal(splits[split]!.num_examples, recordLines(buf.toString('utf8')).length, `${split} num_examples`)
    assert.equal(splits[split]!.num_bytes, buf.byteLength, `${split} num_bytes`)
  }
  // the data_files paths exist
  for (const split of ['test', 'val']) {
    const i = yaml.indexOf(`  - split: ${split}`)
    assert.ok(i > 0, `configs has a ${split} split`)
    assert.equal(yaml[i + 1], `    path: ${split}.jsonl`)
  }
})

// ---------------------------------------------------------------- atomic writes

const DEAD_PID = 2 ** 22 + 12345

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function siblingsOf(parent: string, name: string): Promise<string[]> {
  return (await readdir(parent)).filter((e) => e.startsWith(`.${name}.`)).sort()
}

test('writeOutDir swaps a complete folder in and leaves no tmp/old siblings', async () => {
  const parent = join(tmp, 'atomic')
  const out = join(parent, 'out')
  await writeOutDir(
    out,
    new Map([
      ['test.jsonl', 'one\n'],
      ['README.md', 'two\n'],
    ]),
  )
  assert.deepEqual((await readdir(out)).sort(), ['README.md', 'test.jsonl'])
  assert.deepEqual(await siblingsOf(parent, 'out'), [])
  // replacing: files of the old build do not survive
  await writeOutDir(out, new Map([['val.jsonl', 'three\n']]))
  assert.deepEqual(await readdir(out), ['val.jsonl'])
  assert.equal(await readFile(join(out, 'val.jsonl'), 'utf8'), 'three\n')
  assert.deepEqual(await readdir(parent), ['out'], 'nothing but the out folder')
  // a real build, twice into the same folder
  const built = join(parent, 'built')
  await buildToDir(recipe, createMirrorFetcher(FIXTURE_HUB), built)
  await buildToDir(recipe, createMirrorFetcher(FIXTURE_HUB), built)
  await assertSameFiles(refDir, built, 'rebuild over an existing folder')
  assert.deepEqual((await readdir(parent)).sort(), ['built', 'out'])
})

test('repairOutDir restores an out folder moved aside by a crashed build and removes stale temp folders', async () => {
  assert.equal(alive(DEAD_PID), false, `pid ${DEAD_PID} must not be running`)
  const parent = join(tmp, 'repair')
  const out = join(parent, 'out')
  await mkdir(parent, { recursive: true })
  // crash between the two renames: out moved to .out.old-*, the new tmp never renamed in
  const old = join(parent, `.out.old-${DEAD_PID}-0badc0de`)
  const staleTmp = join(parent, `.out.tmp-${DEAD_PID}-0badc0de`)
  await mkdir(old)
  await writeFile(join(old, 'test.jsonl'), 'previous build\n')
  await mkdir(staleTmp)
  await writeFile(join(staleTmp, 'test.jsonl'), 'half written')
  // a folder of a live build (this process) and an unrelated dotfile are left alone
  const liveTmp = join(parent, `.out.tmp-${process.pid}-abcdef01`)
  await mkdir(liveTmp)
  await writeFile(join(parent, '.out.keep'), 'x')

  // leftovers of a sibling output folder (another name) are that folder's to repair
  const sibling = join(parent, `.other.old-${DEAD_PID}-0badc0de`)
  await mkdir(sibling)
  await writeFile(join(sibling, 'test.jsonl'), 'the only copy of other\n')

  await repairOutDir(out)
  assert.equal(await readFile(join(out, 'test.jsonl'), 'utf8'), 'previous build\n', 'the old folder is back')
  assert.equal(await readFile(join(sibling, 'test.jsonl'), 'utf8'), 'the only copy of other\n', "a sibling's leftover is untouched")
  await rm(sibling, { recursive: true })
  assert.deepEqual(await siblingsOf(parent, 'out'), [`.out.keep`, `.out.tmp-${process.pid}-abcdef01`])
  await rm(liveTmp, { recursive: true })

  // out present: a leftover old folder of a dead build is removed, out is not touched
  const old2 = join(parent, `.out.old-${DEAD_PID}-12345678`)
  await mkdir(old2)
  await writeFile(join(old2, 'test.jsonl'), 'older build\n')
  await repairOutDir(out)
  assert.equal(await readFile(join(out, 'test.jsonl'), 'utf8'), 'previous build\n')
  assert.deepEqual(await siblingsOf(parent, 'out'), ['.out.keep'])

  // writeOutDir repairs first: a crash leftover does not survive the next build
  await rm(out, { recursive: true })
  await mkdir(old)
  await writeFile(join(old, 'test.jsonl'), 'previous build\n')
  await writeOutDir(out, new Map([['test.jsonl', 'new build\n']]))
  assert.equal(await readFile(join(out, 'test.jsonl'), 'utf8'), 'new build\n')
  assert.deepEqual(await siblingsOf(parent, 'out'), ['.out.keep'])

  // nothing to repair, missing parent: no error
  await repairOutDir(join(tmp, 'no-such-parent', 'out'))
})

// ---------------------------------------------------------------- crash repair and tampering behind the manifest

test('writeOutDir recovers when two crashed builds each left an .old folder', async () => {
  const parent = join(tmp, 'two-olds')
  await mkdir(parent, { recursive: true })
  for (const hex of ['aaaa0001', 'bbbb0002']) {
    await mkdir(join(parent, `.out.old-${DEAD_PID}-${hex}`))
    await writeFile(join(parent, `.out.old-${DEAD_PID}-${hex}`, 'test.jsonl'), `${hex}\n`)
  }
  await writeOutDir(join(parent, 'out'), new Map([['test.jsonl', 'new\n']]))
  assert.equal(await readFile(join(parent, 'out', 'test.jsonl'), 'utf8'), 'new\n')
  assert.deepEqual(await siblingsOf(parent, 'out'), [])
})

test('checkFolder notices records edited behind a manifest whose output hashes were fixed up', async () => {
  const dir = await freshCopy('tamper-behind-manifest')
  const lines = recordLines(await readFile(join(dir, 'test.jsonl'), 'utf8'))
  const r = JSON.parse(lines[0]!) as { question: string; answer_idx: number; n_choices: number }
  r.answer_idx = (r.answer_idx + 1) % r.n_choices
  lines[0] = JSON.stringify(r)
  const text = `${lines.join('\n')}\n`
  await writeFile(join(dir, 'test.jsonl'), text)
  const m = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest
  const o = m.outputs.find((x) => x.path === 'test.jsonl')!
  o.sha256 = sha256Hex(text)
  o.bytes = Buffer.byteLength(text)
  await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`)
  const problems = await checkFolder(dir, recipe)
  assert.ok(
    problems.some((p) => p.includes('datasetHash') || p.includes('dataset hash')),
    `expected a dataset hash problem, got ${JSON.stringify(problems)}`,
  )
})
