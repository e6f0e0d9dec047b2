/**
 * The builder's own identity for cache keys: everything that turns the same bytes into prepared
 * data — its code, the libraries it decodes and parses rows with, and the runtime's Unicode
 * tables (NFKC, \p{…}) — so a change to any of them misses old entries.
 */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { canonicalJson } from '../util/canonical.ts'
import { sha256Hex } from '../util/hash.ts'

let cached: Promise<string | null> | undefined

/** Run from dist/, the stamp `npm run compile` wrote (the hash of the src/ it was compiled from); run from src/, the same hash of src/ as it is now. */
async function codeHash(here: URL): Promise<string | null> {
  if (here.pathname.endsWith('.js')) {
    const stamp = await readFile(new URL('.stamp', here), 'utf8').catch(() => '')
    return /^[0-9a-f]{64}$/.test(stamp) ? stamp : null
  }
  try {
    const { srcHash } = await import('../../bin/src-hash.mjs')
    return srcHash(fileURLToPath(new URL('..', here)))
  } catch {
    return null
  }
}

/** The installed version of each runtime dependency (package.json's `dependencies`), as node_modules holds it. */
async function dependencyVersions(root: URL): Promise<Record<string, string | null>> {
  const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as { dependencies?: Record<string, string> }
  const names = Object.keys(pkg.dependencies ?? {}).sort()
  const versions = await Promise.all(
    names.map(async (n) => {
      const text = await readFile(new URL(`node_modules/${n}/package.json`, root), 'utf8').catch(() => null)
      return [n, text ? ((JSON.parse(text) as { version?: string }).version ?? null) : null] as const
    }),
  )
  return Object.fromEntries(versions)
}

/** The identity, or null when the code's hash cannot be had: then nothing is cached. */
export function builderId(): Promise<string | null> {
  cached ??= (async () => {
    const here = new URL(import.meta.url)
    const code = await codeHash(here)
    if (code === null) return null
    // src/ and dist/ both sit one level below the project's root
    const deps = await dependencyVersions(new URL('..', here)).catch(() => null)
    const { node, v8, icu, unicode } = process.versions
    return sha256Hex(canonicalJson({ code, deps, runtime: { node, v8, icu: icu ?? null, unicode: unicode ?? null } }))
  })()
  return cached
}
