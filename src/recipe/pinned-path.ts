/**
 * The files a recipe pins (its word vectors, screen and judged rates, the previous version's recipe)
 * lie in the recipe's folder. One check for all of them, on the path when the recipe is read and on
 * the file, through symbolic links, when it is opened: a recipe cannot lead the builder to read a file
 * from elsewhere, nor an error to echo one.
 */
import { realpathSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { JevError } from '../errors.ts'

export const PINNED_PATH_RULE = `must be a relative path inside the recipe's folder, without "." or ".." segments`

/** Relative, with forward slashes and no empty, `.` or `..` segment. */
export function isPinnedPath(path: string): boolean {
  return (
    path !== '' &&
    !isAbsolute(path) &&
    !path.includes('\\') &&
    !path.includes('\0') &&
    path.split('/').every((s) => s !== '' && s !== '.' && s !== '..')
  )
}

const realOrNull = (path: string): string | null => {
  try {
    return realpathSync(path)
  } catch {
    return null
  }
}

/**
 * The file `path` names in `folder` (the recipe's), or RECIPE when it leaves the folder, by its
 * path or through a link. A file that is not there passes: reading it fails with its own error.
 */
export function pinnedFile(folder: string, path: string, field: string, recipeFile?: string): string {
  const refuse = (how: string) =>
    new JevError('RECIPE', `${recipeFile ?? 'the recipe'}: ${field} ${JSON.stringify(path)} ${how}`, {
      ...(recipeFile ? { file: recipeFile } : {}),
      field,
      hint: "put the file in the recipe's folder and name it relative to the recipe",
    })
  if (!isPinnedPath(path)) throw refuse(PINNED_PATH_RULE)
  const file = resolve(folder, path)
  const real = realOrNull(file)
  if (real !== null) {
    const inside = relative(realOrNull(folder) ?? resolve(folder), real)
    if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
      throw refuse("leads out of the recipe's folder through a symbolic link")
  }
  return file
}
