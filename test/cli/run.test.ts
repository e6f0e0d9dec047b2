import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { ROOT } from '../helpers/cli.ts'

test('bin/jev.mjs: an unknown command, or the helper module run, is a USAGE error listing the commands', () => {
  for (const command of ['run', 'nope', '../cli/run']) {
    const r = spawnSync(process.execPath, ['bin/jev.mjs', command, '--help'], { cwd: ROOT, encoding: 'utf8' })
    assert.equal(r.status, 2, `${command}: ${r.stderr}`)
    assert.equal(r.stderr.split('\n')[0], `error[USAGE]: unknown command ${JSON.stringify(command)}`)
    assert.match(r.stderr, /^hint: one of build-dataset, check-dataset, publish-dataset, recipe-schema, serve-hub, verify-dataset$/m)
  }
})

test('recipe-schema: --help prints its usage and writes nothing; an unknown flag is a USAGE error, not a file name', () => {
  const help = spawnSync(process.execPath, ['bin/jev.mjs', 'recipe-schema', '--help'], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(help.status, 0, help.stderr)
  assert.match(help.stdout, /^usage: npm run recipe-schema -- \[FILE\]/)
  const bad = spawnSync(process.execPath, ['bin/jev.mjs', 'recipe-schema', '--bogus'], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(bad.status, 2, bad.stderr)
  assert.match(bad.stderr, /^error\[USAGE\]: Unknown option '--bogus'/)
  for (const name of ['--help', '--bogus']) assert.equal(existsSync(join(ROOT, name)), false, `wrote a file named ${name}`)
})
