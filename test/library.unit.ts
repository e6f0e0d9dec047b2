/** The package used as a library, imported by its own name (package.json "exports"), on the fixture dataset. */
import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import {
  type BuildOptions,
  buildDataset,
  CheckOptions,
  checkDataset,
  diffDatasets,
  isJevError,
  JevError,
  publishDataset,
  ServeOptions,
  serveHub,
  terminalProgress,
  verifyDataset,
} from 'jev-bench-builder'
import { checkCommand } from '../src/cli/check-dataset.ts'
import { serveCommand } from '../src/cli/serve-hub.ts'
import { isWriteRequest } from '../src/hub-server/index.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE } from './helpers/cli.ts'
import { buildFixtureOut, FIXTURE_LOCK } from './helpers/publish.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-lib-'))
})
after(() => rm(tmp, { recursive: true, force: true }))
const sources = () => ({ recipe: FIXTURE_RECIPE, lock: FIXTURE_LOCK, mirror: FIXTURE_HUB, env: {} })

test('buildDataset builds the fixture dataset as the CLI does; check, verify and diff read it back', async () => {
  const out = join(tmp, 'out')
  const lines: string[] = []
  const run = await buildDataset({ ...sources(), out, onLine: (l) => lines.push(l) })
  assert.equal(run.out, out)
  assert.equal(run.wroteLock, false, 'frozen against the fixture lock')
  for (const [name, text] of run.built.files) assert.equal(await readFile(join(out, name), 'utf8'), text, name)
  // the same bytes as the CLI's path to a folder (test/helpers/publish.ts builds with buildToDir)
  const reference = join(tmp, 'reference')
  await buildFixtureOut(reference)
  const same = await diffDatasets({ a: reference, b: out })
  assert.equal(same.identical, true, JSON.stringify(same.files))
  assert.deepEqual((await checkDataset({ dir: out, recipe: FIXTURE_RECIPE })).problems, [])
  assert.equal((await verifyDataset({ ...sources(), out })).result.identical, true)

  const edited = join(tmp, 'edited')
  await cp(out, edited, { recursive: true })
  const text = await readFile(join(edited, 'val.jsonl'), 'utf8')
  await writeFile(join(edited, 'val.jsonl'), text.slice(text.indexOf('\n') + 1))
  const d = await diffDatasets({ a: out, b: edited })
  assert.equal(d.identical, false)
  assert.equal(d.records.val.removed.length, 1)
  const v = await verifyDataset({ ...sources(), out: edited })
  assert.equal(v.result.identical, false)
  assert.equal(v.result.cause, 'out-edited')
  assert.ok((await checkDataset({ dir: edited, recipe: FIXTURE_RECIPE })).problems.length > 0)
})

test('failures throw the typed errors: a bad option is USAGE, a missing recipe IO', async () => {
  await assert.rejects(buildDataset({ ...sources(), out: join(tmp, 'x'), bogus: 1 } as never), (e: unknown) => {
    assert.ok(e instanceof JevError && isJevError(e))
    assert.equal(e.code, 'USAGE')
    assert.match(e.message, /bogus/)
    return true
  })
  await assert.rejects(
    buildDataset({ ...sources(), recipe: join(tmp, 'missing.json'), out: join(tmp, 'y') }),
    (e: unknown) => isJevError(e) && e.code === 'IO',
  )
})

test('an unknown param is refused, naming it and the command, with the one meant when one is close', async () => {
  const refused = async (call: Promise<unknown>, message: RegExp, hint?: RegExp) =>
    assert.rejects(call, (e: unknown) => {
      assert.ok(isJevError(e), String(e))
      assert.equal(e.code, 'USAGE')
      assert.match(e.message, message)
      if (hint) assert.match(String(e.context.hint), hint)
      return true
    })
  // @ts-expect-error the params' type is the declaration's: no such flag
  await refused(checkDataset({ dir: tmp, upstreem: true }), /^check-dataset has no param "upstreem"$/, /did you mean upstream\?/)
  await refused(buildDataset({ cachedir: tmp } as never), /^build-dataset has no param "cachedir"$/, /did you mean cacheDir\?/)
  // --json is how the command line prints a result; the library returns it
  await refused(buildDataset({ json: true } as never), /^build-dataset has no param "json"$/)
  await refused(buildDataset({ offline: 'yes' } as never), /^bad params of build-dataset: .*offline/)
})

