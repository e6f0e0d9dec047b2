/**
 * Read-only repos from a folder laid out as `<root>/datasets/<owner>/<name>/<path in repo>`
 * (like ../shared/hub-mirror). `main` (and `HEAD`) name one fixed commit per repo and any
 * full commit id names the same files, so recipes pinned to upstream commits resolve.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises'
import { isAbsolute, join, relative, sep } from 'node:path'
import { gitBlobSha1, sha1Hex, sha256Hex } from '../util/hash.ts'
import { isHubNamePart } from '../util/repo-name.ts'
import { DEFAULT_GITATTRIBUTES, lfsPatterns, tracksAsLfs } from './gitattributes.ts'
import { safeRepoPath } from './http.ts'
import { type CommitSummary, isCommitId, lfsPointer, type RepoFile, type RepoView } from './repo.ts'

const LFS = lfsPatterns(DEFAULT_GITATTRIBUTES)
const MIRROR_DATE = '2024-01-01T00:00:00.000Z'

type Info = Omit<RepoFile, 'read' | 'path'>

/** True when the real path `real` is `root` or below it. */
function within(root: string, real: string): boolean {
  const rel = relative(root, real)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/** Hashes by absolute path, recomputed only when size or mtime change. */
export class MirrorHashes {
  private readonly cache = new Map<string, { key: string; info: Info }>()

  async info(abs: string, rel: string): Promise<Info | null> {
    const st = await stat(abs).catch(() => null)
    if (!st?.isFile()) return null
    const key = `${st.mtimeMs}:${st.size}`
    const hit = this.cache.get(abs)
    if (hit?.key === key) return hit.info
    const bytes = await readFile(abs)
    const lfs = tracksAsLfs(rel, LFS)
    const sha256 = sha256Hex(bytes)
    const pointer = Buffer.from(lfsPointer(sha256, bytes.length))
    const info: Info = {
      size: bytes.length,
      sha256,
      lfs,
      oid: lfs ? gitBlobSha1(pointer) : gitBlobSha1(bytes),
      pointerSize: pointer.length,
    }
    this.cache.set(abs, { key, info })
    return info
  }
}

export class MirrorRepo implements RepoView {
  readonly private = false
  readonly writable = false
  readonly mainCommit: string

  constructor(
    readonly id: string,
    private readonly dir: string,
    private readonly root: string,
    private readonly hashes: MirrorHashes,
  ) {
    // The commit the loopback Hub always reported for `main`; tests pin it.
    this.mainCommit = sha1Hex(`commit:${id}`)
  }

  resolve(revision: string): string | null {
    if (revision === 'main' || revision === 'HEAD') return this.mainCommit
    return isCommitId(revision) ? revision : null
  }

  async paths(): Promise<string[]> {
    const out: string[] = []
    const walk = async (rel: string): Promise<void> => {
      const dirents = await readdir(join(this.dir, rel), { withFileTypes: true }).catch(() => [])
      for (const d of dirents) {
        const p = rel ? `${rel}/${d.name}` : d.name
        if (d.isDirectory()) await walk(p)
        else if (d.isFile()) out.push(p)
        // a link is listed only when it is a regular file inside the mirror, as file() serves it (links to folders are not followed)
        else if (d.isSymbolicLink() && (await this.inside(join(this.dir, ...p.split('/'))))) out.push(p)
      }
    }
    await walk('')
    return out.sort((a, b) => (a < b ? -1 : 1))
  }

  /** Whether `abs` is a regular file whose real path is inside the mirror. */
  private async inside(abs: string): Promise<boolean> {
    const real = await realpath(abs).catch(() => null)
    return real !== null && within(this.root, real) && (await stat(real).catch(() => null))?.isFile() === true
  }

  async file(_commit: string, path: string): Promise<RepoFile | null> {
    // a path in the repo, never one out of its folder
    if (!safeRepoPath(path)) return null
    const abs = join(this.dir, ...path.split('/'))
    // Links may not lead out of the mirror.
    if (!(await this.inside(abs))) return null
    const info = await this.hashes.info(abs, path)
    return info ? { ...info, path, read: () => readFile(abs) } : null
  }

  refs() {
    return { branches: { main: this.mainCommit }, tags: {} }
  }

  log(commit: string): CommitSummary[] {
    return [{ id: commit, title: 'mirror snapshot', message: '', date: MIRROR_DATE, parents: [] }]
  }
}

/** The mirror repo at `<root>/datasets/<owner>/<name>`, or null. */
export async function findMirrorRepo(
  root: string | undefined,
  owner: string,
  name: string,
  hashes: MirrorHashes,
): Promise<MirrorRepo | null> {
  // names as the Hub allows them are never paths
  if (!root || !isHubNamePart(owner) || !isHubNamePart(name)) return null
  const dir = join(root, 'datasets', owner, name)
  if (!(await stat(dir).catch(() => null))?.isDirectory()) return null
  // a repo folder that is (or passes through) a link out of the mirror is no repo of it
  const [realRoot, realDir] = await Promise.all([realpath(root), realpath(dir)])
  if (!within(realRoot, realDir)) return null
  return new MirrorRepo(`${owner}/${name}`, dir, realRoot, hashes)
}
