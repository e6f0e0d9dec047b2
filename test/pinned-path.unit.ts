/**
 * Every file a recipe pins — word vectors, screen, judged rates, the previous version's recipe — goes
 * through one check that keeps it in the recipe's folder: `..` or an absolute path is refused when the
 * recipe is read, a symbolic link out of the folder when the file is opened, and no error echoes a line
 * of a file from elsewhere.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { isJevError } from '../src/errors.ts'
import { loadRecipe, parseRecipe, pinnedResource } from '../src/recipe/load.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE, ROOT, runInProcess } from './helpers/cli.ts'

const SECRET = 'SECRET-LINE-1f3a'
let tmp: string
let recipes: string
let outside: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-pinned-'))
  recipes = join(tmp, 'recipes')
  outside = join(tmp, 'outside')
  await mkdir(recipes)
  await mkdir(outside)
  await writeFile(join(outside, 'secret.json'), `${SECRET}\nsecond line\n`)
})
after(() => rm(tmp, { recursive: true, force: true }))

const fixture = async () => JSON.parse(await readFile(FIXTURE_RECIPE, 'utf8')) as Record<string, unknown>

async function writeRecipe(name: string, edit: (r: Record<string, unknown>) => void): Promise<string> {
  const r = await fixture()
  edit(r)
  const file = join(recipes, name)
  await writeFile(file, JSON.stringify(r, null, 2))
  return file
}

/** A build of `recipe` from the command line: its exit status and all it printed. */
async function build(recipe: string): Promise<{ status: number | null; text: string }> {
  const lock = join(ROOT, 'test/fixtures/recipe.lock.json')
  const r = await runInProcess('build-dataset', ['--recipe', recipe, '--lock', lock, '--mirror', FIXTURE_HUB, '--out', join(tmp, 'out')])
  return { status: r.status, text: r.stdout + r.stderr }
}

test('changesFrom.recipe leading out of the folder is a RECIPE error at its JSON path, and the foreign file is never read or echoed', async () => {
  for (const path of ['../outside/secret.json', '../../../../../etc/passwd', join(outside, 'secret.json')]) {
    const file = await writeRecipe('leaves.json', (r) => {
      r.changesFrom = { version: '0.9.0', recipe: path, note: 'what changed' }
    })
    const { status, text } = await build(file)
    assert.equal(status, 2, text)
    assert.match(
      text,
      /error\[RECIPE\]: invalid recipe .*leaves\.json:\n {2}at \$\.changesFrom\.recipe: must be a relative path inside the recipe's folder/,
    )
    assert.ok(!text.includes(SECRET) && !text.includes('root:'), text)
  }
})

test('each pinned path is held to the same rule when the recipe is read', async () => {
  const r = await fixture()
  r.judged = { path: '../judged.json', sha256: '0'.repeat(64) }
  r.changesFrom = { version: '0.9.0', recipe: '/etc/passwd', note: 'x' }
  r.distractors = {
    borrow: {
      rule: 'similar',
      plausible: {
        vectors: { path: 'a/../../v.txt.gz', sha256: '0'.repeat(64), from: 'x' },
        screened: { path: './s.json', sha256: '0'.repeat(64) },
      },
    },
  }
  try {
    parseRecipe(r)
    assert.fail('accepted')
  } catch (e) {
    assert.ok(isJevError(e) && e.code === 'RECIPE', String(e))
    for (const at of [
      'judged.path',
      'changesFrom.recipe',
      'distractors.borrow.plausible.vectors.path',
      'distractors.borrow.plausible.screened.path',
    ])
      assert.match(e.message, new RegExp(`at \\$\\.${at.replaceAll('.', '\\.')}: must be a relative path inside the recipe's folder`))
  }
  // a subfolder of the recipe's folder is inside it
  const inside = await fixture()
  inside.judged = { path: 'judging/rates.json', sha256: '0'.repeat(64) }
  assert.doesNotThrow(() => parseRecipe(inside))
})

test('a symbolic link in the folder that leads out of it is refused when the file is opened, for the judged rates and the others', async () => {
  await symlink(join(outside, 'secret.json'), join(recipes, 'previous.json'))
  await symlink(outside, join(recipes, 'shelf'))
  const file = await writeRecipe('linked.json', (r) => {
    r.judged = { path: 'previous.json', sha256: '0'.repeat(64) }
  })
  const { status, text } = await build(file)
  assert.equal(status, 2, text)
  assert.match(
    text,
    /error\[RECIPE\]: .*linked\.json: judged rates "previous\.json" leads out of the recipe's folder through a symbolic link/,
  )
  assert.ok(!text.includes(SECRET), text)
  const recipe = await loadRecipe(await writeRecipe('plain.json', () => {}))
  for (const path of ['previous.json', 'shelf/secret.json'])
    assert.throws(
      () => pinnedResource(recipe, path, 'judged.path'),
      (e: unknown) => isJevError(e) && e.code === 'RECIPE' && /judged\.path .* leads out of the recipe's folder/.test(e.message),
    )
  // a file that is really in the folder, or not there yet (reading it fails on its own), resolves beside the recipe
  await writeFile(join(recipes, 'rates.json'), '{}')
  assert.equal(pinnedResource(recipe, 'rates.json', 'judged.path'), join(recipes, 'rates.json'))
  assert.equal(pinnedResource(recipe, 'later.json', 'judged.path'), join(recipes, 'later.json'))
})
