import { z } from 'zod'
import { BuilderRef, Hex64, RecipeRef, SourceChanges } from '../emit/schema.ts'
import { JevError } from '../errors.ts'
import type { LoadedSource } from '../load-sources.ts'
import { writeFileAtomic } from '../util/atomic.ts'
import { readRegular } from '../util/files.ts'
import { describeJsonStrictProblem, findJsonStrictProblem, jsonPath } from './json-strict.ts'
import { notReserved, type Recipe, type TrainingFile } from './schema.ts'

/** A training file the contamination check read, as the lock pins it. */
const LockedTraining = z.strictObject({
  source: z.string(),
  split: z.string(),
  repo: z.string(),
  revision: z.string(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  path: z.string(),
  size: z.int(),
  sha256: Hex64,
  rows: z.int(),
  rowsHash: Hex64,
})

/**
 * The "Changes from" figures of a recipe that types none: computed once, at release, from builds of both versions
 * (npm run compare-builds -- PREVIOUS_DIR NEW_DIR --pin) and pinned here, since the recipe's hash would change with them.
 */
export const PinnedChanges = z.strictObject({
  version: z.string().regex(/^\d+\.\d+\.\d+$/),
  bySource: z.record(z.string().refine(notReserved, 'is a reserved name'), SourceChanges),
})
export type PinnedChanges = z.infer<typeof PinnedChanges>

/** What a build was made from, byte for byte and row for row; committed next to its recipe. */
export const Lock = z.strictObject({
  lockVersion: z.literal(1),
  recipe: RecipeRef,
  builder: BuilderRef,
  sources: z.array(
    z.strictObject({
      name: z.string(),
      repo: z.string(),
      revision: z.string(),
      commit: z.string().regex(/^[0-9a-f]{40}$/),
      files: z.array(z.strictObject({ split: z.string(), path: z.string(), size: z.int(), sha256: Hex64, rows: z.int(), rowsHash: Hex64 })),
    }),
  ),
  /** the training files the contamination check read (recipes with a `contamination` section; an optional file not got is under notChecked) */
  contamination: z.array(LockedTraining).optional(),
  /**
   * the optional training files the build could not get, and why; a build against this lock leaves them
   * unchecked wherever it runs, so its card is the locked build's (--update-lock reads them where they are there)
   */
  notChecked: z
    .array(LockedTraining.pick({ source: true, split: true, repo: true, revision: true, path: true }).extend({ reason: z.string() }))
    .optional(),
  /** the "Changes from" figures the card and manifest state, where the recipe types none (--update-lock keeps them) */
  changesFrom: PinnedChanges.optional(),
})
export type Lock = z.infer<typeof Lock>

export function lockPathFor(recipePath: string): string {
  return recipePath.replace(/(\.json)?$/, '.lock.json')
}

export async function readLock(path: string): Promise<Lock | null> {
  let text: string
  try {
    text = (await readRegular(path)).toString('utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new JevError('IO', `cannot read lock ${path}: ${(e as Error).message}`, { file: path })
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    throw new JevError('LOCK', `lock ${path} is not valid JSON: ${(e as Error).message}`, {
      file: path,
      hint: 'the lock file itself is damaged: restore it (git checkout -- FILE) or write it anew with --update-lock',
    })
  }
  const strict = findJsonStrictProblem(text)
  if (strict)
    throw new JevError('LOCK', `lock ${path}: ${describeJsonStrictProblem(strict)}`, {
      file: path,
      line: strict.line,
      path: jsonPath(strict.path),
      hint: 'the builder writes each key once: restore the lock (git checkout -- FILE) or write it anew with --update-lock',
    })
  const parsed = Lock.safeParse(json)
  if (!parsed.success)
    throw new JevError(
      'LOCK',
      `lock ${path} is malformed: ${parsed.error.issues.map((i) => `$.${i.path.join('.')}: ${i.message}`).join('; ')}`,
      { file: path, hint: 'the lock file itself is damaged: restore it (git checkout -- FILE) or write it anew with --update-lock' },
    )
  return parsed.data
}

export function makeLock(
  recipe: Recipe,
  recipeHash: string,
  builder: Lock['builder'],
  sources: readonly LoadedSource[],
  /** the training files the contamination check read, and the optional ones it could not get, as lockEntries (src/contam/load.ts) makes them */
  contamination?: Pick<Lock, 'contamination' | 'notChecked'>,
  /** the "Changes from" figures the build took from the lock */
  changesFrom?: PinnedChanges,
): Lock {
  return {
    lockVersion: 1,
    recipe: { name: recipe.name, version: recipe.version, hash: recipeHash },
    builder: { ...builder },
    sources: sources.map((s) => ({
      name: s.spec.name,
      repo: s.spec.repo,
      revision: s.spec.revision,
      commit: s.commit,
      files: s.files.map((f) => ({ split: f.split, path: f.path, size: f.size, sha256: f.sha256, rows: f.rows, rowsHash: f.rowsHash })),
    })),
    ...(contamination?.contamination ? { contamination: contamination.contamination } : {}),
    ...(contamination?.notChecked?.length ? { notChecked: contamination.notChecked } : {}),
    ...(changesFrom ? { changesFrom } : {}),
  }
}

export async function writeLock(path: string, lock: Lock): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(lock, null, 2)}\n`)
}

/** The revision to fetch for a source: the lock's resolved commit when frozen. */
export function lockedRevision(lock: Lock | null, source: Recipe['sources'][number]): string {
  const entry = lock?.sources.find((s) => s.name === source.name)
  if (!lock || !entry) return source.revision
  if (entry.repo !== source.repo || entry.revision !== source.revision)
    throw new JevError(
      'LOCK',
      `source ${source.name}: the recipe asks for ${source.repo}@${source.revision} but the lock has ${entry.repo}@${entry.revision}; run with --update-lock to re-resolve`,
      { source: source.name, repo: source.repo, revision: source.revision },
    )
  return entry.commit
}

/**
 * Compares what was loaded with the lock. Decoded rows that differ are an
 * error; bytes that differ over the same rows (another Parquet encoding) only warn.
 */
export function checkAgainstLock(lock: Lock, sources: readonly LoadedSource[]): string[] {
  const warnings: string[] = []
  for (const s of sources) {
    const entry = lock.sources.find((e) => e.name === s.spec.name)
    if (!entry) throw new JevError('LOCK', `source ${s.spec.name} is not in the lock; run with --update-lock`, { source: s.spec.name })
    for (const f of s.files) {
      const locked = entry.files.find((e) => e.path === f.path && e.split === f.split)
      const ctx = { source: s.spec.name, repo: s.spec.repo, file: f.path }
      if (!locked) throw new JevError('LOCK', `${s.spec.name}: ${f.path} is not in the lock; run with --update-lock`, ctx)
      if (locked.rowsHash !== f.rowsHash || locked.rows !== f.rows)
        throw new JevError(
          'LOCK',
          `${s.spec.name}: ${f.path} has other rows than the lock: expected ${locked.rows} rows hashing ${locked.rowsHash}, received ${f.rows} rows hashing ${f.rowsHash}`,
          ctx,
        )
      if (locked.sha256 !== f.sha256)
        warnings.push(
          `${s.spec.name}: ${f.path} has other bytes than the lock (sha256 ${f.sha256}, locked ${locked.sha256}) but the same ${f.rows} rows; probably another Parquet encoding`,
        )
    }
    if (entry.files.length !== s.files.length)
      throw new JevError(
        'LOCK',
        `${s.spec.name}: the lock lists ${entry.files.length} files, the recipe ${s.files.length}; run with --update-lock`,
        { source: s.spec.name },
      )
  }
  return warnings
}

/** The lock's entry for a training file, matched by source, repo and path. */
/** The lock's record of an optional training file the locked build could not get. */
export function lockedNotChecked(lock: Lock | null, t: TrainingFile): NonNullable<Lock['notChecked']>[number] | undefined {
  return lock?.notChecked?.find((e) => e.source === t.source && e.repo === t.repo && e.path === t.path)
}

export function lockedTraining(lock: Lock | null, t: TrainingFile): NonNullable<Lock['contamination']>[number] | undefined {
  return lock?.contamination?.find((e) => e.source === t.source && e.repo === t.repo && e.path === t.path)
}
