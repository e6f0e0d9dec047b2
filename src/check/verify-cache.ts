/**
 * Whether the cache of prepared sources made a folder differ from its rebuild. verify-dataset rebuilds
 * without the cache; when the inputs are the same and the output is not (what would read as
 * `builder-changed`), a second rebuild with the cache tells a cache-made difference from a builder's.
 */

import type { BuiltDataset } from '../build-io.ts'
import { outputBytes } from '../emit/outputs.ts'
import type { VerifyResult } from './verify.ts'

/** The files on which two builds differ, in the builds' order. */
function differing(a: BuiltDataset, b: BuiltDataset): string[] {
  return [...a.files]
    .filter(([name, content]) => {
      const other = b.files.get(name)
      return other === undefined || Buffer.compare(outputBytes(content), outputBytes(other)) !== 0
    })
    .map(([name]) => name)
}

/**
 * `result` with cause `prepared-cache` when the build with the cache (`cached`, from `dir`) differs from the one
 * without (`uncached`); `outIsCached`: the folder is byte-identical to the build with the cache.
 */
export function blameCache(
  result: VerifyResult,
  uncached: BuiltDataset,
  cached: BuiltDataset,
  outIsCached: boolean,
  dir: string,
  outDir: string,
): VerifyResult {
  const files = differing(uncached, cached)
  if (files.length === 0) return result
  const sameAsOut = outIsCached
  return {
    ...result,
    cause: 'prepared-cache',
    reasons: [
      `a build with the cache of prepared sources at ${dir} differs from one without it (${files.join(', ')}): an entry there is not what preparing the sources gives, so something other than a build wrote that folder`,
      ...(sameAsOut
        ? [`${outDir}/ was most likely built from that cache; delete ${dir} and build again (or build with --no-prepared-cache)`]
        : []),
    ],
  }
}
