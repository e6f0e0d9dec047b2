import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { JevError } from '../errors.ts'
import { BUILDER, PACKAGE_ROOT } from '../version.ts'

const SEMVER = /^\d+\.\d+\.\d+$/

/** One earlier dataset version: the commit of this repository whose builder made its published bytes. */
export const EarlierVersion = z.strictObject({
  version: z.string().regex(SEMVER),
  builder: z.string().regex(SEMVER).describe("that commit's package version"),
  commit: z.string().regex(/^[0-9a-f]{40}$/, 'must be a full 40-hex commit'),
  sums: z
    .string()
    .regex(/^[\w.-]+\.sha256$/)
    .describe('the sha256 sums of its test.jsonl and val.jsonl, in recipes/'),
})
export type EarlierVersion = z.infer<typeof EarlierVersion>

/** recipes/versions.json: every published version the current builder no longer builds. */
export const Versions = z.strictObject({ name: z.string().min(1), versions: z.array(EarlierVersion) })
export type Versions = z.infer<typeof Versions>

export const VERSIONS_FILE = join(PACKAGE_ROOT, 'recipes', 'versions.json')

let cached: Versions | undefined
/** The package's own recipes/versions.json, read once. */
export function earlierVersions(): Versions {
  if (cached) return cached
  const parsed = Versions.safeParse(JSON.parse(readFileSync(VERSIONS_FILE, 'utf8')))
  // a malformed file is the package's own bug, not the user's input
  if (!parsed.success) throw new Error(`${VERSIONS_FILE} is malformed: ${parsed.error.message}`)
  cached = parsed.data
  return cached
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/**
 * Refuses a recipe the current builder does not build: an earlier published version (built by the commit that
 * made it) or a recipe naming another builder. Runs on the raw JSON, before the schema, which may not fit it.
 */
export function assertThisBuilder(value: unknown, file: string, versions: Versions = earlierVersions()): void {
  if (typeof value !== 'object' || value === null) return
  const raw = value as Record<string, unknown>
  const name = str(raw.name)
  const version = str(raw.version)
  const builder = str(raw.builder)
  const earlier = name === versions.name ? versions.versions.find((v) => v.version === version) : undefined
  if (earlier) {
    const short = earlier.commit.slice(0, 12)
    throw new JevError(
      'BUILDER',
      `${file}: ${name} ${version} is an earlier version, built by the builder at commit ${short} (${earlier.builder}); this builder (${BUILDER.version}) builds only the current rules`,
      {
        file,
        version,
        builder: earlier.builder,
        commit: earlier.commit,
        hint: `git worktree add ../${name}-${version} ${short} && cd ../${name}-${version} && npm ci && npm run build-dataset (README: "Earlier versions")`,
      },
    )
  }
  if (builder !== undefined && builder !== BUILDER.version)
    throw new JevError('BUILDER', `${file}: the recipe is for builder ${builder}, this is builder ${BUILDER.version}`, {
      file,
      builder,
      field: 'builder',
      hint: `build it with jev-bench-builder ${builder} (recipes/versions.json names the commit of each published version), or set "builder": "${BUILDER.version}" if it is written for this builder's rules`,
    })
}
