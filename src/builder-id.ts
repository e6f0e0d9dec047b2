/** The builder's own identity for cache keys: a hash of its source, so any edit to the code misses old entries. */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

let cached: Promise<string | null> | undefined

/**
 * Run from dist/, the stamp `npm run compile` wrote (the hash of the src/ it was compiled from); run
 * from src/, the same hash of src/ as it is now. Null when neither can be had: then nothing is cached.
 */
export function builderId(): Promise<string | null> {
  cached ??= (async () => {
    const here = new URL(import.meta.url)
    if (here.pathname.endsWith('.js')) {
      const stamp = await readFile(new URL('.stamp', here), 'utf8').catch(() => '')
      return /^[0-9a-f]{64}$/.test(stamp) ? stamp : null
    }
    try {
      const { srcHash } = await import('../bin/src-hash.mjs')
      return srcHash(fileURLToPath(new URL('..', here)))
    } catch {
      return null
    }
  })()
  return cached
}
