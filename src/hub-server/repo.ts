/** What the read API needs from a repo, whether a read-only mirror folder or a writable store repo. */
import { gitBlobSha1, sha256Hex } from '../util/hash.ts'

export interface RepoFile {
  path: string
  size: number
  /** git object id: the blob's sha1, or for an LFS file the sha1 of its pointer */
  oid: string
  sha256: string
  lfs: boolean
  pointerSize: number
  read(): Promise<Buffer>
}

export interface CommitSummary {
  id: string
  title: string
  message: string
  date: string
  parents: string[]
}

export interface Refs {
  branches: Record<string, string>
  tags: Record<string, string>
}

export interface RepoView {
  /** owner/name */
  readonly id: string
  readonly private: boolean
  readonly writable: boolean
  /** the commit a branch, tag, `HEAD` or full commit id names; null when there is none */
  resolve(revision: string): string | null
  /** every file path at the commit, sorted; no hashing */
  paths(commit: string): Promise<string[]>
  file(commit: string, path: string): Promise<RepoFile | null>
  refs(): Refs
  /** the commit and its ancestors, newest first */
  log(commit: string): CommitSummary[]
}

export const isCommitId = (s: string) => /^[0-9a-f]{40}$/.test(s)

export function lfsPointer(sha256: string, size: number): string {
  return `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256}\nsize ${size}\n`
}

/** The hashes a file's bytes give it, stored as LFS or as a plain git blob. */
export function describe(
  bytes: Uint8Array,
  lfs: boolean,
): { size: number; sha256: string; oid: string; lfs: boolean; pointerSize: number } {
  const sha256 = sha256Hex(bytes)
  const pointer = Buffer.from(lfsPointer(sha256, bytes.length))
  return { size: bytes.length, sha256, lfs, oid: lfs ? gitBlobSha1(pointer) : gitBlobSha1(bytes), pointerSize: pointer.length }
}

export type TreeEntry = { type: 'file'; path: string } | { type: 'directory'; path: string }

/**
 * The entries under `dir` (files and folders, sorted by name), descending into
 * folders right after listing them when recursive — the order the mirror server always used.
 */
export function treeOf(paths: readonly string[], dir: string, recursive: boolean): TreeEntry[] | null {
  const prefix = dir ? `${dir}/` : ''
  const below = paths.filter((p) => p.startsWith(prefix))
  if (dir && below.length === 0) return null
  const children = new Map<string, 'file' | 'directory'>()
  for (const p of below) {
    const rest = p.slice(prefix.length)
    const cut = rest.indexOf('/')
    children.set(cut < 0 ? rest : rest.slice(0, cut), cut < 0 ? 'file' : 'directory')
  }
  const out: TreeEntry[] = []
  for (const name of [...children.keys()].sort((a, b) => (a < b ? -1 : 1))) {
    const path = `${prefix}${name}`
    const type = children.get(name)!
    out.push({ type, path })
    if (type === 'directory' && recursive) out.push(...(treeOf(paths, path, true) ?? []))
  }
  return out
}
