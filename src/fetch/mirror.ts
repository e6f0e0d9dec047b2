import { lstat, realpath, stat } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { JevError } from '../errors.ts'
import { readRegular } from '../util/files.ts'
import { sha256Hex } from '../util/hash.ts'
import { isRepoId } from '../util/repo-name.ts'
import type { FileFetcher, SourceFile } from './types.ts'

/** True when `child` is `root` or below it (a name that merely starts with ".." is below it). */
function within(root: string, child: string): boolean {
  const rel = relative(root, child)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/**
 * A local folder in Hub layout (`DIR/datasets/<owner>/<name>/<path>`), read
 * directly. A mirror has no commits: the requested revision is reported as is.
 */
export function createMirrorFetcher(dir: string): FileFetcher {
  const root = resolve(dir)
  return {
    kind: 'mirror',
    async fetchFile(repo, revision, path): Promise<SourceFile> {
      const ctx = { repo, revision, file: path }
      const repoDir = resolve(root, 'datasets', repo)
      const full = resolve(repoDir, path)
      // the repo's own folder: not another repo's, not elsewhere in the mirror, not outside it
      if (!isRepoId(repo) || isAbsolute(path) || !within(repoDir, full))
        throw new JevError('IO', `mirror path ${repo}/${path} leaves the repo's folder under ${join(root, 'datasets')}`, ctx)
      let bytes: Uint8Array
      try {
        await lstat(full)
        // symlinks are allowed only when they stay inside the mirror
        const [realRoot, real] = await Promise.all([realpath(root), realpath(full)])
        if (!within(realRoot, real)) throw new JevError('IO', `mirror file ${repo}/${path} links outside ${root}`, ctx)
        bytes = await readRegular(real)
      } catch (e) {
        if (e instanceof JevError) throw e
        const code = (e as NodeJS.ErrnoException).code
        if (code === 'ENOENT') throw await missingFromMirror(root, repo, revision, path, e)
        throw new JevError('IO', `cannot read ${full}: ${(e as Error).message}`, ctx, { cause: e })
      }
      return { repo, revision, commit: revision, path, bytes, size: bytes.byteLength, sha256: sha256Hex(bytes) }
    },
  }
}

/** A file the mirror lacks, said at the level that is missing: the whole Hub layout, the repo's folder, or the one file. */
async function missingFromMirror(root: string, repo: string, revision: string, path: string, cause: unknown): Promise<JevError> {
  const ctx = { repo, revision, file: path }
  const isDir = (p: string) =>
    stat(p).then(
      (s) => s.isDirectory(),
      () => false,
    )
  if (!(await isDir(join(root, 'datasets'))))
    return new JevError(
      'IO',
      `the mirror ${root} has no datasets/ folder, so it is not in Hub layout (DIR/datasets/<owner>/<name>/<path>)`,
      { ...ctx, hint: 'check the folder given to --mirror: it is the one holding datasets/' },
      { cause },
    )
  if (!(await isDir(join(root, 'datasets', repo))))
    return new JevError(
      'NOT_FOUND',
      `the mirror ${root} has no copy of ${repo} (no folder datasets/${repo})`,
      { ...ctx, hint: `copy ${repo} into the mirror, or build from the Hub (without --mirror)` },
      { cause },
    )
  return new JevError('NOT_FOUND', `${repo}@${revision} ${path} is not in the mirror ${root}`, ctx, { cause })
}
