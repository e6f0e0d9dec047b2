/** The errors a newcomer meets first (issue 30): each one's text and exit status, as a user sees them. */
import assert from 'node:assert/strict'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Io } from '../../src/cli/run.ts'
import { serveHubCli } from '../../src/cli/serve-hub.ts'
import { recordLines } from '../../src/emit/manifest.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, type RunResult, runInProcess, runNodeSync, STACK_FRAME } from '../helpers/cli.ts'
import { buildFixtureOut } from '../helpers/publish.ts'

/** runInProcess, and no stack trace without --debug; serve-hub stops at once should it ever start listening, instead of waiting for a signal. */
async function inProcess(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  const serve = (a: string[], e: NodeJS.ProcessEnv, io: Io) => serveHubCli(a, e, io, Promise.resolve())
  const r = await runInProcess(command, args, env, command === 'serve-hub' ? serve : undefined)
  if (!args.includes('--debug'))
    assert.ok(
      ![r.stdout, r.stderr]
        .join('')
        .split('\n')
        .some((l) => STACK_FRAME.test(l)),
      `${command}: a stack trace:\n${r.stderr}`,
    )
  return r
}

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-messages-'))
})
after(async () => {
  await rm(tmp, { recursive: true, force: true })
})

test('a mistyped flag: "unknown option" and the option meant, no advice about positionals, exit 2', async () => {
  // as users run it, through dist/cli/main.js, the same as in-process
  const bin = runNodeSync('build-dataset', ['--mirorr', 'x'])
  assert.equal(bin.status, 2, bin.stderr)
  assert.deepEqual(await inProcess('build-dataset', ['--mirorr', 'x']), bin)
  for (const [command, typed, meant] of [
    ['build-dataset', '--mirorr', '--mirror'],
    ['build-dataset', '--ouput', '--out'],
    ['build-dataset', '--offine', '--offline'],
    ['verify-dataset', '--mirorr=x', '--mirror'],
    ['check-dataset', '--upstrem', '--upstream'],
  ] as const) {
    const r = await inProcess(command, [typed, 'x'])
    assert.equal(r.status, 2, r.stderr)
    assert.equal(r.stderr, `error[USAGE]: unknown option ${typed.replace(/=.*/, '')}\nhint: did you mean ${meant}?\n`)
    assert.equal(r.stdout, '')
  }
  // nothing close: the usage lists what there is
  const far = await inProcess('build-dataset', ['--zzzzzz'])
  assert.equal(far.status, 2)
  const lines = far.stderr.trimEnd().split('\n')
  assert.equal(lines[0], 'error[USAGE]: unknown option --zzzzzz')
  assert.match(lines[1]!, /^usage: npm run build-dataset -- /)
  assert.equal(lines.at(-1), 'hint: build-dataset has no option --zzzzzz; the usage above lists them, -h says what each does')
  assert.doesNotMatch(far.stderr, /positional/)
  // under --json the same, as the error document
  const json = await inProcess('build-dataset', ['--mirorr', 'x', '--json'])
  assert.equal(json.status, 2)
  assert.deepEqual(JSON.parse(json.stdout), {
    error: { code: 'USAGE', message: 'unknown option --mirorr', hint: 'did you mean --mirror?' },
  })
})

test('a folder that is not there: IO (exit 7) naming it, for verify-dataset --out as for check-dataset and diff-dataset', async () => {
  const none = join(tmp, 'no-such-out')
  const verify = await inProcess('verify-dataset', ['--out', none, '--recipe', FIXTURE_RECIPE, '--mirror', FIXTURE_HUB])
  assert.equal(verify.status, 7, verify.stderr)
  assert.equal(verify.stderr, `error[IO]: --out ${none}: no such folder\nhint: check the path given to --out\n`)
  assert.doesNotMatch(verify.stderr, /missing|out-edited|VERIFY/)
  const check = await inProcess('check-dataset', [none, '--recipe', FIXTURE_RECIPE])
  assert.equal(check.status, 7, check.stderr)
  assert.equal(check.stderr.split('\n')[0], `error[IO]: ${none}: no such folder`)
  const diff = await inProcess('diff-dataset', [none, join(tmp, 'other')])
  assert.equal(diff.status, 7, diff.stderr)
  assert.equal(diff.stderr.split('\n')[0], `error[IO]: ${none}: no such folder`)
})

