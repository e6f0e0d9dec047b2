import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { test } from 'node:test'
import { pidAlive } from '../src/util/process.ts'

test('this process is alive; one that has exited is not', async () => {
  assert.equal(pidAlive(process.pid), true)
  const child = spawn(process.execPath, ['-e', ''])
  const pid = child.pid!
  await once(child, 'exit')
  assert.equal(pidAlive(pid), false)
  // above Linux's pid_max: no such process
  assert.equal(pidAlive(999_999_999), false)
})
