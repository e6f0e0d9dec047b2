/**
 * The output folder: checked before the work, then replaced under a lock by the new build's files,
 * written whole in a sibling folder first (src/write/out-swap.ts says how, and why not by renaming folders).
 */
import { randomBytes } from 'node:crypto'
import { lstat, mkdir, open, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { OUTPUT_FILES, type OutputContent, outputBytes } from '../emit/outputs.ts'
import { JevError } from '../errors.ts'
import { makeDirs } from '../util/files.ts'
import { BUILDER } from '../version.ts'
import { repairOutDir, siblings } from './out-repair.ts'
import { finishSwap, SWAP_LIST, withSwapLock, writeSwapList } from './out-swap.ts'

/**
 * A swap replaces the whole folder, so it must hold nothing but a build's
 * own files: `--out .` or a typo must not delete a folder of other things.
 */
export async function assertReplaceable(outDir: string, names: readonly string[] = OUTPUT_FILES, needManifest = true): Promise<void> {
  const dir = resolve(outDir)
  const st = await lstat(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null
    throw new JevError('IO', `cannot read ${dir}: ${e.message}`, { file: dir })
  })
  if (!st) return
  // the reason and what to do instead; not the command's usage, since how it was typed is not the problem
  const refuse = (
    what: string,
    hint = 'nothing was touched; name a new or empty folder for the output (--out DIR), or one a build wrote',
  ) => new JevError('USAGE', `refusing to replace ${dir}: ${what}`, { file: dir, usage: null, hint })
  // the swap renames the link, not the folder it points to
  if (st.isSymbolicLink()) throw refuse('it is a symbolic link', 'nothing was touched; name the folder it points to instead')
  if (!st.isDirectory()) throw refuse('it is not a folder')
  const entries = await readdir(dir)
  const others = entries.filter((e) => !names.includes(e)).sort()
  if (others.length)
    throw refuse(`it holds other things than a build's files (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''})`)
  // a folder of the same file names, e.g. someone's own README.md, is not a build without a build's manifest
  if (needManifest && entries.length && !(await isBuildManifest(join(dir, 'manifest.json'))))
    throw refuse(`it has no manifest.json written by ${BUILDER.name}`)
}

/**
 * The folder the output goes in, made and checked for writing before the work,
 * so a path that cannot be written fails at once. Returns an undo for a build
 * that fails: the folders it made, removed while still empty.
 */
export async function makeOutParent(outDir: string): Promise<() => Promise<void>> {
  const { parent, name } = siblings(outDir)
  let made: string[] = []
  try {
    made = await makeDirs(parent)
    // the swap makes a sibling folder: try one (permission bits alone do not tell, e.g. for root or in /sys)
    const probe = join(parent, `.${name}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`)
    await mkdir(probe)
    await rmdir(probe)
  } catch (e) {
    await removeEmpty(made)
    throw new JevError('IO', `cannot write ${resolve(outDir)}: ${(e as Error).message}`, { file: resolve(outDir) }, { cause: e })
  }
  return () => removeEmpty(made)
}

/** Innermost first; a folder something else has written into since is left alone. */
async function removeEmpty(made: readonly string[]): Promise<void> {
  for (const dir of [...made].reverse()) await rmdir(dir).catch(() => {})
}

async function isBuildManifest(path: string): Promise<boolean> {
  try {
    const m = JSON.parse(await readFile(path, 'utf8')) as { builder?: { name?: unknown }; datasetHash?: unknown }
    return m.builder?.name === BUILDER.name && typeof m.datasetHash === 'string'
  } catch {
    return false
  }
}

/**
 * Writes files into a fresh sibling folder and fsyncs them; then, under the swap lock, renames that folder
 * into place when there is no output folder yet, else moves its files in (src/write/out-swap.ts), so the
 * output folder, once there, is there at every instant and only ever holds whole files of a build.
 */
export async function writeOutDir(outDir: string, files: ReadonlyMap<string, OutputContent>): Promise<void> {
  const { dir, parent, name } = siblings(outDir)
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`
  const tmp = join(parent, `.${name}.tmp-${tag}`)
  const swap = join(parent, `.${name}.swap-${tag}`)
  let committed = false
  try {
    await makeDirs(parent)
    await repairOutDir(dir)
    await mkdir(tmp)
    for (const [file, content] of files) {
      const handle = await open(join(tmp, file), 'wx')
      try {
        await handle.writeFile(outputBytes(content))
        await handle.sync()
      } finally {
        await handle.close()
      }
    }
    await writeSwapList(tmp, files.keys())
    await withSwapLock(parent, name, async () => {
      // again under the lock: the folder may have changed while the build ran (the manifest was checked before it)
      await assertReplaceable(dir, [...new Set([...OUTPUT_FILES, ...files.keys()])], false)
      const hadOld = await stat(dir).then(
        () => true,
        () => false,
      )
      if (!hadOld) {
        // nothing to replace: the folder appears whole, in one rename
        await rm(join(tmp, SWAP_LIST))
        await rename(tmp, dir)
        return
      }
      // from here on the swap is decided: a kill leaves it for the next build to finish
      await rename(tmp, swap)
      committed = true
      await finishSwap(swap, dir)
    })
  } catch (e) {
    // a swap that failed once decided is left to the next build, which finishes it
    if (!committed) await rm(tmp, { recursive: true, force: true })
    if (e instanceof JevError) throw e
    throw new JevError('IO', `cannot write ${dir}: ${(e as Error).message}`, { file: dir }, { cause: e })
  }
}
