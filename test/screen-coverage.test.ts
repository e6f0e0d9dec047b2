/**
 * A build tells the truth about what its reviewers covered, and its card claims only what is its own: a quota table
 * that needs options of items no mark covers stops with SCREEN (not QUOTA), naming how many and the command, unless
 * no screening could meet it; with allowUnscreened it builds and the card counts the options lent unscreened; judged
 * rates of other records are not stated, and check-dataset agrees.
 */
import assert from 'node:assert/strict'
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildFromSources } from '../src/build-io.ts'
import { JUDGED_HEADING } from '../src/emit/judged.ts'
import { outputText } from '../src/emit/outputs.ts'
import { isJevError } from '../src/errors.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { sha256Hex } from '../src/util/hash.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, ROOT, runInProcess } from './helpers/cli.ts'

let tmp: string
const fetcher = createMirrorFetcher(FIXTURE_HUB)
// one real item of the fixture's seed-42 selection: the marks cover it and nothing else
const ONE = { protocol: 'docs/judging.md#screening', items: { 'mmlu-024899bf1ef3f601': { shown: ['a candidate'], marks: 'a' } } }

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-coverage-'))
})
after(() => rm(tmp, { recursive: true, force: true }))

/** The fixture recipe under the plausible rule and seed 42, with a marks file (and, optionally, judged rates) beside it. */
async function recipeWith(
  name: string,
  screened: object,
  extra: { allowUnscreened?: boolean; judged?: string; testQuota?: Record<string, number> } = {},
): Promise<string> {
  const json = JSON.parse(await readFile(FIXTURE_RECIPE, 'utf8'))
  json.$schema = undefined
  json.seed = 42
  const marks = `${JSON.stringify(screened)}\n`
  await writeFile(join(tmp, `${name}.screened.json`), marks)
  json.distractors = {
    borrow: {
      plausible: {
        lenders: 200,
        maxWords: 50,
        screened: { path: `${name}.screened.json`, sha256: sha256Hex(marks), ...(extra.allowUnscreened && { allowUnscreened: true }) },
      },
    },
  }
  json.quotas = {
    test: extra.testQuota ?? { '2': 16, '3': 10, '4': 22, '5': 20, '6': 4, '7': 1, '8': 1 },
    val: { '2': 9, '3': 4, '4': 12, '5': 5, '6': 1, '7': 1, '8': 0 },
  }
  if (extra.judged) {
    await copyFile(extra.judged, join(tmp, `${name}.judged.json`))
    json.judged = { path: `${name}.judged.json`, sha256: sha256Hex(await readFile(extra.judged)) }
  }
  const path = join(tmp, `${name}.json`)
  await writeFile(path, `${JSON.stringify(json, null, 2)}\n`)
  return path
}

test('a quota table that needs options no mark covers stops with SCREEN naming how many items and the command, not QUOTA', async () => {
  const path = await recipeWith('uncovered', ONE)
  await assert.rejects(buildFromSources(await loadRecipe(path), fetcher, { lock: null }), (e: unknown) => {
    assert.ok(isJevError(e) && e.code === 'SCREEN', String(e))
    assert.match(
      e.message,
      /^test: (\d+) of the 74 selected items could borrow options that no reviewer's mark covers \(e\.g\. \S+\), and the option-count table needs them$/,
    )
    assert.ok((e.context.items as number) > 10, e.message)
    return true
  })
  const cli = await runInProcess('build-dataset', ['--recipe', path, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'never')])
  assert.equal(cli.status, 4, cli.stderr)
  assert.match(cli.stderr, /^error\[SCREEN\]: test: \d+ of the 74 selected items/m)
  assert.ok(cli.stderr.includes(`hint: screen them: jev screen --recipe ${path} (--url URL --model NAME, or --sheets DIR)`), cli.stderr)
})

test('a table no screening could meet stays a QUOTA error, though items are uncovered', async () => {
  // every item that is not BoolQ at eight options: more than their groups hold even unscreened, so no marks would help
  const path = await recipeWith('impossible', ONE, { testQuota: { '2': 10, '3': 0, '4': 0, '5': 0, '6': 0, '7': 0, '8': 64 } })
  await assert.rejects(buildFromSources(await loadRecipe(path), fetcher, { lock: null }), (e: unknown) => {
    assert.ok(isJevError(e) && e.code === 'QUOTA', String(e))
    assert.match(e.message, /^test: group \S+ cannot hold its option counts: \S+ can have at most \d options, was dealt 8/)
    return true
  })
})

test('with allowUnscreened the same recipe builds, and its card says how many borrowed options were not screened', async () => {
  const path = await recipeWith('open', ONE, { allowUnscreened: true })
  const built = await buildFromSources(await loadRecipe(path), fetcher, { lock: null })
  const provenance = outputText(built.files.get('provenance.jsonl')!)
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l) as { id: string; choices: { from: string }[] })
  const lent = (p: (typeof provenance)[number]) => p.choices.filter((c) => c.from === 'borrowed').length
  const all = provenance.reduce((n, p) => n + lent(p), 0)
  const unscreened = provenance.filter((p) => !(p.id in ONE.items)).reduce((n, p) => n + lent(p), 0)
  const items = provenance.filter((p) => !(p.id in ONE.items) && lent(p) > 0).length
  assert.ok(all > 10 && unscreened === all, `${unscreened} of ${all}`)
  assert.ok(
    outputText(built.files.get('README.md')!).includes(
      `and ${unscreened} of the ${all} borrowed options, in ${items} items, were lent without a reviewer's mark.`,
    ),
  )
})

test('judged rates of other records are left off the card with a warning, and check-dataset holds the card to that', async () => {
  const path = await recipeWith('judged', ONE, { allowUnscreened: true, judged: join(ROOT, 'recipes/jev-bench-1.3.0.judged.json') })
  const out = join(tmp, 'out-judged')
  const r = await runInProcess('build-dataset', ['--recipe', path, '--mirror', FIXTURE_HUB, '--out', out])
  assert.equal(r.status, 0, r.stderr)
  assert.match(
    r.stderr,
    /warning: judged\.judged\.json: judged on other records \(dataset 7371222cbe02…, this build [0-9a-f]{12}…\), so the card states no judged rates; judge this build with jev judge/,
  )
  const card = await readFile(join(out, 'README.md'), 'utf8')
  assert.ok(!card.includes(JUDGED_HEADING))
  assert.equal((await runInProcess('check-dataset', [out, '--recipe', path])).status, 0)
  // a card that states them anyway is refused
  await writeFile(join(out, 'README.md'), card.replace('## Evaluating', `${JUDGED_HEADING}\n\n## Evaluating`))
  const bad = await runInProcess('check-dataset', [out, '--recipe', path])
  assert.equal(bad.status, 8)
  assert.match(bad.stderr, /README\.md: states judged rates, but \S+judged\.judged\.json was judged on other records \(dataset 7371222c/)
})
