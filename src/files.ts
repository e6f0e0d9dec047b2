import { randomBytes } from 'node:crypto'
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'

/**
 * `mkdir -p`, one level at a time. Node's own recursive mkdir spins forever
 * where mkdir answers ENOENT under a parent that exists (as under /proc), so
 * a bad `--out` or cache path would hang the build instead of failing.
 * Returns the folders it made, outermost first.
 */
export async function makeDirs(dir: string): Promise<string[]> {
  let made: string[]
  try {
    await mkdir(dir)
    return [dir]
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EEXIST' && (await stat(dir)).isDirectory()) return []
    const parent = dirname(dir)
    if (code !== 'ENOENT' || parent === dir) throw e
    made = await makeDirs(parent)
  }
  // the parent exists now: a second ENOENT is the answer, not a missing parent
  try {
    await mkdir(dir)
    return [...made, dir]
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(dir)).isDirectory()) throw e
    return made
  }
}

/**
 * Writes via a temp name unique to this process and call, then a rename, so
 * readers and concurrent writers never see a partial file. `suffix` names the
 * temp file's kind (the HF cache calls them `.incomplete`).
 */
export async function writeAtomic(path: string, data: Uint8Array | string, suffix = 'tmp'): Promise<void> {
  await makeDirs(dirname(path))
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.${suffix}`
  try {
    await writeFile(tmp, data)
    await rename(tmp, path)
  } catch (e) {
    await rm(tmp, { force: true })
    throw e
  }
}
