import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { writeAtomic } from '../src/util/atomic.ts'
import { makeDirs } from '../src/util/files.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-files-'))
})
after(async () => {
  await rm(tmp, { recursive: true, force: true })
})

test('makes every missing level, and is content with folders that exist', async () => {
  const deep = join(tmp, 'a', 'b', 'c')
  assert.deepEqual(await makeDirs(deep), [join(tmp, 'a'), join(tmp, 'a', 'b'), deep], 'the folders it made, outermost first')
  assert.ok((await stat(deep)).isDirectory())
  assert.deepEqual(await makeDirs(deep), [])
  assert.deepEqual(await makeDirs(join(deep, 'd')), [join(deep, 'd')])
  assert.deepEqual(await makeDirs(tmp), [])
})

test('a file in the way is an error, not a folder', async () => {
  const file = join(tmp, 'file')
  await writeFile(file, 'x')
  await assert.rejects(makeDirs(file), { code: 'EEXIST' })
  await assert.rejects(makeDirs(join(file, 'below')), { code: 'ENOTDIR' })
})

test('where mkdir answers ENOENT under a parent that exists (/proc), it fails instead of spinning', {
  skip: !existsSync('/proc/self'),
  timeout: 10_000,
}, async () => {
  await assert.rejects(makeDirs('/proc/jev-no-such/out'), { code: 'ENOENT' })
  await assert.rejects(makeDirs('/proc/jev-no-such'), { code: 'ENOENT' })
})

test('writeAtomic makes the folders, replaces the file whole and leaves no temp file', async () => {
  const dir = join(tmp, 'w', 'x')
  const file = join(dir, 'f.json')
  await writeAtomic(file, 'one')
  await writeAtomic(file, 'two', 'incomplete')
  assert.equal(await readFile(file, 'utf8'), 'two')
  assert.deepEqual(await readdir(dir), ['f.json'])
  await assert.rejects(writeAtomic(join(file, 'below'), 'x'), { code: 'EEXIST' })
  assert.deepEqual(await readdir(dir), ['f.json'], 'a failed write leaves nothing')
})
