/**
 * An output folder's files as of one build. A build replacing the folder moves its files in one by one
 * (src/write/out-swap.ts), so files read one after another can come from two builds. Every file is read
 * once into memory and checked against the manifest read in the same pass; when they disagree and the
 * next pass reads other bytes, a swap ran in between, and the files are read again, a bounded number of
 * times. A disagreement that two passes read alike is the folder's own, for the checks to report.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { OUTPUTS } from '../emit/outputs.ts'
import { sha256Hex } from '../util/hash.ts'

/** Each output file's bytes, null when missing. */
export type RawOutputs = Record<string, Buffer | null>

/** Passes at most, and the pause before the n-th (a swap moves a build's files in within milliseconds). */
const PASSES = 20
const pauseMs = (n: number) => Math.min(200, 10 * n)

async function readPass(dir: string): Promise<RawOutputs> {
  const raw: RawOutputs = {}
  for (const o of OUTPUTS) raw[o.name] = await readFile(join(dir, o.name)).catch(() => null)
  return raw
}

/** Whether the files are the ones the manifest read with them lists, byte for byte; true when there is no manifest to tell. */
export function agreesWithManifest(raw: RawOutputs): boolean {
  let listed: { path?: unknown; sha256?: unknown }[]
  try {
    const m = JSON.parse(raw['manifest.json']?.toString('utf8') ?? '') as { outputs?: unknown }
    if (!Array.isArray(m.outputs)) return true
    listed = m.outputs as typeof listed
  } catch {
    return true
  }
  const paths = new Set(listed.map((o) => o.path))
  for (const o of listed) {
    const bytes = typeof o.path === 'string' && Object.hasOwn(raw, o.path) ? raw[o.path] : null
    if (!bytes || sha256Hex(bytes) !== o.sha256) return false
  }
  return Object.entries(raw).every(([name, bytes]) => bytes === null || name === 'manifest.json' || paths.has(name))
}

const samePass = (a: RawOutputs, b: RawOutputs) =>
  OUTPUTS.every((o) => (a[o.name] === null ? b[o.name] === null : b[o.name] !== null && a[o.name]!.equals(b[o.name]!)))

/** The folder's output files, read as of one build (see above). */
export async function readOutputs(dir: string): Promise<RawOutputs> {
  let raw = await readPass(dir)
  for (let n = 1; n < PASSES && !agreesWithManifest(raw); n++) {
    await new Promise((r) => setTimeout(r, pauseMs(n)))
    const again = await readPass(dir)
    if (samePass(raw, again)) break
    raw = again
  }
  return raw
}
