import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { OUTPUT_FILES } from '../src/emit/outputs.ts'
import { writeOutDir } from '../src/write/out-dir.ts'
import { rejectsWith } from './helpers/errors.ts'
import { buildFixtureOut } from './helpers/publish.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-write-'))
})
after(() => rm(tmp, { recursive: true, force: true }))

test('--out naming a folder of other things is refused before the build, and nothing in it is touched', async () => {
  const dir = join(tmp, 'mine')
  await mkdir(dir)
  await writeFile(join(dir, 'notes.txt'), 'keep me\n')
  await writeFile(join(dir, 'test.jsonl'), 'not from a build\n')
  const e = await rejectsWith(buildFixtureOut(dir), 'USAGE', { oneLine: true })
  assert.match(e.message, /refusing to replace .*mine: it holds other things than a build's files \(notes\.txt\)/)
  assert.deepEqual((await readdir(dir)).sort(), ['notes.txt', 'test.jsonl'])
  assert.equal(await readFile(join(dir, 'notes.txt'), 'utf8'), 'keep me\n')
  assert.deepEqual(
    (await readdir(tmp)).filter((e) => e.startsWith('.')),
    [],
    'no temp folder left beside it',
  )
})

test("--out naming a folder of a build's file names but no build, or a symbolic link, is refused", async () => {
  const docs = join(tmp, 'docs')
  await mkdir(docs)
  await writeFile(join(docs, 'README.md'), 'my notes\n')
  const e = await rejectsWith(buildFixtureOut(docs), 'USAGE')
  assert.match(e.message, /it has no manifest\.json written by jev-bench-builder/)
  assert.equal(await readFile(join(docs, 'README.md'), 'utf8'), 'my notes\n')
  const target = join(tmp, 'target')
  await mkdir(target)
  const link = join(tmp, 'link')
  await symlink(target, link)
  assert.match((await rejectsWith(buildFixtureOut(link), 'USAGE')).message, /it is a symbolic link/)
  await symlink(join(tmp, 'nowhere'), join(tmp, 'dangling'))
  await rejectsWith(buildFixtureOut(join(tmp, 'dangling')), 'USAGE')
  assert.deepEqual(await readdir(target), [])
})

test('--out naming a file is refused, and the file stays', async () => {
  const file = join(tmp, 'a-file')
  await writeFile(file, 'data\n')
  await rejectsWith(buildFixtureOut(file), 'USAGE')
  assert.equal(await readFile(file, 'utf8'), 'data\n')
})

test('a new folder, an empty one, or a previous build is written; the swap checks again under its lock', async () => {
  const dir = join(tmp, 'fresh')
  await buildFixtureOut(dir)
  assert.deepEqual((await readdir(dir)).sort(), [...OUTPUT_FILES].sort())
  await buildFixtureOut(dir)
  const empty = join(tmp, 'empty')
  await mkdir(empty)
  await buildFixtureOut(empty)
  assert.deepEqual((await readdir(empty)).sort(), [...OUTPUT_FILES].sort())
  // something that appeared while the build ran
  await writeFile(join(dir, 'late.txt'), 'x')
  await rejectsWith(writeOutDir(dir, new Map([['test.jsonl', '{}\n']])), 'USAGE')
  assert.ok((await readdir(dir)).includes('late.txt'))
})

test('a binary output is written byte for byte beside the text ones', async () => {
  const dir = join(tmp, 'binary')
  const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x0a])
  await writeOutDir(
    dir,
    new Map<string, string | Uint8Array>([
      ['test.jsonl', '{}\n'],
      ['figure.bin', bytes],
    ]),
  )
  assert.deepEqual([...(await readFile(join(dir, 'figure.bin')))], [...bytes])
  assert.equal(await readFile(join(dir, 'test.jsonl'), 'utf8'), '{}\n')
})
