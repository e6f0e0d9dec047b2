// Whether dist/ may run for src/: a hash of src/'s paths and contents, kept in
// dist/.stamp by `npm run compile`. File times would not do: archives, copies
// and checkouts keep or set them as they please.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

function filesUnder(dir, prefix = '') {
  const out = []
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name
    if (entry.isDirectory()) out.push(...filesUnder(dir, rel))
    else out.push(rel)
  }
  return out
}

/** sha256 over src/'s files, in code-unit order of their paths. */
export function srcHash(root) {
  const src = join(root, 'src')
  const h = createHash('sha256')
  for (const rel of filesUnder(src).sort())
    h.update(`${rel}\0`)
      .update(readFileSync(join(src, rel)))
      .update('\0')
  return h.digest('hex')
}

export function stampPath(root) {
  return join(root, 'dist', '.stamp')
}

/** True when dist/ was compiled from exactly the src/ there is now. */
export function compiledIsCurrent(root) {
  try {
    return readFileSync(stampPath(root), 'utf8') === srcHash(root)
  } catch {
    return false
  }
}

/**
 * The module to load for `rel` (a path under src/ without its extension): the
 * compiled dist/<rel>.js when dist/ is current, otherwise src/<rel>.ts with tsx
 * registered to load it.
 */
export async function entryFor(root, rel) {
  if (compiledIsCurrent(root)) return `${root}dist/${rel}.js`
  const { register } = await import('tsx/esm/api')
  register()
  return `${root}src/${rel}.ts`
}
