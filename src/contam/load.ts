import type { UpstreamQuestion } from '../adapt/adapter.ts'
import type { TrainingQuestion } from '../borrow/related.ts'
import { isJevError, JevError } from '../errors.ts'
import type { FileFetcher, SourceFile } from '../fetch/types.ts'
import { type LoadedFile, loadSource } from '../load-sources.ts'
import { type Lock, lockedNotChecked, lockedTraining } from '../recipe/lock.ts'
import type { Recipe, SourceSpec, TrainingFile } from '../recipe/schema.ts'
import { normalize } from '../util/canonical.ts'

/** A training file as the build found it: read, or (optional only) not available and why. */
export type TrainingLoad =
  | { entry: TrainingFile; checked: true; commit: string; file: LoadedFile }
  | { entry: TrainingFile; checked: false; reason: string }

/** Codes of a file the build cannot get (as against one it got and could not read). */
const UNAVAILABLE = new Set(['NOT_FOUND', 'OFFLINE', 'NETWORK', 'AUTH', 'IO'])

/** The revision to fetch a training file at: the lock's resolved commit when frozen. */
function revisionOf(lock: Lock | null, t: TrainingFile): string {
  const entry = lockedTraining(lock, t)
  if (!entry) return t.revision
  if (entry.revision !== t.revision)
    throw new JevError(
      'LOCK',
      `contamination: ${t.source} ${t.repo}/${t.path}: the recipe asks for revision ${t.revision} but the lock has ${entry.revision}; run with --update-lock to re-resolve`,
      { source: t.source, repo: t.repo, revision: t.revision, file: t.path },
    )
  return entry.commit
}

/** A training file fetched, with its revision, or (optional only) not available and why. */
export type FetchedTraining =
  | { entry: TrainingFile; revision: string; file: SourceFile }
  | { entry: TrainingFile; checked: false; reason: string }

/**
 * Fetches every training file of the recipe's `contamination`, without decoding it. A required file that
 * cannot be got is an error naming it; an optional one is reported as not available, and one the lock
 * records as not got is not fetched (the card then says what the locked build's did).
 */
export async function fetchTraining(recipe: Recipe, fetcher: FileFetcher, lock: Lock | null): Promise<FetchedTraining[]> {
  const out: FetchedTraining[] = []
  for (const t of recipe.contamination?.against ?? []) {
    const unchecked = t.optional ? lockedNotChecked(lock, t) : undefined
    if (unchecked && unchecked.revision === t.revision) {
      out.push({ entry: t, checked: false, reason: unchecked.reason })
      continue
    }
    const revision = revisionOf(lock, t)
    try {
      out.push({ entry: t, revision, file: await fetcher.fetchFile(t.repo, revision, t.path) })
    } catch (e) {
      if (!isJevError(e) || !UNAVAILABLE.has(e.code)) throw e
      if (t.optional) {
        out.push({ entry: t, checked: false, reason: `not available from the ${fetcher.kind === 'mirror' ? 'mirror' : 'Hub'}` })
        continue
      }
      throw new JevError(
        e.code,
        `contamination: cannot get the training file ${t.repo}/${t.path} (${t.source} ${t.split}): ${e.message}`,
        {
          ...e.context,
          source: t.source,
          repo: t.repo,
          revision,
          file: t.path,
          hint: 'check its repo, revision and path, or mark it "optional": true in contamination.against so the card reports it as not checked',
        },
        { cause: e },
      )
    }
  }
  return out
}

/** The training splits as read: each file's load, and per source the questions of its required files. */
export interface TrainingSplits {
  loads: TrainingLoad[]
  /**
   * per source, each question of its required training files with its options, normalised, in file order: what the
   * plausible rule's `related` reads (an optional file may be missing, and the records must not change with it)
   */
  related: Map<string, TrainingQuestion[]>
}

/**
 * The one reader of the training splits: decodes the fetched files, each question read with its source's adapter
 * and handed to `scan` (the contamination check) as it comes, and keeps the required files' questions for borrowing.
 */
