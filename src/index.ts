// The library: the commands as functions, each taking one options object (camelCase
// names of the command's flags), parsed by the very parser and run by the very code
// the CLI uses; failures throw the CLI's typed errors (JevError, with a stable code).
// Answers are returned, not thrown: a check's problems, a verify's or diff's differences.
import { z } from 'zod'
import type { DatasetDiff } from './check/diff.ts'
import type { VerifyResult } from './check/verify.ts'
import { type BuildRun, buildCommand, runBuild } from './cli/build-dataset.ts'
import { checkCommand, runCheck } from './cli/check-dataset.ts'
import type { Command, Options, Values } from './cli/common/command.ts'
import { compareResultsCommand, runCompareResults } from './cli/compare-results.ts'
import { diffCommand, runDiff } from './cli/diff-dataset.ts'
import { type EvalRun, evalCommand, runEval } from './cli/eval-model.ts'
import { type JudgeRun, judgeCommand, runJudge } from './cli/judge.ts'
import { type PublishRun, publishCommand, runPublish } from './cli/publish-dataset.ts'
import type { Io } from './cli/run.ts'
import { runScreen, type ScreenRun, screenCommand } from './cli/screen.ts'
import { serveCommand, startServe } from './cli/serve-hub.ts'
import { runVerify, verifyCommand } from './cli/verify-dataset.ts'
import { JevError } from './errors.ts'
import type { Comparison } from './eval/compare.ts'
import type { HubServer } from './hub-server/index.ts'
import type { Progress } from './util/progress.ts'
import { scrub } from './util/secrets.ts'

export { ERROR_CODES, type ErrorCode, isJevError, JevError } from './errors.ts'
export { type FileProgress, NO_PROGRESS, type Progress, progressFor, type TerminalOptions, terminalProgress } from './util/progress.ts'
export type { BuildRun, Comparison, DatasetDiff, EvalRun, HubServer, JudgeRun, PublishRun, ScreenRun, VerifyResult }

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
  maxAnswerBytes: count.optional(),
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
/** A model as the reviewer: screen's and judge's flags in camelCase; seconds for `timeout` */
const Reviewer = {
  url: str.optional(),
  model: str.optional(),
  /** sent as a Bearer token to `url` only; never in a line, the journal or a file */
  apiKey: str.optional(),
  journal: str.optional(),
  workers: count.optional(),
  timeout: z.number().positive().optional(),
  retries: count.optional(),
  sheets: str.optional(),
  pin: z.boolean().optional(),
  out: str.optional(),
}
/** screen: the recipe's uncovered candidates marked by a model or people, rechecked by a second reviewer */
export const ScreenOptions = z.strictObject({
  ...Sources,
  ...Reviewer,
  from: str.optional(),
  perSheet: count.optional(),
  recheckModel: str.optional(),
  recheckUrl: str.optional(),
  recheckApiKey: str.optional(),
  recheckSheets: str.optional(),
  top: count.optional(),
  topEn: count.optional(),
  want: count.optional(),
})
/** judge: `dir`, the built folder (default out); `seed` is required */
export const JudgeOptions = z.strictObject({
  ...Common,
  ...Reviewer,
  dir: str.optional(),
  recipe: str.optional(),
  seed: count,
  test: count.optional(),
  val: count.optional(),
  maxRetryAfter: z.number().optional(),
  judges: count.optional(),
  earlier: str.optional(),
  earlierVersion: str.optional(),
})
export type ScreenOptions = z.input<typeof ScreenOptions>
export type JudgeOptions = z.input<typeof JudgeOptions>
export type EvalOptions = z.input<typeof EvalOptions>
export type CompareResultsOptions = z.input<typeof CompareResultsOptions>
export type BuildOptions = z.input<typeof BuildOptions>
export type CheckOptions = z.input<typeof CheckOptions>
export type VerifyOptions = z.input<typeof VerifyOptions>
export type DiffOptions = z.input<typeof DiffOptions>
export type PublishOptions = z.input<typeof PublishOptions>
export type ServeOptions = z.input<typeof ServeOptions>

/** Options of the library that are not flags of the command. */
const NOT_FLAGS = new Set(['env', 'onLine', 'fetch', 'dir', 'a', 'b', 'progress'])

/**
 * The options checked, and as the values the command's own parser would give for the same flags
 * (camelCase `cacheDir` is `--cache-dir`), its defaults filled in; the command then runs on them.
 */
