/**
 * `npm test` runs the tests compiled by tsc into .test-build/, which keeps whatever it once emitted: a test
 * deleted or renamed in test/ would still run from its old copy there (a `*.unit.js` through test/unit.test.ts). This names such a copy.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join, sep } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { COMPILED, ROOT } from './helpers/cli.ts'

test('every compiled test has its source in test/', { skip: COMPILED ? false : 'run from source, not compiled' }, async () => {
  const here = fileURLToPath(new URL('.', import.meta.url))
  const stale = (await readdir(here, { recursive: true }))
    .filter((f) => f.endsWith('.test.js') || f.endsWith('.unit.js'))
    .filter((f) => !existsSync(join(ROOT, 'test', f.replace(/\.js$/, '.ts'))))
  assert.deepEqual(stale, [], `compiled tests whose source is gone (remove .test-build/ and run npm test again): ${stale.join(', ')}`)
})

test('every test file is where the npm test script looks: test/*.test.ts or test/*/*.test.ts', async () => {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: { test: string } }
  assert.match(pkg.scripts.test, / \.test-build\/test\/\*\.test\.js \.test-build\/test\/\*\/\*\.test\.js$/)
  const deeper = (await readdir(join(ROOT, 'test'), { recursive: true }))
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => f.split(sep).length > 2)
  assert.deepEqual(deeper, [], 'npm test would not run these')
})