test('a flag that takes a number takes one as a number or as its text, checked as the command line checks it', async () => {
  const numbers: BuildOptions = { httpTimeout: 30, minRate: '1', fileDeadline: 0.5 }
  assert.equal(numbers.httpTimeout, 30)
  const server = await serveHub({ port: 0, host: '127.0.0.1', env: process.env })
  await server.close()
  await assert.rejects(
    serveHub({ port: 70000 }),
    (e: unknown) => isJevError(e) && e.code === 'USAGE' && e.message === '--port must be 0..65535, got "70000"',
  )
  await assert.rejects(
    buildDataset({ ...sources(), out: join(tmp, 'z'), fileDeadline: -1 }),
    (e: unknown) => isJevError(e) && e.code === 'USAGE' && e.message === '--file-deadline "-1" is not a positive number of s',
  )
})

test("the params' schema is the command's declaration: every flag but --json in camelCase, its positionals by name", () => {
  const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
  for (const [schema, command, value] of [
    [CheckOptions, checkCommand, { dir: 'out' }],
    [ServeOptions, serveCommand, {}],
  ] as const)
    for (const [flag, o] of Object.entries(command.spec.options)) {
      const params = { ...value, [camel(flag)]: o.type === 'boolean' ? true : 'x' }
      assert.equal(schema.safeParse(params).success, flag !== 'json', `${command.spec.name} --${flag}`)
    }
})

test('serveHub serves the mirror; publishDataset plans a dry run against it and sends nothing', async () => {
  const server = await serveHub({ mirror: FIXTURE_HUB })
  try {
    const out = join(tmp, 'publish-out')
    await buildFixtureOut(out)
    const lines: string[] = []
    const run = await publishDataset({
      ...sources(),
      env: { HF_ENDPOINT: server.url },
      out,
      repo: 'someone/lib-test',
      dryRun: true,
      onLine: (l) => lines.push(l),
    })
    assert.equal(run.result, null)
    assert.equal(run.plan.repoAction, 'create')
    assert.deepEqual(run.plan.files.map((f) => f.path).sort(), [
      'README.md',
      'answer-positions.svg',
      'borrowed-options.svg',
      'croissant.json',
      'manifest.json',
      'option-counts.svg',
      'provenance.jsonl',
      'test.jsonl',
      'val.jsonl',
    ])
    assert.ok(lines.includes('dry run: only read requests were sent; nothing was changed'), lines.join('\n'))
    assert.ok(server.requests.length > 0, 'the plan read the repo')
    assert.deepEqual(server.requests.filter(isWriteRequest), [])
  } finally {
    await server.close()
  }
})

test('a progress given to the library is drawn on as the build goes, and left for the caller to end; anything else is USAGE', async () => {
  const writes: string[] = []
  const progress = terminalProgress({ write: (t) => void writes.push(t), intervalMs: 0, now: () => 0 })
  const out = join(tmp, 'progress-out')
  await buildDataset({ ...sources(), out, progress })
  const drawn = writes.join('')
  for (const stage of [
    'loading and preparing sources (1 of 5: jcommonsenseqa)',
    'selecting, borrowing distractors and reshaping',
    `writing ${out}/`,
  ])
    assert.ok(drawn.includes(stage), stage)
  assert.equal(writes.at(-1), `writing ${out}/`, "still drawn: ending it is the caller's")
  progress.end()
  await assert.rejects(
    buildDataset({ ...sources(), out, progress: { stage() {} } as never }),
    (e: unknown) => isJevError(e) && e.code === 'USAGE' && /progress/.test(e.message),
  )
})
