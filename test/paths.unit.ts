/**
 * Paths may not leave their root: recipe file paths and repo names are refused
 * when the recipe is read (before any fetch), and the mirror refuses paths,
 * repo names and symbolic links that lead out of it.
 */
import assert from 'node:assert/strict'
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { buildFromSources } from '../src/build-io.ts'
import { buildDatasetCli } from '../src/cli/build-dataset.ts'
import { runCli } from '../src/cli/run.ts'
import type { OutputContent } from '../src/emit/outputs.ts'
import { isJevError } from '../src/errors.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import type { FileFetcher } from '../src/fetch/types.ts'
import { loadRecipe, parseRecipe } from '../src/recipe/load.ts'
import { type Lock, readLock } from '../src/recipe/lock.ts'
import type { Recipe } from '../src/recipe/schema.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE, ROOT } from './helpers/cli.ts'

const ARC = 'allenai/ai2_arc'
const ARC_TEST = 'ARC-Challenge/test-00000-of-00001.parquet'
const REV = '210d026faf9955653af8916fad021475a3f00453'

let tmp: string
let recipe: Recipe
let recipeJson: { sources: { name: string; repo: string; files: Record<string, string[]> }[] }
let lock: Lock
let reference: Map<string, OutputContent>

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-paths-'))
  recipe = await loadRecipe(FIXTURE_RECIPE)
  recipeJson = JSON.parse(await readFile(FIXTURE_RECIPE, 'utf8'))
  lock = (await readLock(join(ROOT, 'test/fixtures/recipe.lock.json')))!
  reference = (await buildFromSources(recipe, createMirrorFetcher(FIXTURE_HUB), { lock })).files
})
after(() => rm(tmp, { recursive: true, force: true }))

/** A fetcher that fails the test if anything is fetched at all. */
const noFetch: FileFetcher = {
  kind: 'mirror',
  fetchFile: (repo, _revision, path) => assert.fail(`fetched ${repo}/${path}`),
}

function withRecipe(edit: (r: typeof recipeJson) => void): typeof recipeJson {
  const r = structuredClone(recipeJson)
  edit(r)
  return r
}

function recipeIssues(value: unknown): { path: string; message: string }[] {
  try {
    parseRecipe(value, 'edited.json')
  } catch (e) {
    assert.ok(isJevError(e), String(e))
    assert.equal(e.code, 'RECIPE')
    return e.context.issues as { path: string; message: string }[]
  }
  return assert.fail('the recipe was accepted')
}

describe('recipe paths', () => {
  // arc_challenge is sources[2]; its test files are sources.2.files.test
  const escaping = [
    '../x.parquet',
    '../../../../etc/passwd',
    'ARC-Challenge/../../x.parquet',
    '/etc/passwd',
    '/abs/ARC-Challenge/test.parquet',
    './ARC-Challenge/test.parquet',
    'ARC-Challenge//test.parquet',
    '..\\..\\x.parquet',
    'ARC-Challenge/..',
  ]

  for (const bad of escaping) {
    test(`files path ${JSON.stringify(bad)}: RECIPE error at $.sources.2.files.test.0`, () => {
      const issues = recipeIssues(withRecipe((r) => (r.sources[2]!.files.test = [bad])))
      assert.deepEqual(
        issues.map((i) => i.path),
        ['sources.2.files.test.0'],
      )
      assert.match(issues[0]!.message, /relative path inside the repo/)
    })
  }

  test('repo names with a "." or ".." part, a leading "/" or more than owner/name: RECIPE error at $.sources.N.repo', () => {
    for (const bad of ['allenai/..', 'allenai/.', '../ai2_arc', 'allenai/../..', '/allenai/ai2_arc', 'allenai/ai2_arc/..']) {
      const issues = recipeIssues(withRecipe((r) => (r.sources[3]!.repo = bad)))
      assert.deepEqual(
        issues.map((i) => i.path),
        ['sources.3.repo'],
        bad,
      )
    }
    // names that merely contain dots are fine
    for (const ok of ['allenai/ai2_arc', 'a.b/c..d', 'allenai/...x'])
      parseRecipe(
        withRecipe((r) => (r.sources[3]!.repo = ok)),
        'ok.json',
      )
  })

  test('a bad path stops the build before any fetch, through the CLI: error[RECIPE] at the JSON path, exit 2', async () => {
    const file = join(tmp, 'escape.json')
    await writeFile(file, JSON.stringify(withRecipe((r) => (r.sources[0]!.files.validation = ['data/../../../../secret.parquet']))))
    // a parsed recipe never reaches buildFromSources; and had it been fetched, an empty mirror would say NOT_FOUND
    const emptyMirror = join(tmp, 'empty-mirror')
    await mkdir(join(emptyMirror, 'datasets'), { recursive: true })
    const io = collectIo()
    const status = await runCli(
      () => buildDatasetCli(['--recipe', file, '--mirror', emptyMirror, '--out', join(tmp, 'escape-out')], {}, io.io),
      io.io,
      false,
    )
    assert.equal(status, 2, io.text())
    assert.match(io.err[0]!, /^error\[RECIPE\]: invalid recipe .*escape\.json:$/)
    assert.ok(
      io.err.some((l) => l.startsWith('  at $.sources.0.files.validation.0: must be a relative path inside the repo')),
      io.text(),
    )
    assert.ok(!io.text().includes('NOT_FOUND'))
    // and in-process: loadRecipe throws, so the no-fetch fetcher is never reached
    await assert.rejects(
      loadRecipe(file).then((r) => buildFromSources(r, noFetch, { lock: null })),
      (e: unknown) => isJevError(e) && e.code === 'RECIPE',
    )
  })
})

