import { lstat, readFile, realpath } from 'node:fs/promises'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { sha256Hex } from '../canonical.ts'
import { JevError } from '../errors.ts'
import type { FileFetcher, SourceFile } from './types.ts'

/** True when `child` is `root` or below it. */
function within(root: string, child: string): boolean {
  const rel = relative(root, child)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`))
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
      const full = resolve(root, 'datasets', repo, path)
      if (!within(root, full)) throw new JevError('IO', `mirror path ${repo}/${path} escapes ${root}`, ctx)
      let bytes: Uint8Array
      try {
        await lstat(full)
        // symlinks are allowed only when they stay inside the mirror
        const [realRoot, real] = await Promise.all([realpath(root), realpath(full)])
        if (!within(realRoot, real)) throw new JevError('IO', `mirror file ${repo}/${path} links outside ${root}`, ctx)
        bytes = await readFile(real)
      } catch (e) {
        if (e instanceof JevError) throw e
        const code = (e as NodeJS.ErrnoException).code
        if (code === 'ENOENT')
          throw new JevError('NOT_FOUND', `${repo}/${path} is not in the mirror ${root}`, ctx, { cause: e })
        throw new JevError('IO', `cannot read ${full}: ${(e as Error).message}`, ctx, { cause: e })
      }
      return { repo, revision, commit: revision, path, bytes, size: bytes.byteLength, sha256: sha256Hex(bytes) }
    },
  }
}
