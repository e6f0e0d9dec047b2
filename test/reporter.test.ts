/**
 * npm test's reporter (test/helpers/reporter.ts), on a run of node's test runner of its own over three test files
 * written here: a failure in full with its file, a passing test only counted, a skipped one named with its reason,
 * a failing file's output shown and a passing one's dropped, node's closing lines, and the run's exit status.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { COMPILED, childEnv, ownFile } from './helpers/cli.ts'

const FILES: Record<string, string> = {
  'pass.test.mjs': `import { test } from 'node:test'
console.log('noise from a passing file')
test('a passing test', () => {})
test('needs a folder', { skip: 'no ../pyhub' }, () => {})
`,
  // a suite whose tests are in another file, as test/unit.test.ts has them
  'fail.test.mjs': `import { describe } from 'node:test'
console.error('written by the failing file')
describe('a suite', async () => {
  await import('./tests.mjs')
})
`,
  'tests.mjs': `import assert from 'node:assert/strict'
import { test } from 'node:test'
test('passes too', () => {})
test('compares', (t) => {
  t.diagnostic('what was tried')
  assert.deepEqual({ n: 1, list: [1, 2] }, { n: 1, list: [1, 3] })
})
`,
  'crash.test.mjs': `process.stderr.write('crashed on purpose\\n')
process.exit(3)
`,
}

// Node 20 loads a reporter before any --import hook, so tsx cannot give it the TypeScript source
const skip = COMPILED ? false : 'run from source: node 20 loads a reporter without tsx, so only its compiled form (npm test) runs'

test('a failure in full with its file, passes counted, skips named, then node’s closing lines; the run still fails', { skip }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'jev-reporter-'))
  try {
    for (const [name, text] of Object.entries(FILES)) await writeFile(join(dir, name), text)
    const r = spawnSync(
      process.execPath,
      ['--test', `--test-reporter=${ownFile('test/helpers/reporter.ts')}`, ...Object.keys(FILES).filter((f) => f.endsWith('.test.mjs'))],
      {
        cwd: dir,
        env: childEnv({ JEV_TEST_FULL: '0' }),
        encoding: 'utf8',
        timeout: 60_000,
      },
    )
    assert.equal(r.status, 1, r.stdout + r.stderr)
    const out = r.stdout
    // the failure: its suite and name, where it is, the assertion's diff and stack, its diagnostic
    assert.match(out, /^✖ a suite › compares\n {2}test at tests\.mjs:4:1\n {2}AssertionError \[ERR_ASSERTION\]/m)
    assert.match(out, /^ {2}\+ {5}2\n {2}- {5}3$/m)
    assert.match(out, /^ {6}at .*tests\.mjs:6:\d+\)$/m)
    assert.match(out, /^ {2}ℹ what was tried$/m)
    // a file whose process failed outside any test, and what the failing files wrote
    assert.match(out, /^✖ test file crash\.test\.mjs\n {2}the file's process exited with code 3$/m)
    assert.match(out, /written by the failing file/)
    assert.match(out, /crashed on purpose/)
    // the list of failures at the end, in the order the files finished
    const listed = out.split('\nfailing tests:\n')[1]?.split('\n\n')[0]?.split('\n')
    assert.deepEqual(listed?.sort(), ['✖ a suite › compares (tests.mjs:4:1)', '✖ test file crash.test.mjs'])
    // a passing test, and what its file wrote, do not appear; a skipped one does, with its reason
    for (const gone of ['a passing test', 'passes too', 'noise from a passing file']) assert.ok(!out.includes(gone), gone)
    assert.match(out, /^skipped: needs a folder — no \.\.\/pyhub \(pass\.test\.mjs\)$/m)
    assert.match(out, /^the tests that repeat one check ran a part of their cases; JEV_TEST_FULL=1 runs them all$/m)
    // the closing lines, as node's spec reporter ends, then the plain count
    const closing = out.trimEnd().split('\n').slice(-9)
    assert.deepEqual(closing.slice(0, 7), ['ℹ tests 5', 'ℹ suites 1', 'ℹ pass 2', 'ℹ fail 2', 'ℹ cancelled 0', 'ℹ skipped 1', 'ℹ todo 0'])
    assert.match(closing[7]!, /^ℹ duration_ms \d+(\.\d+)?$/)
    assert.equal(closing[8], '2 passed, 2 failed, 1 skipped')
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
