import { z } from 'zod'
import { ContaminationSummary } from '../contam/report.ts'
import type { LoadedSource } from '../load-sources.ts'
import type { DropCounts } from '../prepare/prepare.ts'
import type { Split } from '../recipe/schema.ts'
import { setHash, sha256Hex } from '../util/hash.ts'
import { Audit } from './audit.ts'
import type { OutputFile } from './outputs.ts'
import { BuilderRef, Hex64, RecipeRef, SourceChanges } from './schema.ts'
import type { DatasetStats } from './stats.ts'

export const Manifest = z.strictObject({
  recipe: RecipeRef,
  seed: z.int(),
  builder: BuilderRef,
  sources: z.array(
    z.strictObject({
      name: z.string(),
      repo: z.string(),
      revision: z.string(),
      commit: z.string(),
      config: z.string(),
      files: z.array(z.strictObject({ split: z.string(), path: z.string(), rows: z.int(), rowsHash: Hex64 })),
    }),
  ),
  outputs: z.array(z.strictObject({ path: z.string(), sha256: Hex64, bytes: z.int(), rows: z.int().optional() })),
  datasetHash: Hex64,
  counts: z.strictObject({
    bySource: z.record(z.string(), z.strictObject({ test: z.int(), val: z.int() })),
    byChoices: z.strictObject({ test: z.record(z.string(), z.int()), val: z.record(z.string(), z.int()) }),
  }),
  drops: z.record(z.string(), z.record(z.string(), z.int())),
  /** the distractor audit (recipes from 1.1.0 on; a manifest of 1.0.0 has none) */
  audit: Audit.optional(),
  /** the contamination check (recipes with a `contamination` section) */
  contamination: ContaminationSummary.optional(),
  /** per split, the plausible rule's threshold level: 0, its own (1.2.0's fallbacks made it more) */
  borrowingLevels: z.strictObject({ test: z.int().nonnegative(), val: z.int().nonnegative() }).optional(),
  /** the "Changes from" figures pinned in the lock (recipes without typed ones) */
  changesFrom: z.strictObject({ version: z.string(), bySource: z.record(z.string(), SourceChanges) }).optional(),
})
export type Manifest = z.infer<typeof Manifest>

/** sha256 over the sorted per-record hashes: the same data in any line order hashes the same. */
export function datasetHash(lines: Record<Split, readonly string[]>): string {
  return setHash((['test', 'val'] as const).flatMap((split) => lines[split].map((l) => sha256Hex(`${split}\t${l}`))))
}

export function recordLines(jsonl: string): string[] {
  return jsonl.split('\n').filter((l) => l !== '')
}

export interface ManifestInput {
  recipe: { name: string; version: string; hash: string; seed: number }
  builder: { name: string; version: string }
  sources: readonly LoadedSource[]
  outputs: readonly (OutputFile & { rows?: number })[]
  jsonl: Record<Split, string>
  stats: DatasetStats
  drops: ReadonlyMap<string, DropCounts>
  audit: Audit
  contamination?: ContaminationSummary
  borrowingLevels?: Record<'test' | 'val', number>
  changesFrom?: Manifest['changesFrom']
}

export function buildManifest(input: ManifestInput): Manifest {
  const drops: Manifest['drops'] = {}
  for (const [source, counts] of input.drops)
    drops[source] = Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  return {
    recipe: { name: input.recipe.name, version: input.recipe.version, hash: input.recipe.hash },
    seed: input.recipe.seed,
    builder: input.builder,
    sources: input.sources.map((s) => ({
      name: s.spec.name,
      repo: s.spec.repo,
      revision: s.spec.revision,
      commit: s.commit,
      config: s.spec.config,
      files: s.files.map((f) => ({ split: f.split, path: f.path, rows: f.rows, rowsHash: f.rowsHash })),
    })),
    outputs: input.outputs.map((o) => ({
      path: o.path,
      sha256: o.sha256,
      bytes: o.bytes,
      ...(o.rows === undefined ? {} : { rows: o.rows }),
    })),
    datasetHash: datasetHash({ test: recordLines(input.jsonl.test), val: recordLines(input.jsonl.val) }),
    counts: { bySource: input.stats.bySource, byChoices: input.stats.byChoices },
    drops,
    audit: input.audit,
    ...(input.contamination ? { contamination: input.contamination } : {}),
    ...(input.borrowingLevels ? { borrowingLevels: input.borrowingLevels } : {}),
    ...(input.changesFrom ? { changesFrom: input.changesFrom } : {}),
  }
}

export function manifestJson(m: Manifest): string {
  return `${JSON.stringify(m, null, 2)}\n`
}
