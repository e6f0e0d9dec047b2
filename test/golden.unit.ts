import assert from 'node:assert/strict'
import { test } from 'node:test'
import { OUTPUT_FILES } from '../src/emit/outputs.ts'
import { fixtureHashes, PIN_COMMAND, readGolden } from './helpers/golden.ts'

test('the fixture build gives exactly the pinned bytes, every output file', async () => {
  const [pinned, now] = await Promise.all([readGolden(), fixtureHashes()])
  assert.deepEqual(Object.keys(pinned), [...OUTPUT_FILES], 'test/fixtures/golden.json pins every output file')
  const changed = OUTPUT_FILES.filter((f) => pinned[f] !== now[f])
  assert.deepEqual(
    changed,
    [],
    `the fixture build's ${changed.join(', ')} changed. If that was not intended, it is a bug: find what changed the output. ` +
      `If it was, run \`${PIN_COMMAND}\` and commit test/fixtures/golden.json — but a change to the built bytes is a change to the data: ` +
      'bump the recipe version (see the README, Development) and rebuild out/.',
  )
})
