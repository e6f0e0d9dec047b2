import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { readOutputs } from '../src/check/read-outputs.ts'
import { sha256Hex } from '../src/util/hash.ts'
import { rejectsWith } from './helpers/errors.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-read-outputs-'))
})
after(() => rm(tmp, { recursive: true, force: true }))

/** A folder whose manifest lists test.jsonl as `listed` while the file holds `held`: mid-swap, or left so by a kill. */
async function mixedFolder(name: string, listed: string, held: string): Promise<string> {
  const dir = join(tmp, name)
  await mkdir(dir)
  const manifest = { outputs: [{ path: 'test.jsonl', sha256: sha256Hex(listed), bytes: Buffer.byteLength(listed) }] }
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest))
  await writeFile(join(dir, 'test.jsonl'), held)
  return dir
}
const lockOf = (name: string) => join(tmp, `.${name}.lock`)

test('a folder that disagrees with its manifest while a live build holds its swap lock is read again, not taken as it is', async () => {
  const dir = await mixedFolder('swapping', 'new\n', 'old\n')
  await writeFile(lockOf('swapping'), `${process.pid}@${hostname()} 00\n`)
  const finish = setTimeout(async () => {
    await writeFile(join(dir, 'test.jsonl'), 'new\n')
    await rm(lockOf('swapping'))
  }, 150)
  try {
    const raw = await readOutputs(dir, 10_000)
    assert.equal(raw['test.jsonl']?.toString(), 'new\n', 'the files the swap left, not the mix it passed through')
  } finally {
    clearTimeout(finish)
  }
})

test('a folder swapped throughout the wait is an IO error naming it', async () => {
  const dir = await mixedFolder('stuck', 'new\n', 'old\n')
  await writeFile(lockOf('stuck'), `${process.pid}@${hostname()} 00\n`)
  const e = await rejectsWith(readOutputs(dir, 200), 'IO')
  assert.match(e.message, /stuck was being replaced by builds/)
})

test("a disagreement read while no swap runs, or under a dead build's lock, is the folder's own", async () => {
  const left = await mixedFolder('left', 'new\n', 'old\n')
  assert.equal((await readOutputs(left, 60_000))['test.jsonl']?.toString(), 'old\n')
  const dead = await mixedFolder('dead', 'new\n', 'old\n')
  // pid 2^22 + 1 is above Linux's pid limit, so no process has it
  await writeFile(lockOf('dead'), `${2 ** 22 + 1}@${hostname()} 00\n`)
  assert.equal((await readOutputs(dead, 60_000))['test.jsonl']?.toString(), 'old\n')
})
