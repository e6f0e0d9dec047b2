import { randomBytes } from 'node:crypto'
import { constants, rmSync } from 'node:fs'
import { mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { JevError } from './errors.ts'

function notRegular(path: string, st: import('node:fs').Stats): JevError {
  const kind = st.isDirectory() ? 'a folder' : st.isFIFO() ? 'a FIFO' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : st.isSocket() ? 'a socket' : 'not a file'
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

/**
 * Writes via a temp name unique to this process and call, then a rename, so
 * readers and concurrent writers never see a partial file. `suffix` names the
 * temp file's kind (the HF cache calls them `.incomplete`).
 */
export async function writeAtomic(path: string, data: Uint8Array | string, suffix = 'tmp'): Promise<void> {
  await makeDirs(dirname(path))
  const tmp = tempPath(path, suffix)
  try {
    await writeFile(tmp, data)
    await rename(tmp, path)
  } catch (e) {
    await rm(tmp, { force: true })
    throw e
  } finally {
    pending.delete(tmp)
  }
}

/** Temp paths this process has not yet renamed or removed: a process that exits (a CLI after an error) takes them along. */
const pending = new Set<string>()
let removeOnExit = false

/**
 * `<path>.<pid>.<12 hex>.<suffix>`: unique per process and call, and removed if the process exits
 * before the caller renames it (then call `settled`). SIGKILL leaves it: see removeStaleTemps.
 */
export function tempPath(path: string, suffix: string): string {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.${suffix}`
  pending.add(tmp)
  if (!removeOnExit) {
    removeOnExit = true
    // synchronous, as 'exit' handlers must be
    process.on('exit', () => {
      for (const p of pending) rmSync(p, { force: true })
    })
  }
  return tmp
}

/** The temp path was renamed into place or removed. */
export const settled = (tmp: string) => void pending.delete(tmp)

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' // exists, owned by someone else
  }
}

/** Older than this, a temp file of a pid that is gone was left by a killed process (a live writer renames within moments). */
const STALE_TEMP_MS = 60_000

/** Removes temp files in `dir` (not below) that a process killed before its rename left behind. */
export async function removeStaleTemps(dir: string, suffix: string, now = Date.now()): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[])
  const removed: string[] = []
  for (const name of names) {
    const m = /\.(\d+)\.[0-9a-f]{12}\.([a-z]+)$/.exec(name)
    if (!m || m[2] !== suffix || pidAlive(Number(m[1]))) continue
    const st = await stat(join(dir, name)).catch(() => null)
    if (!st || now - st.mtimeMs < STALE_TEMP_MS) continue
    await rm(join(dir, name), { force: true })
    removed.push(join(dir, name))
  }
  return removed
}
