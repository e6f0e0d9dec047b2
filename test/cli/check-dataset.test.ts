import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildToDir } from '../../src/build-io.ts'
import { checkDatasetCli } from '../../src/cli/check-dataset.ts'
import { runCli } from '../../src/cli/run.ts'
import { recordLines } from '../../src/emit/manifest.ts'
import { createMirrorFetcher } from '../../src/fetch/mirror.ts'
import { loadRecipe } from '../../src/recipe/load.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE, runNodeSync, STACK_FRAME } from '../helpers/cli.ts'

let tmp: string
let good: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-cli-check-'))
  good = join(tmp, 'good')
  await buildToDir(await loadRecipe(FIXTURE_RECIPE), createMirrorFetcher(FIXTURE_HUB), good)
})

after(async () => {
  await rm(tmp, { recursive: true, force: true })
})

async function check(argv: string[]) {
  const c = collectIo()
  const status = await runCli(() => checkDatasetCli(argv, {}, c.io), c.io, false)
  return { status, ...c }
}

test('a good folder: ok, exit 0', async () => {
  const r = await check([good, '--recipe', FIXTURE_RECIPE])
  assert.equal(r.status, 0, r.text())
  assert.deepEqual(r.out, [`ok: ${good}/ meets the spec`])
  assert.deepEqual(r.err, [])
})

test('a tampered folder: the problems, error[CHECK], exit 8', async () => {
  const dir = join(tmp, 'tampered')
  await cp(good, dir, { recursive: true })
  const lines = recordLines(await readFile(join(dir, 'test.jsonl'), 'utf8'))
  lines.pop()
  await writeFile(join(dir, 'test.jsonl'), `${lines.join('\n')}\n`)
  const r = await check([dir, '--recipe', FIXTURE_RECIPE])
  assert.equal(r.status, 8, r.text())
  assert.deepEqual(r.out, [])
  assert.ok(
    r.err.some((l) => /^test: \w+ has \d+ items, the recipe wants \d+$/.test(l)),
    r.text(),
  )
  assert.ok(r.err.includes("test.jsonl: does not match the manifest's sha256/bytes"), r.text())
  assert.ok(r.err.includes('test.jsonl: row count differs from the manifest'), r.text())
  const problems = r.err.findIndex((l) => l.startsWith('error[CHECK]'))
  assert.ok(problems > 0, 'the problems come before the error line')
  assert.match(r.err[problems]!, new RegExp(`^error\\[CHECK\\]: ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/: ${problems} problems$`))
  // typed with a trailing slash, the folder is spelled the same way
  const slashed = await check([`${dir}/`, '--recipe', FIXTURE_RECIPE])
  assert.deepEqual(slashed.err, r.err)
  assert.equal(r.err.at(-1), 'hint: the built dataset does not meet the spec')
  assert.ok(!r.err.some((l) => STACK_FRAME.test(l)))
})

test('a folder that does not exist: one IO line naming it, exit 7; a folder missing a file: that file', async () => {
  const r = await check([join(tmp, 'nothing-here'), '--recipe', FIXTURE_RECIPE])
  assert.equal(r.status, 7, r.text())
  assert.deepEqual(r.err, [`error[IO]: ${join(tmp, 'nothing-here')}: no such folder`, 'hint: check the path'])
  const dir = join(tmp, 'no-card')
  await cp(good, dir, { recursive: true })
  await rm(join(dir, 'val.jsonl'))
  const card = await readFile(join(dir, 'README.md'), 'utf8')
  await writeFile(join(dir, 'README.md'), card.replace(/^---\n[\s\S]*?\n---\n/, ''))
  const one = await check([dir, '--recipe', FIXTURE_RECIPE])
  assert.equal(one.status, 8)
  assert.ok(one.err.includes('val.jsonl: missing'), one.text())
  assert.ok(
    one.err.some((l) => l.startsWith('README.md: no YAML front matter')),
    one.text(),
  )
  assert.ok(!one.err.some((l) => l.startsWith('README.md: README.md')), 'the file is named once')
})

