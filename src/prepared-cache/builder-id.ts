/**
 * The builder's own identity for cache keys: everything that turns the same bytes into prepared
 * data — its code, the libraries it decodes and parses rows with, and the runtime's Unicode
 * tables (NFKC, \p{…}) — so a change to any of them misses old entries.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { canonicalJson } from '../util/canonical.ts'
import { sha256Hex } from '../util/hash.ts'
import { PACKAGE_ROOT } from '../version.ts'

let cached: Promise<string | null> | undefined

/** sha256 over the code the builder runs (src/*.ts, or dist/*.js when compiled), path by path in code-unit order. */
async function codeHash(codeRoot: string): Promise<string> {
  const files = (await readdir(codeRoot, { recursive: true }))
    .filter((f) => /\.(ts|js|mjs)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.split(sep).join('/'))
    .sort()
  const h = createHash('sha256')
  for (const rel of files)
    h.update(`${rel}\0`)
      .update(await readFile(join(codeRoot, rel)))
      .update('\0')
  return h.digest('hex')
}

/** The installed version of each runtime dependency (package.json's `dependencies`), found as node finds packages. */
async function dependencyVersions(packageRoot: string): Promise<Record<string, string | null>> {
  const pkg = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }
  const versionOf = async (name: string): Promise<string | null> => {
    for (let dir = packageRoot; ; dir = dirname(dir)) {
      const text = await readFile(join(dir, 'node_modules', name, 'package.json'), 'utf8').catch(() => null)
      if (text) return (JSON.parse(text) as { version?: string }).version ?? null
      if (dirname(dir) === dir) return null
    }
  }
  const names = Object.keys(pkg.dependencies ?? {}).sort()
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await versionOf(n)] as const)))
}

/** The identity, or null when the code's hash cannot be had: then nothing is cached. */
export function builderId(): Promise<string | null> {
  cached ??= (async () => {
    // the folder of the code that runs (src/, dist/, or the tests' compiled copy of src/)
    const codeRoot = fileURLToPath(new URL('..', import.meta.url))
    const code = await codeHash(codeRoot).catch(() => null)
    if (code === null) return null
    const deps = await dependencyVersions(PACKAGE_ROOT).catch(() => null)
    const { node, v8, icu, unicode } = process.versions
    return sha256Hex(canonicalJson({ code, deps, runtime: { node, v8, icu: icu ?? null, unicode: unicode ?? null } }))
  })()
  return cached
}
