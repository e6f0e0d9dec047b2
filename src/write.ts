import { randomBytes } from 'node:crypto'
import { link, lstat, mkdir, open, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { sha256Hex } from './canonical.ts'
import { JevError } from './errors.ts'
import { makeDirs } from './files.ts'
import type { DataRecord } from './schema.ts'
import { BUILDER } from './version.ts'

/** One record per line, keys in the spec's order, `\n` after every line. */
export function toJsonl(records: readonly DataRecord[]): string {
  let out = ''
  for (const r of records) {
    out += `${JSON.stringify({
      id: r.id,
      source: r.source,
      question: r.question,
      context: r.context,
      choices: r.choices,
      answer_idx: r.answer_idx,
      n_choices: r.n_choices,
    })}\n`
  }
  return out
}

export interface OutputFile {
  path: string
  bytes: number
  sha256: string
}

export function describeFile(path: string, content: string | Uint8Array): OutputFile {
  const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
  return { path, bytes: buf.byteLength, sha256: sha256Hex(buf) }
}

function siblings(outDir: string) {
  const dir = resolve(outDir)
  return { dir, parent: dirname(dir), name: basename(dir) }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Repairs what an interrupted swap left behind: an output folder moved aside
 * but not replaced comes back; temp folders and swap locks of builds that are
 * gone are removed.
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
    const m = /^\.(.+)\.(old|tmp)-(\d+)-[0-9a-f]+$/.exec(e)
    if (m && m[1] === name && !pidAlive(Number(m[3]))) stale.push({ path: join(parent, e), kind: m[2]! })
  }
  const exists = await stat(dir).then(() => true, () => false)
  const olds = stale.filter((s) => s.kind === 'old')
  if (!exists && olds.length) {
    // a swap died between its two renames: bring back the newest complete build
    const times = await Promise.all(olds.map((o) => stat(o.path).then((st) => st.mtimeMs)))
    const newest = olds[times.indexOf(Math.max(...times))]!
    await rename(newest.path, dir)
    stale.splice(stale.indexOf(newest), 1)
  }
  for (const s of stale) await rm(s.path, { recursive: true, force: true })
  // swap locks of builds that are gone: `.<name>.lock` holds its pid, `.<name>.lock.<pid>-<hex>` names it
  for (const e of entries) {
    const path = join(parent, e)
    const m = /^\.(.+)\.lock\.(\d+)-[0-9a-f]+$/.exec(e)
    if (m && m[1] === name && !pidAlive(Number(m[2]))) await rm(path, { force: true })
    if (e === `.${name}.lock`) {
      const holder = Number(await readFile(path, 'utf8').catch(() => ''))
      if (holder && !pidAlive(holder)) await rm(path, { force: true })
    }
  }
}

/** What a build writes into its output folder. */
export const OUTPUT_FILES: readonly string[] = ['test.jsonl', 'val.jsonl', 'provenance.jsonl', 'README.md', 'manifest.json']
/** The splits' files: what the card's `configs` list, a dataset's records (provenance.jsonl is not a split). */
export const DATA_FILES: readonly string[] = ['test.jsonl', 'val.jsonl']

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
  const refuse = (what: string) =>
    new JevError('USAGE', `refusing to replace ${dir}: ${what}; name a new or empty folder, or one a build wrote`, { file: dir })
  // the swap renames the link, not the folder it points to
  if (st.isSymbolicLink()) throw refuse('it is a symbolic link; name the folder it points to')
  if (!st.isDirectory()) throw refuse('it is not a folder')
  const entries = await readdir(dir)
  const others = entries.filter((e) => !names.includes(e)).sort()
  if (others.length) throw refuse(`it holds other things than a build's files (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''})`)
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
 * Writes files into a fresh sibling folder, fsyncs them, then swaps it in with
 * renames, so `outDir` only ever holds a complete build: the old or the new.
 */
export async function writeOutDir(outDir: string, files: ReadonlyMap<string, string>): Promise<void> {
  const { dir, parent, name } = siblings(outDir)
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`
  const tmp = join(parent, `.${name}.tmp-${tag}`)
  const old = join(parent, `.${name}.old-${tag}`)
  try {
    await makeDirs(parent)
    await repairOutDir(dir)
    await mkdir(tmp)
    for (const [file, content] of files) {
      const handle = await open(join(tmp, file), 'wx')
      try {
        await handle.writeFile(content, 'utf8')
        await handle.sync()
      } finally {
        await handle.close()
      }
    }
    await withSwapLock(parent, name, async () => {
      // again under the lock: the folder may have changed while the build ran (the manifest was checked before it)
      await assertReplaceable(dir, [...new Set([...OUTPUT_FILES, ...files.keys()])], false)
      const hadOld = await stat(dir).then(() => true, () => false)
      if (hadOld) await rename(dir, old)
      await rename(tmp, dir)
      if (hadOld) await rm(old, { recursive: true, force: true })
    })
  } catch (e) {
    await rm(tmp, { recursive: true, force: true })
    if (e instanceof JevError) throw e
    throw new JevError('IO', `cannot write ${dir}: ${(e as Error).message}`, { file: dir }, { cause: e })
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Two builds swapping the same folder at once would move each other's folders;
 * the swap takes a lock file holding the pid, and a lock whose process is gone is stale.
 */
async function withSwapLock(parent: string, name: string, swap: () => Promise<void>): Promise<void> {
  const lock = join(parent, `.${name}.lock`)
  // link() of a file already holding the pid: the lock never exists empty
  const mine = `${lock}.${process.pid}-${randomBytes(4).toString('hex')}`
  await writeFile(mine, String(process.pid))
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(mine, lock)
        break
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
        const holder = Number(await readFile(lock, 'utf8').catch(() => ''))
        if (holder && !pidAlive(holder)) await rm(lock, { force: true })
        else if (attempt < 600) await sleep(100)
        else throw new JevError('IO', `${join(parent, name)} is being replaced by process ${holder}; waited 60 s`, { file: lock })
      }
    }
  } finally {
    await rm(mine, { force: true })
  }
  try {
    await swap()
  } finally {
    await rm(lock, { force: true })
  }
}

/** A single file, written whole or not at all. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`
  try {
    await writeFile(tmp, content, { encoding: 'utf8', flag: 'wx' })
    await rename(tmp, path)
  } catch (e) {
    await rm(tmp, { force: true })
    throw new JevError('IO', `cannot write ${path}: ${(e as Error).message}`, { file: path }, { cause: e })
  }
}
