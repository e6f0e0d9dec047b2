import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { symlinkAtomic, writeFileAtomic } from '../src/util/atomic.ts'
import { rejectsWith } from './helpers/errors.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-atomic-'))
})
after(() => rm(tmp, { recursive: true, force: true }))

test('writeFileAtomic replaces a file whole and leaves no temp file', async () => {
  const path = join(tmp, 'a.json')
  await writeFileAtomic(path, 'one\n')
  await writeFileAtomic(path, 'two\n')
  assert.equal(await readFile(path, 'utf8'), 'two\n')
  assert.deepEqual(await readdir(tmp), ['a.json'])
})

test('a path that cannot be written is an IO error naming it, and nothing is left', async () => {
  const dir = join(tmp, 'taken')
  await mkdir(dir)
  const e = await rejectsWith(writeFileAtomic(dir, 'x'), 'IO')
  assert.ok(e.message.includes(dir), e.message)
  assert.equal(e.context.file, dir)
  assert.deepEqual(await readdir(dir), [])
  assert.deepEqual(
    (await readdir(tmp)).filter((n) => n.startsWith('taken.')),
    [],
  )
})

test('symlinkAtomic points a link anew over whatever is there, and leaves no temp link', async () => {
  const dir = join(tmp, 'links')
  await mkdir(dir)
  const link = join(dir, 'l')
  await symlinkAtomic('first', link)
  await symlinkAtomic('second', link)
  assert.equal(await readlink(link), 'second')
  assert.deepEqual(await readdir(dir), ['l'])
})
