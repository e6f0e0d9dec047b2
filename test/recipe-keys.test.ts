/**
 * Recipe strings that become keys are checked against closed sets: a split's `from` must be one
 * of the source's own `files` keys, and no key or source name may be one Object.prototype has.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildDatasetCli } from '../src/cli/build-dataset.ts'
import { runCli } from '../src/cli/run.ts'
import { isJevError } from '../src/errors.ts'
import { parseRecipe } from '../src/recipe/load.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE } from './helpers/cli.ts'
import { startHubServer } from './helpers/hub-server.ts'

const FIXTURE_TEXT = await readFile(FIXTURE_RECIPE, 'utf8')

/** The fixture recipe as JSON text, with its first source changed by `edit` (a text edit, so "__proto__" stays an own key). */
function variant(edit: (s: Record<string, unknown>) => void, replace?: [string, string]): string {
  const r = JSON.parse(FIXTURE_TEXT) as { sources: Record<string, unknown>[] }
  edit(r.sources[0]!)
  const text = JSON.stringify(r)
  return replace ? text.replace(replace[0], replace[1]) : text
}

const CASES: Array<[string, string, RegExp]> = [
  [
    '"from": "constructor"',
    variant((s) => void ((s.val as { from: string }).from = 'constructor')),
    /\$\.sources\.0\.val\.from: no files listed for split "constructor"/,
  ],
  [
    '"from": "toString"',
    variant((s) => void ((s.val as { from: string }).from = 'toString')),
    /\$\.sources\.0\.val\.from: no files listed for split "toString"/,
  ],
  [
    'a files key "__proto__"',
    variant((s) => void ((s.files as Record<string, unknown>).zzproto = ['data/x.parquet']), ['"zzproto"', '"__proto__"']),
    /\$\.sources\.0\.files\.__proto__: "__proto__" is a reserved name, not a split/,
  ],
  [
    'a files key "constructor"',
    variant((s) => void Object.defineProperty(s.files, 'constructor', { value: ['data/x.parquet'], enumerable: true })),
    /\$\.sources\.0\.files\.constructor: "constructor" is a reserved name, not a split/,
  ],
  ['a source named "constructor"', variant((s) => void (s.name = 'constructor')), /\$\.sources\.0\.name: is a reserved name/],
]

for (const [name, text, says] of CASES) {
  test(`${name}: a RECIPE error at its JSON path`, () => {
    assert.throws(
      () => parseRecipe(JSON.parse(text)),
      (e: unknown) => isJevError(e) && e.code === 'RECIPE' && says.test(e.message),
    )
  })
}

test('through the CLI: "from": "constructor" is error[RECIPE], exit 2, before any request to the Hub', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-recipe-keys-'))
  const server = await startHubServer({ root: FIXTURE_HUB })
  try {
    for (const [, text] of CASES) {
      const recipe = join(tmp, 'recipe.json')
      await writeFile(recipe, text)
      const c = collectIo()
      const status = await runCli(
        () =>
          buildDatasetCli(
            ['--recipe', recipe, '--cache-dir', join(tmp, 'cache'), '--out', join(tmp, 'out')],
            { HF_ENDPOINT: server.url },
            c.io,
          ),
        c.io,
        false,
      )
      assert.equal(status, 2, c.text())
      assert.match(c.err[0]!, /^error\[RECIPE\]: /)
    }
    assert.deepEqual(server.requests, [])
  } finally {
    await server.close()
    await rm(tmp, { recursive: true, force: true })
  }
})
