/**
 * Your own variant, end to end on the fixtures: a recipe with another seed, screened by a stand-in model reviewer
 * on loopback (and rechecked by a second one), built, checked, judged by the stand-in, built again and checked;
 * its card states the stand-in's judged rates and nothing of the published version's.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { JudgedRates, judgedSection } from '../src/emit/judged.ts'
import { buildDataset, judgeDataset, screenRecipe } from '../src/index.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, ROOT, runInProcess } from './helpers/cli.ts'
import { type ReviewerServer, standInMarks, startReviewerServer } from './helpers/reviewer-server.ts'

const KEY = 'sk-test-SECRET-review-key'
let tmp: string
let server: ReviewerServer
let recipePath: string

/** The fixture recipe as a variant: its own name, version and seed, the plausible rule, and a marks file still to make. */
async function writeVariant(dir: string, seed: number): Promise<string> {
  const json = JSON.parse(await readFile(FIXTURE_RECIPE, 'utf8'))
  json.$schema = undefined
  json.name = 'my-bench'
  json.version = '0.1.0'
  json.seed = seed
  json.variantOf = { name: 'jev-bench-fixture', version: '1.1.0' }
  json.distractors = {
    borrow: { plausible: { lenders: 200, maxWords: 50, screened: { path: 'my-bench.screened.json', sha256: '0'.repeat(64) } } },
  }
  // tables the fixture's few questions can meet under the plausible rule (as in fallback.unit.ts)
  json.quotas = {
    test: { '2': 16, '3': 10, '4': 22, '5': 20, '6': 4, '7': 1, '8': 1 },
    val: { '2': 9, '3': 4, '4': 12, '5': 5, '6': 1, '7': 1, '8': 0 },
  }
  const path = join(dir, 'my-bench.json')
  await writeFile(path, `${JSON.stringify(json, null, 2)}\n`)
  return path
}

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-variant-'))
  server = await startReviewerServer({ apiKey: KEY })
  recipePath = await writeVariant(tmp, 42)
})

