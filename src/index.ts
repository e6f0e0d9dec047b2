// The library: the commands as functions, each taking one options object (camelCase
// names of the command's flags), parsed by the very parser and run by the very code
// the CLI uses; failures throw the CLI's typed errors (JevError, with a stable code).
// Answers are returned, not thrown: a check's problems, a verify's or diff's differences.
import { z } from 'zod'
import { type BuildRun, parseBuild, runBuild } from './cli/build-dataset.ts'
import { parseCheck, runCheck } from './cli/check-dataset.ts'
import { parseCompareResults, runCompareResults } from './cli/compare-results.ts'
import { parseDiff, runDiff } from './cli/diff-dataset.ts'
import { type EvalRun, parseEval, runEval } from './cli/eval-model.ts'
import { type PublishRun, parsePublish, runPublish } from './cli/publish-dataset.ts'
import type { Io } from './cli/run.ts'
import { parseServe, startServe } from './cli/serve-hub.ts'
import { parseVerify, runVerify } from './cli/verify-dataset.ts'
import type { DatasetDiff } from './diff.ts'
import { JevError } from './errors.ts'
import type { Comparison } from './eval/compare.ts'
import type { HubServer } from './hub-server/index.ts'
import type { Progress } from './progress.ts'
import { scrub } from './secrets.ts'
import type { VerifyResult } from './verify.ts'

export { ERROR_CODES, type ErrorCode, isJevError, JevError } from './errors.ts'
export { type FileProgress, NO_PROGRESS, type Progress, progressFor, type TerminalOptions, terminalProgress } from './progress.ts'
export type { BuildRun, Comparison, DatasetDiff, EvalRun, HubServer, PublishRun, VerifyResult }

const str = z.string().min(1)
const PROGRESS_METHODS = ['stage', 'file', 'rows', 'log', 'above', 'end'] as const
const fn = <T>() => z.custom<T>((v) => typeof v === 'function', 'must be a function')
const Common = {
  /** the environment the command reads (HF_TOKEN, HF_ENDPOINT, HF_HUB_OFFLINE, JEV_*); default process.env */
  env: z.record(z.string(), z.string().optional()).optional(),
  /** gets each line the CLI would print (progress, warnings, a publish's steps), HF_TOKEN scrubbed; default: dropped */
  onLine: fn<(line: string) => void>().optional(),
}
const Sources = {
  ...Common,
  recipe: str.optional(),
  lock: str.optional(),
  mirror: str.optional(),
  offline: z.boolean().optional(),
  cacheDir: str.optional(),
  quiet: z.boolean().optional(),
  /**
   * drawn as the build goes: stages, downloads, rows (terminalProgress, or your own); default none. The
   * caller ends it; its lines are not drawn around onLine's, so an onLine printing to the same terminal
   * should print through progress.log
   */
  progress: z
    .custom<Progress>(
      (v) => typeof v === 'object' && v !== null && PROGRESS_METHODS.every((m) => typeof (v as Record<string, unknown>)[m] === 'function'),
      'must be a Progress (stage, file, rows, log, above, end)',
    )
    .optional(),
  /** network bounds in seconds (minRate in bytes/s), as the flags of the same names */
  httpTimeout: z.number().optional(),
  minRate: z.number().optional(),
  rateWindow: z.number().optional(),
  maxRetryAfter: z.number().optional(),
  fileDeadline: z.number().optional(),
}
export const BuildOptions = z.strictObject({
  ...Sources,
  out: str.optional(),
  updateLock: z.boolean().optional(),
  /** neither read nor write the cache of prepared sources (JEV_PREPARED_CACHE in env places it, or turns it off with 0) */
  noPreparedCache: z.boolean().optional(),
})
export const CheckOptions = z.strictObject({ ...Sources, dir: str.optional(), upstream: z.boolean().optional() })
export const VerifyOptions = z.strictObject({ ...Sources, out: str.optional() })
/** `a` and `b`: two folders; or `rev` (a git revision whose out/ is compared) and at most `b` */
export const DiffOptions = z.strictObject({ ...Common, a: str.optional(), b: str.optional(), rev: str.optional() })
export const PublishOptions = z.strictObject({
  ...Sources,
  repo: str,
  out: str.optional(),
  revision: str.optional(),
  tag: str.optional(),
  private: z.boolean().optional(),
  message: str.optional(),
  dryRun: z.boolean().optional(),
  noVerify: z.boolean().optional(),
  fetch: fn<typeof fetch>().optional(),
})
export const ServeOptions = z.strictObject({
  ...Common,
  port: z.int().optional(),
  mirror: str.optional(),
  store: str.optional(),
  host: str.optional(),
  requireToken: z.boolean().optional(),
  log: z.boolean().optional(),
})
const count = z.int().nonnegative()
/** eval-model's flags in camelCase; numbers as numbers, seconds for `timeout` and `maxRetryAfter` */
export const EvalOptions = z.strictObject({
  ...Common,
  url: str.optional(),
  data: str.optional(),
  repo: str.optional(),
  revision: str.optional(),
  api: z.enum(['systemone', 'openai']).optional(),
  model: str.optional(),
  /** sent as a Bearer token; never in a line, the journal or the result */
  apiKey: str.optional(),
  mode: z.enum(['auto', 'logits', 'probabilities']).optional(),
  assistantPrefix: str.optional(),
  workers: count.optional(),
  timeout: z.number().positive().optional(),
  retries: count.optional(),
  maxRetryAfter: z.number().positive().optional(),
  limit: count.optional(),
  out: str.optional(),
  journal: str.optional(),
  fromJournal: str.optional(),
  bootstrap: count.optional(),
  seed: count.optional(),
  offline: z.boolean().optional(),
  cacheDir: str.optional(),
  quiet: z.boolean().optional(),
})
/** `a` and `b`: two eval-model result files */
export const CompareResultsOptions = z.strictObject({ ...Common, a: str, b: str, bootstrap: count.optional(), seed: count.optional() })
export type EvalOptions = z.input<typeof EvalOptions>
export type CompareResultsOptions = z.input<typeof CompareResultsOptions>
export type BuildOptions = z.input<typeof BuildOptions>
export type CheckOptions = z.input<typeof CheckOptions>
export type VerifyOptions = z.input<typeof VerifyOptions>
export type DiffOptions = z.input<typeof DiffOptions>
export type PublishOptions = z.input<typeof PublishOptions>
export type ServeOptions = z.input<typeof ServeOptions>

