/** Puts right what a build killed mid-swap left beside its output folder (src/write/out-dir.ts). */
import { readdir, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { removeIfStale } from '../util/file-lock.ts'
import { makeDirs } from '../util/files.ts'
import { pidAlive } from '../util/process.ts'
import { finishSwap, withSwapLock } from './out-swap.ts'

/** The output folder, the folder it is in, and its name, which its siblings (temp, old, lock) carry. */
export function siblings(outDir: string) {
  const dir = resolve(outDir)
  return { dir, parent: dirname(dir), name: basename(dir) }
}

/**
 * Repairs what an interrupted swap left behind: a swap cut short is finished (src/write/out-swap.ts);
 * an output folder an older builder moved aside but did not replace comes back; temp folders and swap
 * locks of builds that are gone are removed.
 */
export async function repairOutDir(outDir: string): Promise<void> {
  const { dir, parent, name } = siblings(outDir)
  let entries: string[]
  try {
    entries = await readdir(parent)
  } catch {
    return
  }
  const stale: { path: string; kind: string }[] = []
  for (const e of entries) {
    const m = /^\.(.+)\.(old|tmp|swap)-(\d+)-[0-9a-f]+$/.exec(e)
    if (m && m[1] === name && !pidAlive(Number(m[3]))) stale.push({ path: join(parent, e), kind: m[2]! })
  }
  const exists = await stat(dir).then(
    () => true,
    () => false,
  )
  const olds = stale.filter((s) => s.kind === 'old')
  if (!exists && olds.length) {
    // an older builder's swap (two folder renames) died between them: bring back the newest complete build
    const times = await Promise.all(olds.map((o) => stat(o.path).then((st) => st.mtimeMs)))
    const newest = olds[times.indexOf(Math.max(...times))]!
    await rename(newest.path, dir)
    stale.splice(stale.indexOf(newest), 1)
  }
  const swaps = stale.filter((s) => s.kind === 'swap')
  if (swaps.length) {
    // a swap decided and cut short: its files go in, under the swap lock as a build's would (oldest first, the newest wins)
    const times = await Promise.all(
      swaps.map((o) =>
        stat(o.path).then(
          (st) => st.mtimeMs,
          () => 0,
        ),
      ),
    )
    const order = swaps.map((s, k) => ({ path: s.path, at: times[k]! })).sort((a, b) => a.at - b.at)
    await withSwapLock(parent, name, async () => {
      await makeDirs(dir)
      for (const s of order) await finishSwap(s.path, dir)
    })
  }
  for (const s of stale) if (s.kind !== 'swap') await rm(s.path, { recursive: true, force: true })
  // swap locks of builds that are gone (src/util/file-lock.ts): `.<name>.lock` names its pid, and the
  // file it is linked from is `.<name>.lock.<pid>.<hex>.locking` (`.<name>.lock.<pid>-<hex>` before 1.1)
  for (const e of entries) {
    const path = join(parent, e)
    const m = /^\.(.+)\.lock\.(\d+)[.-][0-9a-f]+(\.locking)?$/.exec(e)
    if (m && m[1] === name && !pidAlive(Number(m[2]))) await rm(path, { force: true })
    if (e === `.${name}.lock`) await removeIfStale(path)
  }
}
