/**
 * A content-addressed cache of prepared sources, so a warm build skips decoding and the per-row work.
 * An entry is keyed by everything the preparation reads: the sha256 of every file of the source (hashed
 * from the bytes this run read), the source's recipe entry, the recipe fields preparing reads (seed,
 * exclusions), the builder's own source hash and the Node version (v8's serialisation format). It is
 * written atomically and verified on read (a sha256 of its bytes): a torn, corrupt or foreign entry is
 * a miss and is prepared again, never trusted and never fatal.
 */
import { readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { deserialize, serialize } from 'node:v8'
import type { Borrowed } from '../borrow/lend.ts'
import type { TrainingQuestion } from '../borrow/related.ts'
import type { Match } from '../contam/check.ts'
import type { Audit } from '../emit/audit.ts'
import type { DropCounts } from '../prepare/prepare.ts'
import { type Recipe, type SourceSpec, SPLITS } from '../recipe/schema.ts'
import { removeStaleTemps, writeAtomic } from '../util/atomic.ts'
import { canonicalJson } from '../util/canonical.ts'
import { readRegular } from '../util/files.ts'
import { sha256Hex } from '../util/hash.ts'
import type { PackedSource } from './store.ts'

/** Bumped when an entry's layout changes; part of the key and of the header (2: the candidates packed, src/prepared-cache/store.ts). */
const FORMAT = 2
const MAGIC = Buffer.from(`jev-bench prepared source v${FORMAT}\n`)
const HASH_LEN = 64
/** Entries kept per source name (e.g. two recipe versions, and a builder being edited); older ones are removed. */
const KEEP_PER_SOURCE = 4

/** What a warm build takes instead of decoding: the prepared source and each file's row count and row hash. */
export interface PreparedEntry {
  files: { rows: number; rowsHash: string }[]
  prepared: PackedSource
}

/** Per group's side of one source, each item's lending candidates by id (src/build.ts's LendingMemos, that source's part). */
export type LendingEntry = Map<string, Map<string, Borrowed[]>>

/** What a build made of its records for the card: the distractor audit and the card's text (which the audit's figures are part of). */
export interface CardEntry {
  audit: Audit
  card: string
}

/**
 * What the contamination check found over the prepared sources: per training file of the recipe, its row count
 * and row hash (null: not available), the flagged candidates, and the required files' questions the plausible rule reads (`related`).
 */
export interface ContaminationEntry {
  files: ({ rows: number; rowsHash: string } | null)[]
  matches: Map<string, Match>
  related: Map<string, TrainingQuestion[]>
}

/** Four kinds of entry: a source prepared, the lending worked out over it under one recipe, a build's card, and the contamination check. */
export interface EntryKinds {
  prepared: PreparedEntry
  lending: LendingEntry
  card: CardEntry
  contamination: ContaminationEntry
}

export interface PreparedCache {
  /** the entry for these inputs, or null (none, or one that fails its check) */
  get<K extends keyof EntryKinds>(kind: K, key: string, source: string): Promise<EntryKinds[K] | null>
  /** stores an entry; a failure to write is ignored (the cache only saves time) */
  put<K extends keyof EntryKinds>(kind: K, key: string, source: string, entry: EntryKinds[K]): Promise<void>
}

/** The key of a source's prepared entry: every input preparing it reads. */
export function preparedKey(builder: string, recipe: Recipe, spec: SourceSpec, fileSha256s: readonly string[]): string {
  return sha256Hex(
    canonicalJson({
      format: FORMAT,
      builder,
      node: process.versions.node,
      spec,
      seed: recipe.seed,
      exclude: recipe.exclude,
      files: fileSha256s,
    }),
  )
}

/**
 * The key of what the lending works out over a prepared source: the prepared entry's key (the source and
 * the builder), the whole recipe, which holds the rules, the seed and the negation test it reads, and the
 * sha256 of the training files the plausible rule reads (`training`, in the recipe's order).
 */
export function lendingKey(prepared: string, recipe: Recipe, training: readonly string[] = []): string {
  return sha256Hex(canonicalJson({ format: FORMAT, prepared, recipe, ...(training.length ? { training } : {}) }))
}

/**
 * The key of a build's card and audit: all they are made of. The records and the provenance, as the bytes of
 * test.jsonl, val.jsonl and provenance.jsonl, which spell them out whole (and with them the stats and the files'
 * sizes the card states); the drop counts; the recipe; the builder, both its code (`builder`) and the name and
 * version the card prints, which package.json gives and the code's hash does not hold.
 */
export function cardKey(
  builder: string,
  printed: { name: string; version: string },
  recipe: Recipe,
  outputs: readonly string[],
  drops: ReadonlyMap<string, DropCounts>,
): string {
  return sha256Hex(
    canonicalJson({
      format: FORMAT,
      builder,
      printed: { name: printed.name, version: printed.version },
      recipe,
      outputs: outputs.map((o) => sha256Hex(o)),
      // in the maps' order, which the card's tables keep
      drops: [...drops].map(([source, counts]) => [source, [...counts]]),
    }),
  )
}

/**
 * The key of the contamination check: the recipe's `contamination` section, the prepared entries' keys (the
 * candidates, the adapters that read the training rows, the builder), and the sha256 of every training file (null: not got).
 */
export function contaminationKey(recipe: Recipe, prepared: readonly string[], training: readonly (string | null)[]): string {
  return sha256Hex(canonicalJson({ format: FORMAT, contamination: recipe.contamination ?? null, prepared, training }))
}

/** File names carry the source name and kind so old entries can be pruned; the name is the recipe's, kept to safe characters. */
function entryName(kind: keyof EntryKinds, key: string, source: string): string {
  return `${source.replace(/[^A-Za-z0-9._-]/g, '_')}.${kind}.${key}.v8`
}

const isKind: { [K in keyof EntryKinds]: (v: unknown) => boolean } = {
  prepared: (v) =>
    typeof v === 'object' &&
    v !== null &&
    Array.isArray((v as PreparedEntry).files) &&
    (v as PreparedEntry).prepared?.drops instanceof Map &&
    (v as PreparedEntry).prepared.texts instanceof Uint8Array,
  lending: (v) => v instanceof Map,
  contamination: (v) =>
    Array.isArray((v as Partial<ContaminationEntry> | null)?.files) &&
    (v as ContaminationEntry).matches instanceof Map &&
    (v as ContaminationEntry).related instanceof Map,
  // the entry's hash and key vouch for its bytes already; the audit schema's zod parse cost ~7 ms of a warm build
  card: (v) =>
    typeof (v as Partial<CardEntry> | null)?.card === 'string' &&
    SPLITS.every((s) => typeof (v as CardEntry).audit?.[s]?.bySource === 'object'),
}

export function dirPreparedCache(dir: string): PreparedCache {
  // once, on the first use: temp files of builds killed mid-write go even when this build writes nothing
  let swept: Promise<unknown> | undefined
  const sweep = () => (swept ??= removeStaleTemps(dir, 'tmp').catch(() => []))
  return {
    async get(kind, key, source) {
      await sweep()
      const bytes = await readRegular(join(dir, entryName(kind, key, source))).catch(() => null)
      const got = bytes && decodeEntry(bytes, key)
      return got !== null && isKind[kind](got) ? (got as EntryKinds[typeof kind]) : null
    },
    async put(kind, key, source, entry) {
      await sweep()
      try {
        await writeAtomic(join(dir, entryName(kind, key, source)), encodeEntry(key, entry))
        await prune(dir, entryName(kind, key, source), entryName(kind, '', source).slice(0, -'.v8'.length))
      } catch {
        // a read-only or full disk: the build goes on uncached
      }
    },
  }
}

/** The header, the payload's sha256 (hex), then the v8 serialisation of the key and the entry. */
export function encodeEntry(key: string, entry: unknown): Buffer {
  const payload = serialize({ key, entry })
  return Buffer.concat([MAGIC, Buffer.from(sha256Hex(payload)), payload])
}

/** The entry, if the bytes are whole, unaltered and made for this key; otherwise null. */
export function decodeEntry(bytes: Uint8Array, key: string): unknown {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const start = MAGIC.length + HASH_LEN
  if (buf.length <= start || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return null
  const payload = buf.subarray(start)
  if (sha256Hex(payload) !== buf.toString('latin1', MAGIC.length, start)) return null
  try {
    const got = deserialize(payload) as { key?: unknown; entry?: unknown }
    return got.key === key && got.entry !== undefined ? got.entry : null
  } catch {
    return null
  }
}

/** Keeps the newest entries of a source and kind (`prefix`), `keep` among them. */
async function prune(dir: string, keep: string, prefix: string): Promise<void> {
  await removeStaleTemps(dir, 'tmp')
  const mine: { name: string; mtime: number }[] = []
  for (const name of await readdir(dir)) {
    if (name === keep || !name.startsWith(prefix) || !/^[0-9a-f]{64}\.v8$/.test(name.slice(prefix.length))) continue
    const st = await stat(join(dir, name)).catch(() => null)
    if (st) mine.push({ name, mtime: st.mtimeMs })
  }
  mine.sort((a, b) => b.mtime - a.mtime)
  for (const { name } of mine.slice(KEEP_PER_SOURCE - 1)) await rm(join(dir, name), { force: true })
}