function prepare<S extends z.ZodType<Record<string, unknown>>, O extends Options>(
  schema: S,
  command: Command<O>,
  options: unknown,
  positionals: string[] = [],
) {
  const parsed = schema.safeParse(options ?? {})
  if (!parsed.success) throw new JevError('USAGE', `bad options: ${z.prettifyError(parsed.error).replaceAll('\n', '; ')}`)
  const o = parsed.data as z.output<S> & { env?: NodeJS.ProcessEnv; onLine?: (line: string) => void; progress?: Progress }
  const flag = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
  for (const key of Object.keys(o))
    if (!NOT_FLAGS.has(key) && !Object.hasOwn(command.spec.options, flag(key)))
      throw new Error(`the library's option ${key} is not a flag of ${command.spec.name}`)
  const values: Record<string, unknown> = {}
  for (const [name, opt] of Object.entries(command.spec.options)) {
    const v = (o as Record<string, unknown>)[name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())]
    values[name] = v === undefined ? (opt.default ?? (opt.type === 'boolean' ? false : undefined)) : opt.type === 'string' ? String(v) : v
  }
  const env = o.env ?? process.env
  const line = (l: string) => o.onLine?.(scrub(l, env))
  const io: Io = { out: line, err: line, ...(o.progress ? { progress: o.progress } : {}) }
  return { o, parsed: { values: values as Values<O>, positionals }, env, io }
}

/** build-dataset: builds the output folder (and writes the lock when there is none). */
export async function buildDataset(options: BuildOptions = {}): Promise<BuildRun> {
  const { parsed, env, io } = prepare(BuildOptions, buildCommand, options)
  return runBuild(parsed.values, env, io)
}

/**
 * check-dataset: the problems of a built folder (`dir`, default out) against the recipe its manifest names; none when
 * it meets the spec. `upstream`: whether provenance.jsonl was proved against the upstream rows.
 */
export async function checkDataset(options: CheckOptions = {}): Promise<{ dir: string; problems: string[]; upstream: boolean }> {
  const { parsed, env, io } = prepare(CheckOptions, checkCommand, options, options?.dir ? [options.dir] : [])
  return runCheck(parsed, env, io)
}

/** verify-dataset: the folder compared with a rebuild from the lock; `result.identical` says whether they match. */
export async function verifyDataset(options: VerifyOptions = {}): Promise<{ outDir: string; result: VerifyResult }> {
  const { parsed, env, io } = prepare(VerifyOptions, verifyCommand, options)
  return runVerify(parsed.values, env, io)
}

/** diff-dataset: two builds compared; `identical` says whether they are. */
export async function diffDatasets(options: DiffOptions): Promise<DatasetDiff> {
  const { parsed } = prepare(
    DiffOptions,
    diffCommand,
    options,
    [options?.a, options?.b].filter((p): p is string => typeof p === 'string'),
  )
  return runDiff(parsed)
}

/** publish-dataset: verifies, plans and (unless `dryRun`) publishes; the plan and the result. */
export async function publishDataset(options: PublishOptions): Promise<PublishRun> {
  const { o, parsed, env, io } = prepare(PublishOptions, publishCommand, options)
  return runPublish(parsed.values, env, io, o.fetch)
}

/** serve-hub: a local Hub on the loopback interface, until `close()`. */
export async function serveHub(options: ServeOptions = {}): Promise<HubServer> {
  const { parsed, env, io } = prepare(ServeOptions, serveCommand, options)
  return startServe(parsed.values, env, io)
}

/** eval-model: the data checked against its manifest, the server asked (what the journal lacks), the result (and, with `out`, its files). */
export async function evaluateModel(options: EvalOptions): Promise<EvalRun> {
  const { parsed, env, io } = prepare(EvalOptions, evalCommand, options)
  return runEval(parsed.values, env, io)
}

/** screen: candidates the recipe's build would lend and no mark covers, marked and rechecked; the marks file written (and pinned) once complete. */
export async function screenRecipe(options: ScreenOptions): Promise<ScreenRun> {
  const { parsed, env, io } = prepare(ScreenOptions, screenCommand, options)
  return runScreen(parsed.values, env, io)
}

/** judge: a seeded blind sample of a built folder's grown items, marked and scored into the judged rates (written once complete). */
export async function judgeDataset(options: JudgeOptions): Promise<JudgeRun> {
  const { parsed, env, io } = prepare(JudgeOptions, judgeCommand, options, options?.dir ? [options.dir] : [])
  return runJudge(parsed, env, io)
}

/** compare-results: B − A for each score on the items both scored, with paired bootstrap intervals. */
export async function compareResults(options: CompareResultsOptions): Promise<Comparison> {
  const { parsed } = prepare(
    CompareResultsOptions,
    compareResultsCommand,
    options,
    [options?.a, options?.b].filter((p): p is string => typeof p === 'string'),
  )
  return runCompareResults(parsed)
}
