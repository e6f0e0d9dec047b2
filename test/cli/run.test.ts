import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
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
