import { constants } from 'node:fs'
import { mkdir, open, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { JevError } from '../errors.ts'

function notRegular(path: string, st: import('node:fs').Stats): JevError {
  const kind = st.isDirectory()
    ? 'a folder'
    : st.isFIFO()
      ? 'a FIFO'
      : st.isCharacterDevice() || st.isBlockDevice()
        ? 'a device'
        : st.isSocket()
          ? 'a socket'
          : 'not a file'
  return new JevError('IO', `${path} is ${kind}, not a regular file; refusing to read it`, { file: path })
}

/** An IO error at once when `path` exists and is not a regular file (a missing one is left to the reader). */
export async function refuseIrregular(path: string): Promise<void> {
  const st = await stat(path).catch(() => null)
  if (st && !st.isFile()) throw notRegular(path, st)
}

/**
 * A whole regular file in one read call (readFile's 512 KB steps cost seconds on files of
 * hundreds of MB). Opened non-blocking and checked before reading, so a FIFO, a device or a
 * folder where a file should be is an IO error at once rather than a read that never ends.
 */
export async function readRegular(path: string): Promise<Buffer> {
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const st = await fh.stat()
    if (!st.isFile()) throw notRegular(path, st)
    const bytes = Buffer.allocUnsafe(st.size)
    let at = 0
    while (at < st.size) {
      const { bytesRead } = await fh.read(bytes, at, st.size - at, at)
      if (bytesRead === 0) break
      at += bytesRead
    }
    // a file that shrank while read is reported by its length, and fails the hash checks downstream
    return at === st.size ? bytes : bytes.subarray(0, at)
  } finally {
    await fh.close()
  }
}

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
