/**
 * Pins a file's sha256 in a recipe: the sha256 it pinned is replaced in the text, leaving every other byte as it
 * was; a recipe that pins no file there yet gets the field (and is then written anew as 2-space JSON).
 */
import { readFile } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import { JevError } from '../errors.ts'
import { writeFileAtomic } from '../util/atomic.ts'

export type PinField = 'judged' | 'distractors.borrow.plausible.screened'

export async function pinInRecipe(recipePath: string, field: PinField, pin: { path: string; sha256: string }, was?: string): Promise<void> {
  if (pin.path.startsWith('..') || isAbsolute(pin.path) || pin.path.includes('\\'))
    throw new JevError('USAGE', `${pin.path}: a file the recipe pins must be next to it or below (${recipePath})`, {
      hint: "write it into the recipe's folder (--out), or pin it by hand",
    })
  const text = await readFile(recipePath, 'utf8')
  if (was !== undefined) {
    const at = text.split(`"${was}"`).length - 1
    if (at !== 1)
      throw new JevError('RECIPE', `${recipePath}: the sha256 to replace (${was}) is there ${at} times, not once`, {
        file: recipePath,
        field: `${field}.sha256`,
        hint: `set ${field}.sha256 to ${pin.sha256} by hand`,
      })
    await writeFileAtomic(recipePath, text.replace(`"${was}"`, `"${pin.sha256}"`))
    return
  }
  const json = JSON.parse(text) as Record<string, unknown>
  const keys = field.split('.')
  let at: Record<string, unknown> = json
  for (const k of keys.slice(0, -1)) {
    const next = at[k]
    if (typeof next !== 'object' || next === null)
      throw new JevError('RECIPE', `${recipePath} has no ${keys.slice(0, keys.indexOf(k) + 1).join('.')} to pin ${field} in`, {
        file: recipePath,
        field,
      })
    at = next as Record<string, unknown>
  }
  at[keys.at(-1)!] = { path: pin.path, sha256: pin.sha256 }
  await writeFileAtomic(recipePath, `${JSON.stringify(json, null, 2)}\n`)
}