export async function readTraining(
  recipe: Recipe,
  fetched: readonly FetchedTraining[],
  fetcher: FileFetcher,
  trusted: ReadonlySet<string> = new Set(),
  scan: (q: UpstreamQuestion & { normQuestion: string; normOptions: string[] }, t: TrainingFile, commit: string) => void = () => {},
): Promise<TrainingSplits> {
  const out: TrainingLoad[] = []
  const related = new Map<string, TrainingQuestion[]>()
  for (const f of fetched) {
    if (!('file' in f)) {
      out.push(f)
      continue
    }
    const t = f.entry
    const spec = recipe.sources.find((s) => s.name === t.source)!
    // the file read as its source's own files are, under its own split
    const training: SourceSpec = { ...spec, repo: t.repo, revision: t.revision, files: { [t.split]: [t.path] } }
    const { file } = f
    let questions: TrainingQuestion[] | undefined
    if (!t.optional && !(questions = related.get(t.source))) related.set(t.source, (questions = []))
    const loaded = await loadSource(training, f.revision, fetcher, {
      trusted: new Set(trusted),
      prefetched: Promise.resolve([file]),
      onQuestion: (q) => {
        // normalised once, for the check and the related options alike
        const normQuestion = normalize(q.question)
        const normOptions = q.options.map(normalize)
        scan({ ...q, normQuestion, normOptions }, t, file.commit)
        questions?.push({ question: normQuestion, options: normOptions, answer: q.answer })
      },
    })
    out.push({ entry: t, checked: true, commit: loaded.commit, file: loaded.files[0]! })
  }
  return { loads: out, related }
}

/** The lock's entries for the training files read, and for the optional ones not got. */
export function lockEntries(training: readonly TrainingLoad[]): Pick<Lock, 'contamination' | 'notChecked'> {
  const notChecked = training.flatMap((t) =>
    t.checked
      ? []
      : [
          {
            source: t.entry.source,
            split: t.entry.split,
            repo: t.entry.repo,
            revision: t.entry.revision,
            path: t.entry.path,
            reason: t.reason,
          },
        ],
  )
  return { contamination: checkedEntries(training), notChecked }
}

function checkedEntries(training: readonly TrainingLoad[]): NonNullable<Lock['contamination']> {
  return training.flatMap((t) =>
    t.checked
      ? [
          {
            source: t.entry.source,
            split: t.entry.split,
            repo: t.entry.repo,
            revision: t.entry.revision,
            commit: t.commit,
            path: t.file.path,
            size: t.file.size,
            sha256: t.file.sha256,
            rows: t.file.rows,
            rowsHash: t.file.rowsHash,
          },
        ]
      : [],
  )
}

/**
 * Compares the training files read with the lock, as checkAgainstLock does source files. A required file
 * the lock lacks is an error; an optional one only warns, since a mirror build cannot have locked it.
 */
export function checkTrainingAgainstLock(lock: Lock, training: readonly TrainingLoad[]): string[] {
  const warnings: string[] = []
  for (const t of training) {
    if (!t.checked) continue
    const { source, repo, path } = t.entry
    const locked = lockedTraining(lock, t.entry)
    const ctx = { source, repo, file: path }
    if (!locked) {
      if (!t.entry.optional)
        throw new JevError('LOCK', `contamination: ${source} ${repo}/${path} is not in the lock; run with --update-lock`, ctx)
      warnings.push(`contamination: ${source} ${repo}/${path} was read but is not in the lock; --update-lock records it`)
      continue
    }
    if (locked.rowsHash !== t.file.rowsHash || locked.rows !== t.file.rows)
      throw new JevError(
        'LOCK',
        `contamination: ${source} ${repo}/${path} has other rows than the lock: expected ${locked.rows} rows hashing ${locked.rowsHash}, received ${t.file.rows} rows hashing ${t.file.rowsHash}`,
        ctx,
      )
    if (locked.sha256 !== t.file.sha256)
      warnings.push(
        `contamination: ${source} ${repo}/${path} has other bytes than the lock (sha256 ${t.file.sha256}, locked ${locked.sha256}) but the same ${t.file.rows} rows; probably another Parquet encoding`,
      )
  }
  return warnings
}
