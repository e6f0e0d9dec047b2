/**
 * How a new build replaces the output folder. Node has no atomic exchange of two folders (Linux's
 * renameat2 RENAME_EXCHANGE), and a folder renamed aside leaves a moment with no folder at all. So the
 * new build's files, complete in a sibling swap folder, are renamed into the output folder one by one,
 * the manifest last: the folder is there at every instant and each file in it is whole. While they
 * move it holds files of both builds, which its manifest shows (check-dataset checks the files it read
 * against the manifest it read with them, and reads again); the swap folder lists what moves, so a
 * swap cut short by a kill is finished by the next build (src/write/out-repair.ts).
 */
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { OUTPUT_FILES } from '../emit/outputs.ts'
import { JevError } from '../errors.ts'
import { isStale, readHolder, withFileLock } from '../util/file-lock.ts'

/** In a swap folder: the new build's file names, one a line, in the order they move. */
export const SWAP_LIST = '.files'
const MANIFEST = 'manifest.json'

/** Writes the list of what a swap folder's build holds, before it becomes one. */
export async function writeSwapList(folder: string, names: Iterable<string>): Promise<void> {
  const all = [...names]
  const order = all.filter((n) => n !== MANIFEST)
  if (all.includes(MANIFEST)) order.push(MANIFEST)
  await writeFile(join(folder, SWAP_LIST), order.map((n) => `${n}\n`).join(''))
}

const ignoreMissing = (e: NodeJS.ErrnoException) => {
  if (e.code !== 'ENOENT') throw e
}

/**
 * Moves the swap folder's files into `dir` (the manifest last, once the old build's other files are gone),
 * then removes the swap folder. Run again on what a kill left, it finishes the same swap.
 */
export async function finishSwap(swap: string, dir: string): Promise<void> {
  const list = await readFile(join(swap, SWAP_LIST), 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null
    throw e
  })
  if (list === null) return void (await rm(swap, { recursive: true, force: true }))
  const names = list.split('\n').filter((n) => n !== '')
  const move = (n: string) => rename(join(swap, n), join(dir, n)).catch(ignoreMissing)
  for (const n of names) if (n !== MANIFEST) await move(n)
  // the old build's outputs the new one does not have; nothing else (a swap checks the folder holds no more, a repair does not)
  for (const n of await readdir(dir)) if (OUTPUT_FILES.includes(n) && !names.includes(n)) await rm(join(dir, n), { force: true })
  if (names.includes(MANIFEST)) await move(MANIFEST)
  await rm(swap, { recursive: true, force: true })
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

const swapLockPath = (parent: string, name: string) => join(parent, `.${name}.lock`)

/** Whether a live build holds the swap lock of the output folder `outDir`, so its files may be moving. */
export async function swapRunning(outDir: string): Promise<boolean> {
  const dir = resolve(outDir)
  const lock = swapLockPath(dirname(dir), basename(dir))
  const holder = await readHolder(lock)
  return holder !== null && !(await isStale(lock, holder))
}

/**
 * Two builds swapping the same folder at once would interleave their files; a swap, and the repair
 * that finishes one, take `.<name>.lock` (src/util/file-lock.ts), and a lock whose process is gone is stale.
 */
export function withSwapLock(parent: string, name: string, swap: () => Promise<void>): Promise<void> {
  const lock = swapLockPath(parent, name)
  return withFileLock(lock, swap, {
    sleep,
    maxWaitMs: 60_000,
    pollMs: 100,
    now: Date.now,
    gaveUp: (h) =>
      new JevError('IO', `${join(parent, name)} is being replaced by process ${h.pid ?? 'unknown'}; waited 60 s`, { file: lock }),
  })
}
