import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { FIXTURE_HUB, FIXTURE_RECIPE, ROOT } from '../helpers/cli.ts'
import { buildFixtureOut, FIXTURE_LOCK } from '../helpers/publish.ts'

test('jev: an unknown command (a helper module, a name Object.prototype has) is a USAGE error listing the commands', () => {
  for (const command of ['run', 'nope', '../cli/run', 'toString', '__proto__']) {
    const r = spawnSync(process.execPath, ['dist/cli/main.js', command, '--help'], { cwd: ROOT, encoding: 'utf8' })
    assert.equal(r.status, 2, `${command}: ${r.stderr}`)
    assert.equal(r.stderr.split('\n')[0], `error[USAGE]: unknown command ${JSON.stringify(command)}`)
    assert.match(
      r.stderr,
      /^hint: one of build-dataset, check-dataset, compare-builds, compare-results, diff-dataset, eval-model, judge, publish-dataset, recipe-schema, screen, serve-hub, verify-dataset$/m,
    )
  }
})

test('recipe-schema: --help prints its usage and writes nothing; an unknown flag is a USAGE error, not a file name', () => {
  const help = spawnSync(process.execPath, ['dist/cli/main.js', 'recipe-schema', '--help'], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(help.status, 0, help.stderr)
  assert.match(help.stdout, /^usage: npm run recipe-schema -- \[FILE\]/)
  const bad = spawnSync(process.execPath, ['dist/cli/main.js', 'recipe-schema', '--bogus'], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(bad.status, 2, bad.stderr)
  assert.match(bad.stderr, /^error\[USAGE\]: unknown option --bogus$/m)
  for (const name of ['--help', '--bogus']) assert.equal(existsSync(join(ROOT, name)), false, `wrote a file named ${name}`)
})

test('a failing CLI delivers all its output to a slow pipe before it exits', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-run-'))
  try {
    const out = join(tmp, 'out')
    await buildFixtureOut(out)
    // 10,000 records that are not in the rebuild: the JSON diff runs far past a pipe's 64 KiB
    const line = (await readFile(join(out, 'test.jsonl'), 'utf8')).split('\n')[0]!
    const extra = Array.from({ length: 10000 }, (_, i) => line.replace(/"id":"[^"]+"/, `"id":"extra-${i}"`)).join('\n')
    await appendFile(join(out, 'test.jsonl'), `${extra}\n`)
    // a reader that starts a second late, as `| (sleep 1; jq …)` does
    const args = [
      'dist/cli/main.js',
      'verify-dataset',
      '--recipe',
      FIXTURE_RECIPE,
      '--lock',
      FIXTURE_LOCK,
      '--mirror',
      FIXTURE_HUB,
      '--out',
      out,
      '--json',
    ]
    const cmd = `set -o pipefail; ${[process.execPath, ...args].map((a) => `'${a}'`).join(' ')} | (sleep 1; cat)`
    const r = spawnSync('bash', ['-c', cmd], { cwd: ROOT, encoding: 'utf8', maxBuffer: 2 ** 26 })
    const status = r.status
    const stdout = r.stdout
    assert.equal(status, 9)
    assert.ok(stdout.length > 65536, `${stdout.length} bytes`)
    const result = JSON.parse(stdout) as { files: { file: string; records?: { removed: string[] } }[] }
    assert.equal(result.files.find((f) => f.file === 'test.jsonl')!.records!.removed.length, 10000)
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
})
