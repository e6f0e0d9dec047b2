/**
 * Files written whole or not at all: a temp name unique to the process and call, then a rename.
 * Temp files are removed when the process exits; those of a killed process by removeStaleTemps.
 */
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { lstat, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { JevError } from '../errors.ts'
import { makeDirs } from './files.ts'
import { pidAlive } from './process.ts'

/**
 * Writes via a temp name unique to this process and call, then a rename, so
 * readers and concurrent writers never see a partial file. `suffix` names the
 * temp file's kind (the HF cache calls them `.incomplete`).
 */
export async function writeAtomic(path: string, data: Uint8Array | string, suffix = 'tmp'): Promise<void> {
  await makeDirs(dirname(path))
  await intoPlace(path, suffix, (tmp) => writeFile(tmp, data))
}

/** A symbolic link at `path` to `target`, replacing whatever is there atomically (never failing because it exists). */
export async function symlinkAtomic(target: string, path: string, suffix = 'tmp'): Promise<void> {
  await intoPlace(path, suffix, (tmp) => symlink(target, tmp))
}

/** Makes `path`'s content at a temp path, then renames it over `path`; the temp path never outlives a failure. */
async function intoPlace(path: string, suffix: string, make: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = tempPath(path, suffix)
  try {
    await make(tmp)
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

/** Older than this, a temp file of a pid that is gone was left by a killed process (a live writer renames within moments). */
const STALE_TEMP_MS = 60_000

/** Removes temp files in `dir` (not below) that a process killed before its rename left behind. */
export async function removeStaleTemps(dir: string, suffix: string, now = Date.now()): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[])
  const removed: string[] = []
  for (const name of names) {
    const m = /\.(\d+)\.[0-9a-f]{12}\.([a-z]+)$/.exec(name)
    if (!m || m[2] !== suffix || pidAlive(Number(m[1]))) continue
    // lstat: a temp link's own age, not its target's
    const st = await lstat(join(dir, name)).catch(() => null)
    if (!st || now - st.mtimeMs < STALE_TEMP_MS) continue
    await rm(join(dir, name), { force: true })
    removed.push(join(dir, name))
  }
  return removed
}

/** A single file (a lock, a schema), written whole or not at all; a failure is an IO error naming it. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  try {
    await writeAtomic(path, content)
  } catch (e) {
    throw new JevError('IO', `cannot write ${path}: ${(e as Error).message}`, { file: path }, { cause: e })
  }
}
