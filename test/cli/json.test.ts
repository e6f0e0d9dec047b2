/** --json on every command: one JSON document on stdout, on success and on error; the text on stderr; the exit status unchanged. */
import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildDatasetCli } from '../../src/cli/build-dataset.ts'
import { checkDatasetCli } from '../../src/cli/check-dataset.ts'
import { diffDatasetCli } from '../../src/cli/diff-dataset.ts'
import { publishDatasetCli } from '../../src/cli/publish-dataset.ts'
import { recipeSchemaCli } from '../../src/cli/recipe-schema.ts'
import { type Io, runCli } from '../../src/cli/run.ts'
import { verifyDatasetCli } from '../../src/cli/verify-dataset.ts'
import { ERROR_CODES } from '../../src/errors.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE } from '../helpers/cli.ts'
import { type HubServer, startHubServer } from '../helpers/hub-server.ts'
import { FIXTURE_LOCK, TOKEN } from '../helpers/publish.ts'

type Cli = (argv: string[], env: NodeJS.ProcessEnv, io: Io) => Promise<number>
let tmp: string
let out: string
let server: HubServer
const SOURCES = ['--recipe', FIXTURE_RECIPE, '--lock', FIXTURE_LOCK, '--mirror', FIXTURE_HUB]

/** Runs a command with --json; stdout must be exactly one JSON document. */
async function json(cli: Cli, argv: string[], env: NodeJS.ProcessEnv = {}) {
  const c = collectIo()
  const status = await runCli(() => cli([...argv, '--json'], env, c.io), c.io, false)
  assert.equal(c.out.length, 1, `one line on stdout:\n${c.out.join('\n')}`)
  return { status, doc: JSON.parse(c.out[0]!) as Record<string, any>, err: c.err }
}

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-json-'))
  out = join(tmp, 'out')
  server = await startHubServer({ root: FIXTURE_HUB })
})
after(async () => {
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

test("build-dataset --json: the summary under the text's names (counts, dropped, outputs, dataset hash, warnings, time); text on stderr", async () => {
  const r = await json(buildDatasetCli, [...SOURCES, '--out', out])
  assert.equal(r.status, 0, r.err.join('\n'))
  const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'))
  assert.equal(r.doc.built, `${out}/`)
  assert.equal(r.doc.datasetHash, manifest.datasetHash)
  assert.deepEqual(r.doc.counts, { ...manifest.counts.bySource, total: r.doc.counts.total })
  assert.deepEqual(
    r.doc.outputs.map((o: { path: string }) => o.path),
    [...manifest.outputs.map((o: { path: string }) => o.path), 'manifest.json'],
  )
  assert.ok(typeof r.doc.dropped === 'object' && Array.isArray(r.doc.warnings) && typeof r.doc.seconds === 'number')
  assert.equal(r.doc.wroteLock, null)
  assert.ok(r.err.includes(`built ${out}/`), 'the text summary goes to stderr')
})

test('check-dataset --json: ok with no problems; a tampered folder lists each problem with its file, record id and field, exit 8', async () => {
  const ok = await json(checkDatasetCli, [out, '--recipe', FIXTURE_RECIPE])
  assert.equal(ok.status, 0)
  assert.deepEqual(ok.doc, { dir: `${out}/`, upstream: false, problems: [] })
  const bad = join(tmp, 'bad')
  await cp(out, bad, { recursive: true })
  const lines = (await readFile(join(bad, 'test.jsonl'), 'utf8')).split('\n')
  const rec = JSON.parse(lines[0]!)
  lines[0] = JSON.stringify({ ...rec, choices: [rec.choices[0], rec.choices[0], ...rec.choices.slice(2)] })
  lines[1] = '{"id": 3}'
  await writeFile(join(bad, 'test.jsonl'), lines.join('\n'))
  const r = await json(checkDatasetCli, [bad, '--recipe', FIXTURE_RECIPE])
  assert.equal(r.status, 8)
  assert.equal(r.doc.error.code, 'CHECK')
  assert.equal(r.doc.error.hint, ERROR_CODES.CHECK.hint)
  const problems = r.doc.problems as { file: string; line: number | null; id: string | null; field: string | null; message: string }[]
  assert.ok(
    problems.some((p) => p.file === 'test.jsonl' && p.id === rec.id && /options not all distinct/.test(p.message)),
    JSON.stringify(problems),
  )
  assert.ok(
    problems.some((p) => p.file === 'test.jsonl' && p.line === 2 && p.field !== null),
    JSON.stringify(problems),
  )
})

test('verify-dataset --json: the result; stopped early (no lock) one {"error":{code,message,hint}}, exit 5', async () => {
  const ok = await json(verifyDatasetCli, [...SOURCES, '--out', out])
  assert.equal(ok.status, 0)
  assert.equal(ok.doc.identical, true)
  const missing = join(tmp, 'none.lock.json')
  const r = await json(verifyDatasetCli, ['--recipe', FIXTURE_RECIPE, '--lock', missing, '--mirror', FIXTURE_HUB, '--out', out])
  assert.equal(r.status, 5)
  assert.deepEqual(Object.keys(r.doc), ['error'])
  assert.equal(r.doc.error.code, 'LOCK')
  assert.equal(r.doc.error.message, `no lock at ${missing}`)
  assert.match(r.doc.error.hint, /build once/)
  assert.ok(r.err.includes(`error[LOCK]: no lock at ${missing}`), 'the text error still on stderr')
})

test('diff-dataset --json: the diff, and DIFF (exit 11) with the error in the same document', async () => {
  const same = await json(diffDatasetCli, [out, out])
  assert.equal(same.status, 0)
  assert.equal(same.doc.identical, true)
  const r = await json(diffDatasetCli, [out, join(tmp, 'bad')])
  assert.equal(r.status, 11)
  assert.equal(r.doc.identical, false)
  assert.equal(r.doc.error.code, 'DIFF')
})

test('publish-dataset --json --dry-run: the plan, result null; a bad --revision: the error with the usage on stderr only', async () => {
  const env = { HF_ENDPOINT: server.url, HF_TOKEN: TOKEN }
  const r = await json(publishDatasetCli, [...SOURCES, '--out', out, '--repo', 'someone/json', '--dry-run'], env)
  assert.equal(r.status, 0, r.err.join('\n'))
  assert.equal(r.doc.dryRun, true)
  assert.equal(r.doc.result, null)
  assert.equal(r.doc.plan.repo, 'someone/json')
  assert.ok(
    r.doc.plan.files.length >= 4 && r.doc.plan.files.every((f: { action: string }) => f.action === 'add'),
    JSON.stringify(r.doc.plan.files),
  )
  const bad = await json(publishDatasetCli, [...SOURCES, '--repo', 'a/b', '--revision', 'a..b'], env)
  assert.equal(bad.status, 2)
  assert.deepEqual(bad.doc.error, { code: 'USAGE', message: '--revision "a..b" is not a valid git ref name', hint: 'see --help' })
  assert.ok(
    bad.err.some((l) => l.startsWith('usage: npm run publish-dataset -- ')),
    bad.err.join('\n'),
  )
})

test('recipe-schema --json: where it wrote, as one document; the text line on stderr', async () => {
  const target = join(tmp, 'schema.json')
  const r = await json(recipeSchemaCli, [target])
  assert.equal(r.status, 0, r.err.join('\n'))
  assert.deepEqual(r.doc, { wrote: target })
  assert.deepEqual(r.err, [`wrote ${target}`])
  assert.equal(JSON.parse(await readFile(target, 'utf8')).type, 'object')
})
