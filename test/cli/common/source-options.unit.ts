/** The shared source options: the hints of a missing or damaged lock and of a --mirror that is not a folder. */
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { requireFolder, requireLock, type SourceValues } from '../../../src/cli/common/source-options.ts'
import { ERROR_CODES, hintOf, isJevError } from '../../../src/errors.ts'
import { FIXTURE_RECIPE } from '../../helpers/cli.ts'

const values = (lock: string): Pick<SourceValues, 'recipe' | 'lock'> => ({ recipe: FIXTURE_RECIPE, lock })
const caught = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('no error'),
    (e: unknown) => e,
  )

test('a missing lock and a damaged one: LOCK, each with its own hint, not "the sources differ from the lock"', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-source-options-'))
  try {
    const missing = await caught(requireLock(values(join(tmp, 'none.lock.json'))))
    assert.ok(isJevError(missing) && missing.code === 'LOCK')
    assert.equal(hintOf(missing), 'build once (npm run build-dataset) to write it, or name it with --lock FILE')
    for (const [name, text] of [
      ['broken', '{'],
      ['wrong', '{"sources": 3}'],
    ] as const) {
      const path = join(tmp, `${name}.lock.json`)
      await writeFile(path, text)
      const e = await caught(requireLock(values(path)))
      assert.ok(isJevError(e) && e.code === 'LOCK', String(e))
      assert.notEqual(hintOf(e), ERROR_CODES.LOCK.hint)
      assert.match(hintOf(e), /damaged: restore it .* or write it anew with --update-lock/)
    }
    const file = join(tmp, 'a-file')
    await writeFile(file, '')
    const notDir = await caught(requireFolder(file, '--mirror'))
    assert.ok(isJevError(notDir) && notDir.code === 'IO')
    assert.equal(notDir.message, `--mirror ${file}: is not a folder`)
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
})
