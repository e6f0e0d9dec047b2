import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { buildToDir } from '../src/build-io.ts'
import { diffRecords } from '../src/check/compare.ts'
import { type DatasetDiff, jsonDiff } from '../src/check/diff.ts'
import { diffDatasetCli } from '../src/cli/diff-dataset.ts'
import { runCli } from '../src/cli/run.ts'
import { ERROR_CODES } from '../src/errors.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE, ROOT, runNode } from './helpers/cli.ts'

let tmp: string
let reference: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-diff-'))
  reference = join(tmp, 'reference')
  const lock = await readLock(join(ROOT, 'test/fixtures/recipe.lock.json'))
  await buildToDir(await loadRecipe(FIXTURE_RECIPE), createMirrorFetcher(FIXTURE_HUB), reference, { lock })
})
after(() => rm(tmp, { recursive: true, force: true }))

/** A copy of the reference build whose test.jsonl records `edit` rewrites (null drops one). */
async function edited(name: string, edit: (r: Record<string, unknown>, i: number) => Record<string, unknown> | null): Promise<string> {
  const dir = join(tmp, name)
  await cp(reference, dir, { recursive: true })
  const lines = (await readFile(join(dir, 'test.jsonl'), 'utf8')).split('\n').filter(Boolean)
  const out = lines
    .map((l, i) => edit(JSON.parse(l), i))
    .filter((r) => r !== null)
    .map((r) => JSON.stringify(r))
  await writeFile(join(dir, 'test.jsonl'), `${out.join('\n')}\n`)
  return dir
}

async function diff(args: string[]) {
  const c = collectIo()
  const status = await runCli(() => diffDatasetCli(args, {}, c.io), c.io)
  return { status, ...c }
}