after(async () => {
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

const out = () => join(tmp, 'out')

test('screen → build → check → judge → build → check: the card states the stand-in judge’s rates, nothing of 1.3.0’s', async () => {
  const env = { JEV_REVIEW_API_KEY: KEY }
  const mirror = ['--mirror', FIXTURE_HUB]
  // a build before screening stops and names the cause: no reviewer's mark covers the items
  const early = await runInProcess('build-dataset', ['--recipe', recipePath, ...mirror, '--out', out()])
  assert.equal(early.status, 7, early.stderr) // no marks file yet
  const screened = await runInProcess(
    'screen',
    ['--recipe', recipePath, ...mirror, '--url', server.url, '--model', 'stand-in', '--recheck-model', 'stand-in-2', '--pin', '--json'],
    env,
  )
  assert.equal(screened.status, 0, screened.stderr)
  const s = JSON.parse(screened.stdout)
  assert.equal(s.status, 'written')
  assert.ok(s.shown.items > 20 && s.covered === s.selected, screened.stdout)
  assert.ok(server.requests.some((r) => r.task === 'recheck'))
  for (const text of [screened.stdout, screened.stderr, await readFile(join(tmp, 'my-bench.screened.json'), 'utf8')])
    assert.ok(!text.includes(KEY), 'the key is never printed or written')
  const marks = JSON.parse(await readFile(join(tmp, 'my-bench.screened.json'), 'utf8'))
  assert.deepEqual(Object.keys(marks.reviewers).sort(), ['stand-in', 'stand-in-2'])
  assert.equal((await readFile(recipePath, 'utf8')).includes(s.sha256), true, 'the recipe pins the marks file')

  const built = await runInProcess('build-dataset', ['--recipe', recipePath, ...mirror, '--out', out(), '--json'])
  assert.equal(built.status, 0, built.stderr)
  const checked = await runInProcess('check-dataset', [out(), '--recipe', recipePath])
  assert.equal(checked.status, 0, checked.stderr)

  const judged = await runInProcess(
    'judge',
    [
      out(),
      '--recipe',
      recipePath,
      '--url',
      server.url,
      '--model',
      'stand-in-judge',
      '--seed',
      '77',
      '--test',
      '10',
      '--val',
      '2',
      '--out',
      join(tmp, 'my-bench.judged.json'),
      '--pin',
    ],
    env,
  )
  assert.equal(judged.status, 0, judged.stderr)
  const rates = JudgedRates.parse(JSON.parse(await readFile(join(tmp, 'my-bench.judged.json'), 'utf8')))
  assert.equal(rates.reviewer?.kind, 'model')
  assert.ok(rates.all.borrowed > 0 && rates.all.foreign > 0, JSON.stringify(rates.all))

  const rebuilt = await runInProcess('build-dataset', ['--recipe', recipePath, ...mirror, '--out', out(), '--json'])
  assert.equal(rebuilt.status, 0, rebuilt.stderr)
  assert.equal(JSON.parse(rebuilt.stdout).datasetHash, JSON.parse(built.stdout).datasetHash, 'judging changes no record')
  const card = await readFile(join(out(), 'README.md'), 'utf8')
  assert.ok(card.includes(judgedSection(rates)), "the card states the stand-in's judged rates")
  assert.match(card, /^# my-bench$/m)
  assert.match(card, /^\*\*A variant of jev-bench-fixture 1\.1\.0\.\*\* It was built from a recipe of its own \(`my-bench` 0\.1\.0\)/m)
  assert.match(
    card,
    /Who screened \(`my-bench\.screened\.json`\): the model `stand-in` .* for \d+ items; rechecked by the model `stand-in-2`/,
  )
  const published = JudgedRates.parse(JSON.parse(await readFile(join(ROOT, 'recipes/jev-bench-1.3.0.judged.json'), 'utf8')))
  assert.ok(!card.includes(judgedSection(published)) && !card.includes('Changes from') && !card.includes('1.3.0'), 'nothing of 1.3.0')
  const again = await runInProcess('check-dataset', [out()], {})
  assert.equal(again.status, 2, 'without --recipe the variant recipe is not at hand')
  assert.match(again.stderr, /was built from recipe my-bench 0\.1\.0 \(hash [0-9a-f]{12}…\), which is not at hand/)
  const ok = await runInProcess('check-dataset', [out(), '--recipe', recipePath])
  assert.equal(ok.status, 0, ok.stderr)
})

test('people as the reviewers: sheets written, the run waits for their marks, then reads them back; a judge likewise', async () => {
  const dir = await mkdtemp(join(tmp, 'people-'))
  const recipe = await writeVariant(dir, 42)
  const mirror = ['--mirror', FIXTURE_HUB]
  const sheets = join(dir, 'sheets')
  const recheck = join(dir, 'recheck')
  const screen = (...extra: string[]) =>
    runInProcess('screen', [
      '--recipe',
      recipe,
      ...mirror,
      '--sheets',
      sheets,
      '--recheck-sheets',
      recheck,
      '--per-sheet',
      '10',
      '--pin',
      '--json',
      ...extra,
    ])
  /** Fills every sheet of a round in `at` as the stand-in reviewer would. */
  const fill = async (at: string, task: 'screen' | 'recheck') => {
    const drawn = JSON.parse(await readFile(join(at, 'items.json'), 'utf8')) as {
      sheets: string[][]
      items: { id: string; candidates: { text: string }[] }[]
    }
    const byId = new Map(drawn.items.map((x) => [x.id, x]))
    for (const [k, ids] of drawn.sheets.entries()) {
      const lines = ids.map(
        (id, i) =>
          `${i + 1}: ${standInMarks(
            task,
            byId.get(id)!.candidates.map((c) => c.text),
          ).join(' ')}`,
      )
      await writeFile(join(at, `marks-${k + 1}.txt`), `${lines.join('\n')}\n`)
    }
  }
  const first = await screen()
  assert.equal(first.status, 0, first.stderr)
  const waiting = JSON.parse(first.stdout)
  assert.equal(waiting.status, 'waiting')
  assert.ok(waiting.waiting.length >= 2 && waiting.waiting.every((f: string) => f.startsWith(join(sheets, 'marks-'))))
  assert.match(await readFile(join(sheets, 'screen-1.md'), 'utf8'), /^Answer with one line per item, nothing else/m)
  // another round's sheets are not mixed with these
  const other = await screen('--top', '3')
  assert.equal(other.status, 2)
  assert.match(other.stderr, /holds the sheets of another round/)
  await fill(sheets, 'screen')
  const second = JSON.parse((await screen()).stdout)
  assert.equal(second.status, 'waiting')
  assert.ok(second.waiting.every((f: string) => f.startsWith(join(recheck, 'marks-'))))
  await fill(recheck, 'recheck')
  const done = JSON.parse((await screen()).stdout)
  assert.equal(done.status, 'written')
  const marks = JSON.parse(await readFile(join(dir, 'my-bench.screened.json'), 'utf8'))
  assert.deepEqual(Object.values(marks.reviewers), [
    { kind: 'sheets', sheets },
    { kind: 'sheets', sheets: recheck },
  ])
  const nothing = JSON.parse((await screen()).stdout)
  assert.equal(nothing.status, 'nothing to screen', 'every item is covered now')

  const out = join(dir, 'out')
  assert.equal((await runInProcess('build-dataset', ['--recipe', recipe, ...mirror, '--out', out])).status, 0)
  const judges = join(dir, 'judges')
  const judge = () =>
    runInProcess('judge', [
      out,
      '--recipe',
      recipe,
      '--sheets',
      judges,
      '--judges',
      '2',
      '--seed',
      '3',
      '--test',
      '6',
      '--val',
      '2',
      '--out',
      join(dir, 'my-bench.judged.json'),
    ])
  const asked = await judge()
  assert.equal(asked.status, 0, asked.stderr)
  assert.match(asked.stdout, /^sheets to mark: fill \S+marks-1\.txt, \S+marks-2\.txt, then run the same command again$/m)
  const sample = JSON.parse(await readFile(join(judges, 'sample.json'), 'utf8')) as { sheets: number[][] }
  for (const [k, ns] of sample.sheets.entries()) {
    const sheet = await readFile(join(judges, `sheet-${k + 1}.md`), 'utf8')
    const lines = ns.map((n) => {
      const part = sheet.slice(sheet.indexOf(`\n## ${n}\n`) + 1).split(/\n## /)[0]!
      const options = [...part.matchAll(/^[A-H]\. (.*)$/gm)].map((m) => m[1]!)
      return `${n}: ${standInMarks('judge', options).join(' ')}`
    })
    await writeFile(join(judges, `marks-${k + 1}.txt`), `${lines.join('\n')}\n`)
  }
  const scored = await judge()
  assert.equal(scored.status, 0, scored.stderr)
  const rates = JudgedRates.parse(JSON.parse(await readFile(join(dir, 'my-bench.judged.json'), 'utf8')))
  assert.deepEqual(rates.reviewer, { kind: 'sheets', sheets: judges })
  assert.equal(rates.judges, 2)
  assert.match(await readFile(join(judges, 'result.md'), 'utf8'), /^Sample seed 3, dataset [0-9a-f]{64}\.$/m)
})

test('the library: screenRecipe and judgeDataset take the flags in camelCase and give what the commands print as JSON', async () => {
  const dir = await mkdtemp(join(tmp, 'library-'))
  const recipe = await writeVariant(dir, 42)
  const reviewer = { url: server.url, apiKey: KEY, workers: 2, timeout: 30, retries: 0, env: {} }
  const screened = await screenRecipe({ recipe, mirror: FIXTURE_HUB, model: 'lib', recheckModel: 'lib-2', pin: true, ...reviewer })
  assert.equal(screened.status, 'written')
  assert.equal(screened.pinned, true)
  const out = join(dir, 'out')
  await buildDataset({ recipe, mirror: FIXTURE_HUB, out, env: {} })
  const judged = await judgeDataset({
    dir: out,
    recipe,
    model: 'lib-judge',
    seed: 9,
    test: 4,
    val: 1,
    out: join(dir, 'j.json'),
    ...reviewer,
  })
  assert.equal(judged.status, 'scored')
  assert.equal(judged.judged?.reviewer?.kind, 'model')
  assert.equal(judged.judged?.sample.test, 4)
  await assert.rejects(
    judgeDataset({ dir: out, seed: 9, sheets: join(dir, 's'), url: server.url, model: 'x', out: join(dir, 'k.json'), env: {} }),
    /not both/,
  )
})

test('--sources draws only the named sources; a name the recipe lacks is a usage error listing its sources', async () => {
  const dir = await mkdtemp(join(tmp, 'sources-'))
  const recipe = await writeVariant(dir, 42)
  const sheets = join(dir, 'sheets')
  const run = (...extra: string[]) =>
    runInProcess('screen', ['--recipe', recipe, '--mirror', FIXTURE_HUB, '--sheets', sheets, '--json', ...extra])
  const only = await run('--sources', 'mmlu')
  assert.equal(only.status, 0, only.stderr)
  const drawn = JSON.parse(await readFile(join(sheets, 'items.json'), 'utf8')) as { items: { id: string }[] }
  assert.ok(drawn.items.length > 0, 'some mmlu items to screen')
  assert.deepEqual([...new Set(drawn.items.map((x) => x.id.split('-')[0]))], ['mmlu'])
  const bad = await run('--sources', 'mmlu,arc')
  assert.equal(bad.status, 2)
  assert.match(JSON.parse(bad.stdout).error.message, /--sources names arc, not a source of the recipe/)
  assert.match(JSON.parse(bad.stdout).error.hint, /jcommonsenseqa, mmlu, arc_challenge, arc_easy, boolq/)
  const none = await run('--sources', ' , ')
  assert.equal(none.status, 2)
  assert.match(JSON.parse(none.stdout).error.message, /^--sources names no source$/)
})
