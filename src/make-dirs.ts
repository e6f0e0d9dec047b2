import { mkdir, stat } from 'node:fs/promises'
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