describe('diff-dataset', () => {
  test('a build and its copy are identical: exit 0, one line', async () => {
    const copy = join(tmp, 'copy')
    await cp(reference, copy, { recursive: true })
    const r = await diff([reference, `${copy}/`])
    assert.equal(r.status, 0)
    assert.deepEqual(r.out, [`ok: ${reference} and ${copy} are identical (9 files)`])
  })

  test('added, removed and changed records, which options, totals by source and option count; exit DIFF', async () => {
    const texts = (await readFile(join(reference, 'test.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
    const [first, second] = [texts[0], texts[1]]
    const dir = await edited('edited', (r, i) =>
      i === 1 ? null : i === 0 ? { ...r, choices: ['NEW', ...(r.choices as string[]).slice(1)] } : r,
    )
    const r = await diff(['--json', reference, dir])
    assert.equal(r.status, ERROR_CODES.DIFF.exit)
    assert.equal(r.status, 11)
    assert.equal(r.out.length, 1, 'one JSON document on stdout')
    const d = JSON.parse(r.out[0]!) as DatasetDiff
    assert.equal(d.identical, false)
    assert.deepEqual(d.records.test.removed, [second.id])
    assert.deepEqual(d.records.test.added, [])
    assert.deepEqual(d.records.test.changed, [
      { id: first.id, fields: ['choices'], options: { added: ['NEW'], removed: [first.choices[0]] } },
    ])
    assert.deepEqual(d.records.val, { added: [], removed: [], changed: [], repeated: [], reordered: false })
    assert.deepEqual(
      d.files.filter((f) => f.status !== 'identical').map((f) => f.file),
      ['test.jsonl'],
    )
    const src = d.bySource[second.source]!
    assert.equal(src.b.test, src.a.test - 1)
    const n = String(second.choices.length)
    assert.equal(d.byChoices.test[n]!.b, d.byChoices.test[n]!.a - 1)
    assert.equal(d.bySource[first.source]!.optionsChanged, 1)
    assert.deepEqual(d.manifest, [], 'the manifest was not edited')
    assert.match(r.err.join('\n'), /^error\[DIFF\]: .* differ \(1 file\)$/m)
    // the text form says the same
    const t = await diff([reference, dir])
    assert.ok(t.out.includes(`    removed ${second.id}`))
    assert.ok(t.out.includes(`    changed ${first.id}: choices (options +"NEW" -${JSON.stringify(first.choices[0])})`), t.out.join('\n'))
  })

  test('a figure that differs is listed as a file, with its sha256 and size on each side', async () => {
    const dir = join(tmp, 'figure')
    await cp(reference, dir, { recursive: true })
    const svg = (await readFile(join(dir, 'option-counts.svg'), 'utf8')).replace('#0072B2', '#000000')
    await writeFile(join(dir, 'option-counts.svg'), svg)
    const r = await diff(['--json', reference, dir])
    assert.equal(r.status, 11)
    const d = JSON.parse(r.out[0]!) as DatasetDiff
    const changed = d.files.filter((f) => f.status !== 'identical')
    assert.deepEqual(
      changed.map((f) => [f.file, f.status, f.b?.bytes]),
      [['option-counts.svg', 'differs', Buffer.byteLength(svg)]],
    )
    assert.deepEqual(
      d.files.map((f) => f.file).filter((f) => f.endsWith('.svg')),
      ['option-counts.svg', 'answer-positions.svg', 'borrowed-options.svg'],
    )
  })

  test("--rev compares a git revision's out/ with a folder, and names the manifest fields that differ", async () => {
    const repo = join(tmp, 'repo')
    await cp(reference, join(repo, 'out'), { recursive: true })
    const git = (...args: string[]) =>
      execFileSync(
        'git',
        ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null', ...args],
        { cwd: repo, stdio: 'pipe' },
      )
    git('init', '-q')
    git('add', '.')
    git('commit', '-qm', 'v1')
    const same = await runNode('diff-dataset.ts', ['--rev', 'HEAD'], {}, repo)
    assert.equal(same.status, 0, same.stderr)
    assert.equal(same.stdout, 'ok: HEAD:out and out are identical (9 files)\n')
    const m = JSON.parse(await readFile(join(repo, 'out/manifest.json'), 'utf8'))
    m.seed += 1
    await writeFile(join(repo, 'out/manifest.json'), JSON.stringify(m))
    const r = await runNode('diff-dataset.ts', ['--rev', 'HEAD', 'out', '--json'], {}, repo)
    assert.equal(r.status, 11, r.stderr)
    const d = JSON.parse(r.stdout) as DatasetDiff
    assert.deepEqual(d.manifest, [{ path: 'seed', a: m.seed - 1, b: m.seed }])
    const bad = await runNode('diff-dataset.ts', ['--rev', 'no-such-rev'], {}, repo)
    assert.equal(bad.status, 2)
    assert.match(bad.stderr, /error\[USAGE\]: --rev "no-such-rev" is not a commit/)
  })

  test('a folder that is not there is one IO error', async () => {
    const r = await diff([reference, join(tmp, 'missing')])
    assert.equal(r.status, ERROR_CODES.IO.exit)
    assert.match(r.err[0]!, /^error\[IO\]: .*missing: no such folder$/)
  })
})

test('jsonDiff: differing leaves by path, and keys on one side only', () => {
  assert.deepEqual(jsonDiff({ a: 1, b: { c: [1, 2] }, d: 'x' }, { a: 1, b: { c: [1, 3] }, e: true }), [
    { path: 'b.c[1]', a: 2, b: 3 },
    { path: 'd', a: 'x' },
    { path: 'e', b: true },
  ])
})

test('diffRecords: reordered options only change no option set', () => {
  const line = (choices: string[]) => `${JSON.stringify({ id: 'x', choices, answer_idx: 0 })}\n`
  assert.deepEqual(diffRecords(line(['a', 'b']), line(['b', 'a'])).changed, [
    { id: 'x', fields: ['choices'], options: { added: [], removed: [] } },
  ])
})