test('an unknown flag is USAGE (exit 2); a bad recipe is RECIPE (exit 2)', async () => {
  const u = await check([good, '--nope'])
  assert.equal(u.status, 2)
  assert.match(u.err[0]!, /^error\[USAGE\]: /)
  const bad = join(tmp, 'bad.json')
  await writeFile(bad, JSON.stringify({ name: 'Bad Name' }))
  const r = await check([good, '--recipe', bad])
  assert.equal(r.status, 2)
  assert.match(r.err[0]!, /^error\[RECIPE\]: /)
  assert.ok(
    r.err.some((l) => l.startsWith('  at $.name: ')),
    r.text(),
  )
})

test('subprocess: exit 0 with ok on a good folder, exit 8 on a tampered one', async () => {
  const ok = runNodeSync('check-dataset.ts', [good, '--recipe', 'test/fixtures/recipe.json'])
  assert.equal(ok.status, 0, ok.stderr)
  assert.equal(ok.stdout, `ok: ${good}/ meets the spec\n`)
  assert.equal(ok.stderr, '')

  const dir = join(tmp, 'tampered-card')
  await cp(good, dir, { recursive: true })
  const card = await readFile(join(dir, 'README.md'), 'utf8')
  await writeFile(
    join(dir, 'README.md'),
    card
      .split('\n')
      .filter((l) => !l.startsWith('Chance floor'))
      .join('\n'),
  )
  const bad = runNodeSync('check-dataset.ts', [dir, '--recipe', 'test/fixtures/recipe.json'])
  assert.equal(bad.status, 8, bad.stderr)
  assert.equal(bad.stdout, '')
  assert.match(bad.stderr, /^README\.md: does not state the test chance floor 0\.\d{3} computed from test\.jsonl$/m)
  assert.match(bad.stderr, /^error\[CHECK\]: .*\/: 2 problems$/m)
})

test('the distractor audit: a figure edited in the manifest or the card is found; provenance.jsonl is required', async () => {
  const dir = join(tmp, 'tampered-audit')
  await cp(good, dir, { recursive: true })
  const m = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'))
  m.audit.test.baselines.longest.all += 0.001
  await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`)
  const card = await readFile(join(dir, 'README.md'), 'utf8')
  const edited = card.replace(/^\| always the shortest option \| [\d.]+/m, '| always the shortest option | 0.999')
  assert.notEqual(edited, card)
  await writeFile(join(dir, 'README.md'), edited)
  const r = await check([dir, '--recipe', FIXTURE_RECIPE])
  assert.equal(r.status, 8, r.text())
  assert.ok(r.err.includes('manifest.json: audit does not match the records and provenance.jsonl'), r.text())
  assert.ok(r.err.includes("README.md: the distractor audit's baseline table does not match the records and provenance.jsonl"), r.text())

  const none = join(tmp, 'no-provenance')
  await cp(good, none, { recursive: true })
  await rm(join(none, 'provenance.jsonl'))
  const n = await check([none, '--recipe', FIXTURE_RECIPE])
  assert.equal(n.status, 8)
  assert.ok(n.err.includes('provenance.jsonl: missing'), n.text())
})

test('--upstream proves provenance.jsonl against the rows of the sources', async () => {
  const r = await check([good, '--recipe', FIXTURE_RECIPE, '--upstream', '--mirror', FIXTURE_HUB])
  assert.equal(r.status, 0, r.text())
  assert.deepEqual(r.out, [`ok: ${good}/ meets the spec, and provenance.jsonl matches the upstream rows`])
})

test("the audit's sentences are proved too: a count edited in the card's prose is found", async () => {
  const dir = join(tmp, 'tampered-prose')
  await cp(good, dir, { recursive: true })
  const card = await readFile(join(dir, 'README.md'), 'utf8')
  const edited = card.replace(
    /^(\d+) test items( \(\d+ val\))? are phrased as a negative/m,
    (_, n: string, v: string | undefined) => `${Number(n) + 7} test items${v ?? ''} are phrased as a negative`,
  )
  assert.notEqual(edited, card)
  await writeFile(join(dir, 'README.md'), edited)
  const r = await check([dir, '--recipe', FIXTURE_RECIPE])
  assert.equal(r.status, 8, r.text())
  assert.ok(r.err.includes('README.md: the distractor audit section is not what the records and provenance.jsonl give'), r.text())
})