const NOT_FLAGS = new Set(['env', 'onLine', 'fetch', 'dir', 'a', 'b', 'progress'])

/** The options checked, and as the command line they stand for, for the command's own parser. */
function prepare<S extends z.ZodType<Record<string, unknown>>>(schema: S, options: unknown, positionals: string[] = []) {
  const parsed = schema.safeParse(options ?? {})
  if (!parsed.success) throw new JevError('USAGE', `bad options: ${z.prettifyError(parsed.error).replaceAll('\n', '; ')}`)
  const o = parsed.data as z.output<S> & { env?: NodeJS.ProcessEnv; onLine?: (line: string) => void; progress?: Progress }
  const argv: string[] = []
  for (const [k, v] of Object.entries(o)) {
    if (NOT_FLAGS.has(k) || v === undefined || v === false) continue
    const flag = `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
    argv.push(v === true ? flag : `${flag}=${String(v)}`)
  }
  argv.push(...positionals.map((p) => (p.startsWith('-') ? `./${p}` : p)))
  const env = o.env ?? process.env
  const line = (l: string) => o.onLine?.(scrub(l, env))
  const io: Io = { out: line, err: line, ...(o.progress ? { progress: o.progress } : {}) }
  return { o, argv, env, io }
}

const parsedOrThrow = <T>(p: T | null): T => {
  if (p === null) throw new JevError('USAGE', 'help and version are not options of the library')
  return p
}

/** build-dataset: builds the output folder (and writes the lock when there is none). */
export async function buildDataset(options: BuildOptions = {}): Promise<BuildRun> {
  const { argv, env, io } = prepare(BuildOptions, options)
  return runBuild(parsedOrThrow(parseBuild(argv, io)).values, env, io)
}

/** check-dataset: the problems of a built folder (`dir`, default out); none when it meets the spec. */
export async function checkDataset(options: CheckOptions = {}): Promise<{ dir: string; problems: string[] }> {
  const { argv, env, io } = prepare(CheckOptions, options, options?.dir ? [options.dir] : [])
  return runCheck(parsedOrThrow(parseCheck(argv, io)), env, io)
}

/** verify-dataset: the folder compared with a rebuild from the lock; `result.identical` says whether they match. */
export async function verifyDataset(options: VerifyOptions = {}): Promise<{ outDir: string; result: VerifyResult }> {
  const { argv, env, io } = prepare(VerifyOptions, options)
  return runVerify(parsedOrThrow(parseVerify(argv, io)).values, env, io)
}

/** diff-dataset: two builds compared; `identical` says whether they are. */
export async function diffDatasets(options: DiffOptions): Promise<DatasetDiff> {
  const { argv, io } = prepare(
    DiffOptions,
    options,
    [options?.a, options?.b].filter((p): p is string => typeof p === 'string'),
  )
  return runDiff(parsedOrThrow(parseDiff(argv, io)))
}

/** publish-dataset: verifies, plans and (unless `dryRun`) publishes; the plan and the result. */
export async function publishDataset(options: PublishOptions): Promise<PublishRun> {
  const { o, argv, env, io } = prepare(PublishOptions, options)
  return runPublish(parsedOrThrow(parsePublish(argv, io)).values, env, io, o.fetch)
}

/** serve-hub: a local Hub on the loopback interface, until `close()`. */
export async function serveHub(options: ServeOptions = {}): Promise<HubServer> {
  const { argv, env, io } = prepare(ServeOptions, options)
  return startServe(parsedOrThrow(parseServe(argv, io)).values, env, io)
}

/** eval-model: the data checked against its manifest, the server asked (what the journal lacks), the result (and, with `out`, its files). */
export async function evaluateModel(options: EvalOptions): Promise<EvalRun> {
  const { argv, env, io } = prepare(EvalOptions, options)
  return runEval(parsedOrThrow(parseEval(argv, io)).values, env, io)
}

/** compare-results: B − A for each score on the items both scored, with paired bootstrap intervals. */
export async function compareResults(options: CompareResultsOptions): Promise<Comparison> {
  const { argv, io } = prepare(
    CompareResultsOptions,
    options,
    [options?.a, options?.b].filter((p): p is string => typeof p === 'string'),
  )
  return runCompareResults(parsedOrThrow(parseCompareResults(argv, io)))
}