test('refusing a non-empty --out: the reason and what to do instead, not the usage; nothing touched, exit 2', async () => {
  const mine = join(tmp, 'mine')
  await mkdir(mine)
  await writeFile(join(mine, 'notes.txt'), 'mine\n')
  for (const args of [[], ['--json']]) {
    const r = await inProcess('build-dataset', ['--recipe', FIXTURE_RECIPE, '--mirror', FIXTURE_HUB, '--out', mine, ...args])
    assert.equal(r.status, 2, r.stderr)
    assert.equal(
      r.stderr,
      `error[USAGE]: refusing to replace ${mine}: it holds other things than a build's files (notes.txt)\n` +
        'hint: nothing was touched; name a new or empty folder for the output (--out DIR), or one a build wrote\n',
    )
    assert.doesNotMatch(r.stderr, /usage: |see --help/)
  }
  assert.deepEqual(await readdir(mine), ['notes.txt'])
  assert.equal(await readFile(join(mine, 'notes.txt'), 'utf8'), 'mine\n')
  // serve-hub's refusal of a non-loopback address likewise
  const serve = await inProcess('serve-hub', ['--host', '0.0.0.0', '--port', '0'])
  assert.equal(serve.status, 2, serve.stderr)
  assert.equal(
    serve.stderr,
    'error[USAGE]: refusing to listen on 0.0.0.0: the local Hub binds to the loopback interface only (127.0.0.1, ::1, localhost)\n' +
      'hint: leave --host out (127.0.0.1), or give ::1 or localhost\n',
  )
})

test('a recipe with a JSON syntax error: line, column and the text around them with a caret, a hint that fits, exit 2', async () => {
  const text = await readFile(FIXTURE_RECIPE, 'utf8')
  // drop the comma after the recipe's first property: the error is where the next one starts
  const first = text.indexOf(',\n')
  const bad = join(tmp, 'bad.json')
  await writeFile(bad, text.slice(0, first) + text.slice(first + 1))
  const lines = text.slice(0, first).split('\n')
  const line = lines.length + 1
  const next = text.slice(first + 2).split('\n')[0]!
  const column = next.length - next.trimStart().length + 1
  const r = await inProcess('build-dataset', ['--recipe', bad, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'never')])
  assert.equal(r.status, 2, r.stderr)
  const w = String(line).length
  assert.equal(
    r.stderr,
    [
      `error[RECIPE]: recipe ${bad} is not valid JSON at line ${line}, column ${column}: '"' where ',' or '}' was expected after a property value (a comma missing?)`,
      `  ${String(line - 1).padStart(w)} | ${lines.at(-1)}`,
      `  ${line} | ${next}`,
      `  ${' '.repeat(w)} | ${' '.repeat(column - 1)}^`,
      'hint: fix the JSON syntax where the caret points, and run again',
      '',
    ].join('\n'),
  )
  assert.doesNotMatch(r.stderr, /JSON paths listed|position/)
  // check-dataset reads the recipe the same way
  const check = await inProcess('check-dataset', [tmp, '--recipe', bad])
  assert.equal(check.status, 2, check.stderr)
  assert.match(check.stderr, new RegExp(`^error\\[RECIPE\\]: recipe .* is not valid JSON at line ${line}, column ${column}: `))
})

test('publish-dataset --dry-run without --repo: says --repo is required, not that "" is malformed; exit 2, nothing sent', async () => {
  const r = await inProcess('publish-dataset', ['--dry-run', '--out', join(tmp, 'none')])
  assert.equal(r.status, 2, r.stderr)
  assert.equal(
    r.stderr,
    'error[USAGE]: publish-dataset needs --repo OWNER/NAME, the dataset repo to publish to\n' +
      'hint: add --repo OWNER/NAME (a --dry-run needs it too: it plans against that repo)\n',
  )
  const bad = await inProcess('publish-dataset', ['--dry-run', '--repo', 'just-a-name'])
  assert.equal(bad.status, 2, bad.stderr)
  assert.equal(
    bad.stderr,
    'error[USAGE]: --repo must be OWNER/NAME, got "just-a-name"\nhint: name the Hub dataset repo as its owner and name, e.g. --repo my-org/jev-bench\n',
  )
})

