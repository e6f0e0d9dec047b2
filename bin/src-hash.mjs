// Whether dist/ (and the CLIs' bundle/) may run for src/: a hash of src/'s
// paths and contents, kept in dist/.stamp and bundle/.stamp by `npm run
// compile`. File times would not do: archives, copies and checkouts keep or
// set them as they please.
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
export function compiledIsCurrent(root, hash = srcHash(root)) {
  try {
    return readFileSync(stampPath(root), 'utf8') === hash
  } catch {
    return false
  }
}

/** Where `npm run compile` bundles the CLIs: one file per command, one level below the root as dist/ is. */
export function bundleDir(root) {
  return join(root, 'bundle')
}

/** The installed version of each package folder (relative to the root), null where there is none. */
function packageVersions(root, dirs) {
  return Object.fromEntries(
    dirs.map((dir) => {
      try {
        return [dir, JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).version ?? null]
      } catch {
        return [dir, null]
      }
    }),
  )
}

/** The files that say how bundle/ is made, besides src/ and the packages it holds. */
const BUNDLE_RECIPE = ['scripts/compile.mjs', 'tsconfig.json', 'tsconfig.build.json', 'node_modules/esbuild/package.json']

/**
 * What bundle/ is made from besides src/: a hash of how it is made and of
 * npm's record of the installed tree (rewritten by every install), and the
 * versions of the packages it holds.
 */
export function bundleInputs(root, packages) {
  const h = createHash('sha256')
  for (const rel of [...BUNDLE_RECIPE, 'node_modules/.package-lock.json']) {
    let bytes = ''
    try {
      bytes = readFileSync(join(root, rel))
    } catch {}
    h.update(`${rel}\0`).update(bytes).update('\0')
  }
  return { made: h.digest('hex'), packages: packageVersions(root, packages) }
}

/**
 * True when bundle/ was made from exactly the src/ there is now, in the way
 * and from the installed packages there are now (code patched in
 * node_modules by hand, with no install, needs `npm run compile`).
 */
export function bundleIsCurrent(root, hash = srcHash(root)) {
  try {
    const dir = bundleDir(root)
    if (readFileSync(join(dir, '.stamp'), 'utf8') !== hash) return false
    const made = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8'))
    const now = bundleInputs(root, Object.keys(made.packages))
    return made.made === now.made && Object.entries(made.packages).every(([d, v]) => v !== null && now.packages[d] === v)
  } catch {
    return false
  }
}

/**
 * The module to load for `rel` (a path under src/ without its extension): the
 * compiled dist/<rel>.js when dist/ is current, otherwise src/<rel>.ts with tsx
 * registered to load it.
 */
export async function entryFor(root, rel, hash = srcHash(root)) {
  if (compiledIsCurrent(root, hash)) return `${root}dist/${rel}.js`
  const { register } = await import('tsx/esm/api')
  register()
  return `${root}src/${rel}.ts`
}

/**
 * The module to run for a command (src/cli/<command>.ts): its bundle when
 * current (fastest to start: a few files instead of ~150 modules), else as
 * entryFor.
 */
export async function commandEntry(root, command) {
  const hash = srcHash(root)
  if (bundleIsCurrent(root, hash)) return join(bundleDir(root), `${command}.js`)
  return entryFor(root, `cli/${command}`, hash)
}
