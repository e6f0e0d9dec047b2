/**
 * An output folder's files as of one build. A build replacing the folder moves its files in one by one,
 * under the swap lock (src/write/out-swap.ts), so files read one after another can come from two builds.
 * A pass reads every file once into memory; it is taken as the folder's own when it agrees with the
 * manifest read in it, or when no file was replaced while it read and no swap held the lock meanwhile.
 * Otherwise the folder is read again, until a bounded time has passed.
 */
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { OUTPUTS } from '../emit/outputs.ts'
import { JevError } from '../errors.ts'
import { sha256Hex } from '../util/hash.ts'
import { swapRunning } from '../write/out-swap.ts'

/** Each output file's bytes, null when missing. */
export type RawOutputs = Record<string, Buffer | null>

/** How long to read again while swaps keep the folder changing (a build's swap holds its lock for milliseconds). */
const MAX_WAIT_MS = 60_000
const pauseMs = (n: number) => Math.min(200, 5 * n)

/** Which file each output name is: inode, change time and size, or null when missing. */
async function identities(dir: string): Promise<(string | null)[]> {
  return Promise.all(
    OUTPUTS.map((o) =>
      stat(join(dir, o.name), { bigint: true }).then(
        (s) => `${s.ino}:${s.ctimeNs}:${s.size}`,
        () => null,
      ),
    ),
  )
}

async function readPass(dir: string): Promise<{ raw: RawOutputs; settled: boolean }> {
  const before = await identities(dir)
  const running = await swapRunning(dir)
  const raw: RawOutputs = {}
  for (const o of OUTPUTS) raw[o.name] = await readFile(join(dir, o.name)).catch(() => null)
  const after = await identities(dir)
  return { raw, settled: !running && before.every((id, i) => id === after[i]) }
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

/**
 * The folder's output files, read as of one build (see above). A disagreement read while no swap ran is
 * the folder's own, for the checks to report; a folder swapped throughout MAX_WAIT_MS is an IO error.
 */
export async function readOutputs(dir: string, maxWaitMs = MAX_WAIT_MS): Promise<RawOutputs> {
  const start = performance.now()
  for (let n = 1; ; n++) {
    const { raw, settled } = await readPass(dir)
    if (settled || agreesWithManifest(raw)) return raw
    if (performance.now() - start > maxWaitMs)
      throw new JevError('IO', `${dir} was being replaced by builds throughout ${Math.round(maxWaitMs / 1000)} s`, {
        file: dir,
        hint: 'check it again once the build writing it is done',
      })
    await new Promise((r) => setTimeout(r, pauseMs(n)))
  }
}