describe('the mirror', () => {
  /** A copy of the fixture mirror inside `tmp/<name>/mirror`, with `tmp/<name>/outside` next to it. */
  async function mirrorCopy(name: string) {
    const base = join(tmp, name)
    const mirror = join(base, 'mirror')
    const outside = join(base, 'outside')
    await cp(FIXTURE_HUB, mirror, { recursive: true })
    await mkdir(outside, { recursive: true })
    return { mirror, outside, arcTest: join(mirror, 'datasets', ARC, ARC_TEST) }
  }

  async function expectIo(p: Promise<unknown>, re: RegExp) {
    await assert.rejects(p, (e: unknown) => {
      assert.ok(isJevError(e), String(e))
      assert.equal(e.code, 'IO', e.message)
      assert.match(e.message, re)
      return true
    })
  }

  test('a symlinked file pointing outside the mirror is refused (IO), even though the bytes are the real ones', async () => {
    const { mirror, outside, arcTest } = await mirrorCopy('link-out')
    const target = join(outside, 'test.parquet')
    await cp(arcTest, target)
    await rm(arcTest)
    await symlink(target, arcTest)
    await expectIo(createMirrorFetcher(mirror).fetchFile(ARC, REV, ARC_TEST), /links outside/)
    await expectIo(
      buildFromSources(recipe, createMirrorFetcher(mirror), { lock }),
      /mirror file allenai\/ai2_arc\/ARC-Challenge\/test-00000-of-00001\.parquet links outside/,
    )
    // a relative link out is the same
    await rm(arcTest)
    await symlink('../../../../../outside/test.parquet', arcTest)
    assert.ok((await readFile(arcTest)).length > 0, 'the relative link resolves')
    await expectIo(createMirrorFetcher(mirror).fetchFile(ARC, REV, ARC_TEST), /links outside/)
  })

  test('a symlinked folder pointing outside the mirror is refused (IO)', async () => {
    const { mirror, outside } = await mirrorCopy('dirlink-out')
    const dir = join(mirror, 'datasets', ARC, 'ARC-Challenge')
    await cp(dir, join(outside, 'ARC-Challenge'), { recursive: true })
    await rm(dir, { recursive: true })
    await symlink(join(outside, 'ARC-Challenge'), dir)
    await expectIo(createMirrorFetcher(mirror).fetchFile(ARC, REV, ARC_TEST), /links outside/)
  })

  test('the CLI: a link out of the mirror is error[IO], exit 7', async () => {
    const { mirror, outside, arcTest } = await mirrorCopy('link-out-cli')
    await cp(arcTest, join(outside, 'x.parquet'))
    await rm(arcTest)
    await symlink(join(outside, 'x.parquet'), arcTest)
    const io = collectIo()
    const status = await runCli(
      () => buildDatasetCli(['--recipe', FIXTURE_RECIPE, '--mirror', mirror, '--out', join(tmp, 'link-out-cli-out')], {}, io.io),
      io.io,
      false,
    )
    assert.equal(status, 7, io.text())
    assert.match(io.err[0]!, /^error\[IO\]: mirror file allenai\/ai2_arc\/ARC-Challenge\/test-00000-of-00001\.parquet links outside /)
    assert.equal(io.err[1], 'hint: check the path and its permissions')
  })

  test('symlinks that stay inside the mirror are followed: the same build as the reference', async () => {
    const { mirror, arcTest } = await mirrorCopy('link-in')
    // a file linked to a copy elsewhere in the mirror (absolute link), and one by a relative link
    const store = join(mirror, 'blobs')
    await mkdir(store)
    await cp(arcTest, join(store, 'arc-c-test'))
    await rm(arcTest)
    await symlink(join(store, 'arc-c-test'), arcTest)
    const boolq = join(mirror, 'datasets/google/boolq/data/validation-00000-of-00001.parquet')
    await cp(boolq, join(store, 'boolq'))
    await rm(boolq)
    await symlink('../../../../blobs/boolq', boolq)
    // and a whole folder linked inside
    const easy = join(mirror, 'datasets', ARC, 'ARC-Easy')
    await cp(easy, join(store, 'ARC-Easy'), { recursive: true })
    await rm(easy, { recursive: true })
    await symlink(join(store, 'ARC-Easy'), easy)

    const built = await buildFromSources(recipe, createMirrorFetcher(mirror), { lock })
    assert.deepEqual(built.warnings, [])
    for (const [name, content] of reference) assert.equal(built.files.get(name), content, name)
  })

  test('the mirror itself may be reached through a symlink', async () => {
    const { mirror } = await mirrorCopy('mirror-via-link')
    const link = join(tmp, 'mirror-link')
    await symlink(mirror, link)
    const built = await buildFromSources(recipe, createMirrorFetcher(link), { lock })
    assert.equal(built.files.get('test.jsonl'), reference.get('test.jsonl'))
  })

  test('repo names and paths cannot leave the repo folder, even when the file they reach exists (IO, not NOT_FOUND)', async () => {
    const { mirror, outside } = await mirrorCopy('names')
    const fetcher = createMirrorFetcher(mirror)
    // files where each escape would land
    await writeFile(join(mirror, 'secret.parquet'), 'inside the mirror, outside datasets/')
    await writeFile(join(mirror, 'datasets', 'secret.parquet'), 'in datasets/, outside any repo')
    await writeFile(join(mirror, 'datasets', 'allenai', 'secret.parquet'), 'in the owner folder')
    await writeFile(join(outside, 'secret.parquet'), 'outside the mirror')
    const cases: [string, string][] = [
      ['owner/../..', 'secret.parquet'], // → mirror/secret.parquet
      ['allenai/..', 'secret.parquet'], // → mirror/datasets/secret.parquet
      ['allenai/.', 'secret.parquet'], // → mirror/datasets/allenai/secret.parquet
      ['../..', 'outside/secret.parquet'],
      ['allenai', 'secret.parquet'],
      ['a/b/c', 'x.parquet'],
      [ARC, '../secret.parquet'],
      [ARC, '../../../../outside/secret.parquet'],
      [ARC, join(outside, 'secret.parquet')],
      [ARC, '/etc/passwd'],
    ]
    for (const [repo, path] of cases) await expectIo(fetcher.fetchFile(repo, REV, path), /leaves the repo's folder/)
    // sanity: the same fetcher reads a plain path
    const ok = await fetcher.fetchFile(ARC, REV, ARC_TEST)
    assert.equal(ok.size, (await readFile(join(mirror, 'datasets', ARC, ARC_TEST))).length)
  })

  test('a file whose name merely starts with ".." is inside its folder and is read', async () => {
    const { mirror, arcTest } = await mirrorCopy('dotdot-name')
    const odd = join(dirname(arcTest), '..odd.parquet')
    await cp(arcTest, odd)
    const f = await createMirrorFetcher(mirror).fetchFile(ARC, REV, 'ARC-Challenge/..odd.parquet')
    assert.equal(f.size, (await readFile(arcTest)).length)
    // and a recipe may name it
    parseRecipe(
      withRecipe((r) => (r.sources[2]!.files.test = ['ARC-Challenge/..odd.parquet'])),
      'odd.json',
    )
  })
})
