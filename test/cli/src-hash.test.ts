import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { compiledIsCurrent, srcHash, stampPath } from '../../bin/src-hash.mjs'

let root: string

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'jev-src-hash-'))
  await mkdir(join(root, 'src/cli'), { recursive: true })
  await mkdir(join(root, 'dist'))
  await writeFile(join(root, 'src/a.ts'), 'export const a = 1\n')
  await writeFile(join(root, 'src/cli/b.ts'), 'export const b = 2\n')
})

after(async () => {
  await rm(root, { recursive: true, force: true })
})

test('dist/ runs only when its stamp holds the hash of src/ as it is now, whatever the file times', async () => {
  assert.equal(compiledIsCurrent(root), false, 'no stamp: not compiled')
  await writeFile(stampPath(root), srcHash(root))
  assert.equal(compiledIsCurrent(root), true)

  // an edit dated before the compile (an archive, a copy that keeps times) is still an edit
  const file = join(root, 'src/a.ts')
  const { atime, mtime } = await stat(file)
  await writeFile(file, 'export const a = 3\n')
  await utimes(file, atime, new Date(mtime.getTime() - 86_400_000))
  assert.equal(compiledIsCurrent(root), false, 'a backdated edit makes dist/ stale')
  await writeFile(file, 'export const a = 1\n')
  assert.equal(compiledIsCurrent(root), true, 'the same content again: current')

  // a touched but unchanged file is not a change
  await utimes(file, new Date(), new Date(Date.now() + 86_400_000))
  assert.equal(compiledIsCurrent(root), true, 'a newer time alone does not make dist/ stale')

  // a moved file is a change
  await rename(join(root, 'src/cli/b.ts'), join(root, 'src/b.ts'))
  assert.equal(compiledIsCurrent(root), false, 'a moved file makes dist/ stale')
})
