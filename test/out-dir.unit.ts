import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { OUTPUT_FILES } from '../src/emit/outputs.ts'
import { writeOutDir } from '../src/write/out-dir.ts'
import { repairOutDir } from '../src/write/out-repair.ts'
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

test('a swap cut short by a kill is finished by repair: the rest of the files moved in, the manifest last, the old build’s extra files gone', async () => {
  const parent = join(tmp, 'cut-short')
  const out = join(parent, 'out')
  const swap = join(parent, '.out.swap-999999999-0badc0de')
  await mkdir(out, { recursive: true })
  await mkdir(swap)
  // the new build has test.jsonl, val.jsonl and manifest.json; test.jsonl was moved in before the kill
  await writeFile(join(swap, '.files'), 'test.jsonl\nval.jsonl\nmanifest.json\n')
  await writeFile(join(swap, 'val.jsonl'), 'new val\n')
  await writeFile(join(swap, 'manifest.json'), 'new manifest\n')
  await writeFile(join(out, 'test.jsonl'), 'new test\n')
  await writeFile(join(out, 'val.jsonl'), 'old val\n')
  await writeFile(join(out, 'croissant.json'), 'old only\n')
  await writeFile(join(out, 'manifest.json'), 'old manifest\n')
  // put there since the kill, by someone: not a build's, so not the repair's to remove
  await writeFile(join(out, 'notes.txt'), 'mine\n')
  await repairOutDir(out)
  assert.deepEqual(await readdir(parent), ['out'], 'the swap folder is gone')
  assert.deepEqual((await readdir(out)).sort(), ['manifest.json', 'notes.txt', 'test.jsonl', 'val.jsonl'])
  await rm(join(out, 'notes.txt'))
  for (const [f, text] of [
    ['test.jsonl', 'new test\n'],
    ['val.jsonl', 'new val\n'],
    ['manifest.json', 'new manifest\n'],
  ])
    assert.equal(await readFile(join(out, f!), 'utf8'), text)
  // a swap folder of a live process (this one) is its own, and left alone
  const live = join(parent, `.out.swap-${process.pid}-0badc0de`)
  await mkdir(live)
  await writeFile(join(live, '.files'), 'test.jsonl\n')
  await writeFile(join(live, 'test.jsonl'), 'in progress\n')
  await repairOutDir(out)
  assert.equal(await readFile(join(out, 'test.jsonl'), 'utf8'), 'new test\n')
  await rm(live, { recursive: true })
})
