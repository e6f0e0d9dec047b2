import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { isJevError, type JevError } from '../src/errors.ts'
import { parseRecipe, recipeHash } from '../src/recipe/load.ts'
import { assertThisBuilder, earlierVersions, type Versions } from '../src/recipe/versions.ts'
import { BUILDER, PACKAGE_ROOT } from '../src/version.ts'
import { runInProcess } from './helpers/cli.ts'

const REAL = join(PACKAGE_ROOT, 'recipes', 'jev-bench.json')
const realJson = () => JSON.parse(readFileSync(REAL, 'utf8')) as Record<string, unknown>
const VERSIONS: Versions = {
  name: 'jev-bench',
  versions: [{ version: '1.0.0', builder: '0.2.0', commit: 'a'.repeat(40), sums: 'jev-bench-1.0.0.sha256' }],
}

function builderError(value: unknown, versions = VERSIONS): JevError {
  try {
    assertThisBuilder(value, 'r.json', versions)
  } catch (e) {
    assert.ok(isJevError(e), `not a JevError: ${e}`)
    assert.equal(e.code, 'BUILDER')
    return e
  }
  assert.fail('the recipe was accepted')
}

describe('a recipe names the builder that builds it', () => {
  test('an earlier published version is refused with the commit that builds it', () => {
    const e = builderError({ name: 'jev-bench', version: '1.0.0' })
    assert.match(e.message, /jev-bench 1\.0\.0 is an earlier version, built by the builder at commit aaaaaaaaaaaa \(0\.2\.0\)/)
    assert.match(String(e.context.hint), /git worktree add \.\.\/jev-bench-1\.0\.0 aaaaaaaaaaaa .*npm ci && npm run build-dataset/)
    assert.equal(e.context.commit, 'a'.repeat(40))
  })

  test('a recipe for another builder is refused; one for this builder, or naming none, is read', () => {
    const e = builderError({ name: 'my-variant', version: '1.0.0', builder: '0.0.1' })
    assert.match(e.message, new RegExp(`for builder 0\\.0\\.1, this is builder ${BUILDER.version.replaceAll('.', '\\.')}`))
    assert.equal(e.context.field, 'builder')
    assertThisBuilder({ name: 'my-variant', version: '1.0.0', builder: BUILDER.version }, 'r.json', VERSIONS)
    assertThisBuilder({ name: 'jev-bench', version: '9.9.9' }, 'r.json', VERSIONS)
  })

  test('the committed recipe names this builder, and `builder` does not enter the content hash', () => {
    const raw = realJson()
    assert.equal(raw.builder, BUILDER.version)
    const { builder: _, ...without } = raw
    assert.equal(recipeHash(parseRecipe(raw)), recipeHash(parseRecipe(without)))
  })

  test('parseRecipe refuses each earlier version the package lists', () => {
    for (const v of earlierVersions().versions) {
      const e = (() => {
        try {
          parseRecipe({ ...realJson(), version: v.version })
        } catch (err) {
          return err as JevError
        }
        assert.fail(`${v.version} was accepted`)
      })()
      assert.equal(e.code, 'BUILDER')
      assert.equal(e.context.commit, v.commit)
    }
  })

  test('recipes/versions.json: every earlier version has its sums, and is not the current version', () => {
    const current = realJson().version
    const seen = new Set<string>()
    for (const v of earlierVersions().versions) {
      assert.notEqual(v.version, current)
      assert.ok(!seen.has(v.version), `${v.version} listed twice`)
      seen.add(v.version)
      const sums = readFileSync(join(PACKAGE_ROOT, 'recipes', v.sums), 'utf8')
      assert.match(sums, /^[0-9a-f]{64} {2}test\.jsonl\n[0-9a-f]{64} {2}val\.jsonl\n$/, v.sums)
    }
  })

  test('each commit is in this clone and builds the version it is listed for', (t) => {
    if (!existsSync(join(PACKAGE_ROOT, '.git'))) return t.skip('not a git checkout')
    const git = (...args: string[]) => execFileSync('git', ['-C', PACKAGE_ROOT, ...args], { encoding: 'utf8' })
    if (git('rev-parse', '--is-shallow-repository').trim() === 'true') return t.skip('a shallow clone lacks the commits')
    for (const v of earlierVersions().versions) {
      const recipe = JSON.parse(git('show', `${v.commit}:recipes/jev-bench.json`))
      assert.equal(recipe.version, v.version, `${v.commit} builds ${recipe.version}`)
      assert.equal(JSON.parse(git('show', `${v.commit}:package.json`)).version, v.builder, `${v.version}: builder`)
    }
  })

  test("a variant that keeps an earlier version's rules under this builder's number is BUILDER, naming the fields and the commits", () => {
    const recipeError = (edit: (r: Record<string, any>) => void): JevError => {
      const raw = { ...realJson(), name: 'my-variant' } as Record<string, any>
      edit(raw)
      try {
        parseRecipe(raw, 'v.json')
      } catch (e) {
        assert.ok(isJevError(e))
        return e
      }
      assert.fail('the recipe was accepted')
    }
    // 1.2.0's fallback levels, and lending without the plausible rule (1.1.0's walk)
    const fallback = recipeError((r) => {
      r.distractors.borrow.plausible.fallback = [{ minFit: 0.1 }]
    })
    assert.equal(fallback.code, 'BUILDER')
    assert.match(
      fallback.message,
      /^v\.json: follows rules only an earlier builder has \(at \$\.distractors\.borrow\.plausible\.fallback\)/,
    )
    for (const v of earlierVersions().versions) assert.ok(String(fallback.context.hint).includes(v.commit.slice(0, 12)), v.version)
    const walk = recipeError((r) => {
      delete r.distractors.borrow.plausible
      r.distractors.borrow.maxLenders = 20
    })
    assert.equal(walk.code, 'BUILDER')
    assert.match(walk.message, /\(at \$\.distractors\.borrow\.maxLenders, \$\.distractors\.borrow\.plausible\)/)
    // an earlier rule beside an ordinary mistake: RECIPE, listing both
    const mixed = recipeError((r) => {
      r.distractors.borrow.maxLenders = 20
      r.seed = 'x'
    })
    assert.equal(mixed.code, 'RECIPE')
    assert.match(
      mixed.message,
      /at \$\.distractors\.borrow\.maxLenders: a rule only an earlier builder has; this builder allows only 10 here/,
    )
    assert.match(mixed.message, /at \$\.seed: /)
  })

  test('build-dataset with an earlier recipe: one error line naming the commit, exit 2, nothing built', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jev-versions-'))
    const v = earlierVersions().versions[0]!
    writeFileSync(join(dir, 'old.json'), JSON.stringify({ ...realJson(), version: v.version }))
    const r = await runInProcess('build-dataset', ['--recipe', join(dir, 'old.json'), '--out', join(dir, 'out'), '--offline'])
    assert.equal(r.status, 2, r.stderr)
    assert.match(
      r.stderr,
      new RegExp(
        `^error\\[BUILDER\\]: .*old\\.json: jev-bench ${v.version} is an earlier version, built by the builder at commit ${v.commit.slice(0, 12)}`,
        'm',
      ),
    )
    assert.match(r.stderr, /^hint: git worktree add /m)
    assert.ok(!existsSync(join(dir, 'out')))
  })
})