test('check-dataset with one line deleted from val.jsonl: the root cause first, then its consequences; the full list, exit 8', async () => {
  const good = join(tmp, 'good')
  await buildFixtureOut(good)
  const dir = join(tmp, 'one-line-less')
  await cp(good, dir, { recursive: true })
  const lines = recordLines(await readFile(join(dir, 'val.jsonl'), 'utf8'))
  lines.splice(3, 1)
  await writeFile(join(dir, 'val.jsonl'), `${lines.join('\n')}\n`)
  const r = await inProcess('check-dataset', [dir, '--recipe', FIXTURE_RECIPE])
  assert.equal(r.status, 8, r.stderr)
  const problems = r.stderr.split('\n').filter((l) => l && !l.startsWith('error[') && !l.startsWith('hint: '))
  assert.deepEqual(problems.slice(0, 2), [
    'val.jsonl: row count differs from the manifest',
    "val.jsonl: does not match the manifest's sha256/bytes",
  ])
  // the consequences are all still there, after it
  for (const p of [
    /^val: \w+ has \d+ items, the recipe wants \d+$/,
    /^README\.md: the counts table does not match the records$/,
    /^manifest\.json: datasetHash /,
  ])
    assert.ok(problems.findIndex((l) => p.test(l)) > 1, `${p} after the root cause:\n${r.stderr}`)
  assert.match(r.stderr, new RegExp(`^error\\[CHECK\\]: .*: ${problems.length} problems$`, 'm'))
  // a file missing comes before everything else
  await rm(join(dir, 'test.jsonl'))
  const gone = await inProcess('check-dataset', [dir, '--recipe', FIXTURE_RECIPE])
  assert.equal(gone.status, 8)
  assert.deepEqual(gone.stderr.split('\n').slice(0, 3), [
    'test.jsonl: missing',
    'val.jsonl: row count differs from the manifest',
    "val.jsonl: does not match the manifest's sha256/bytes",
  ])
})

test('the build summary lists every file written, manifest.json too, with its sha256 and size', async () => {
  const out = join(tmp, 'summary-out')
  const r = await inProcess('build-dataset', ['--recipe', FIXTURE_RECIPE, '--mirror', FIXTURE_HUB, '--out', out])
  assert.equal(r.status, 0, r.stderr)
  const listed = r.stdout.split('\n').flatMap((l) => /^(\S+)\s+sha256 [0-9a-f]{64}\s+\d+ bytes$/.exec(l)?.[1] ?? [])
  assert.deepEqual([...listed].sort(), (await readdir(out)).sort())
  assert.equal(listed.length, 9)
  assert.equal(listed.at(-1), 'manifest.json')
})

test('an empty --mirror folder: IO saying it has no datasets/ (exit 7); one without the repo: NOT_FOUND naming the repo (exit 6)', async () => {
  const empty = join(tmp, 'empty-mirror')
  await mkdir(empty)
  const r = await inProcess('build-dataset', ['--recipe', FIXTURE_RECIPE, '--mirror', empty, '--out', join(tmp, 'never')])
  assert.equal(r.status, 7, r.stderr)
  assert.equal(
    r.stderr,
    `error[IO]: the mirror ${empty} has no datasets/ folder, so it is not in Hub layout (DIR/datasets/<owner>/<name>/<path>)\n` +
      'hint: check the folder given to --mirror: it is the one holding datasets/\n',
  )
  assert.doesNotMatch(r.stderr, /check the repo name, revision and file path/)
  await mkdir(join(empty, 'datasets'))
  const repo = await inProcess('build-dataset', ['--recipe', FIXTURE_RECIPE, '--mirror', empty, '--out', join(tmp, 'never')])
  assert.equal(repo.status, 6, repo.stderr)
  assert.match(repo.stderr, /^error\[NOT_FOUND\]: the mirror .* has no copy of [\w-]+\/[\w-]+ \(no folder datasets\/[\w-]+\/[\w-]+\)\n/)
  assert.match(repo.stderr, /\nhint: copy [\w-]+\/[\w-]+ into the mirror, or build from the Hub \(without --mirror\)\n$/)
})
