import assert from 'node:assert/strict'
import { test } from 'node:test'
import { srcHash } from '../bin/src-hash.mjs'
import { builderId } from '../src/builder-id.ts'
import { ROOT } from './helpers/cli.ts'

test("run from src/, the builder's identity is the hash of src/ that dist's stamp holds", async () => {
  assert.equal(await builderId(), srcHash(ROOT))
  assert.match((await builderId()) ?? '', /^[0-9a-f]{64}$/)
})
