// The library: each command as a function taking one params object, declared once with the
// command (src/cli/*.ts, defineCommand): its flags in camelCase, its positionals by name, and
// the params that are not flags. The CLI parses its flags into the same params and calls the
// same function. Failures throw the CLI's typed errors (JevError, with a stable code); answers
// are returned, not thrown: a check's problems, a verify's or diff's differences.
import type { DatasetDiff } from './check/diff.ts'
import type { VerifyResult } from './check/verify.ts'
import { type BuildRun, buildDataset as build, buildCommand } from './cli/build-dataset.ts'
import { checkDataset as check, checkCommand } from './cli/check-dataset.ts'
import type { Command, Params } from './cli/common/command.ts'
import { type BuildsCompared, compareBuilds as compareB, compareBuildsCommand } from './cli/compare-builds.ts'
import { compareResults as compare, compareResultsCommand } from './cli/compare-results.ts'
import { diffDatasets as diff, diffCommand } from './cli/diff-dataset.ts'
import { type EvalRun, evalCommand, evaluateModel as evaluate } from './cli/eval-model.ts'
import { type JudgeRun, judgeDataset as judge, judgeCommand } from './cli/judge.ts'
import { type PublishRun, publishDataset as publish, publishCommand } from './cli/publish-dataset.ts'
import { type ScreenRun, screenRecipe as screen, screenCommand } from './cli/screen.ts'
import { serveHub as serve, serveCommand } from './cli/serve-hub.ts'
import { verifyDataset as verify, verifyCommand } from './cli/verify-dataset.ts'
import type { Comparison } from './eval/compare.ts'
import type { HubServer } from './hub-server/index.ts'

export { ERROR_CODES, type ErrorCode, isJevError, JevError } from './errors.ts'
export { type FileProgress, NO_PROGRESS, type Progress, progressFor, type TerminalOptions, terminalProgress } from './util/progress.ts'
export type { BuildRun, BuildsCompared, Comparison, DatasetDiff, EvalRun, HubServer, JudgeRun, PublishRun, ScreenRun, VerifyResult }

/** The params type of a command, from its declaration. */
type ParamsOf<C> = C extends Command<infer O, infer A, infer P, infer R> ? Params<O, A, P, R> : never

/** The params of each command (a zod schema: unknown keys refused) and their type, both from the command's declaration. */
export const BuildOptions = buildCommand.schema
export type BuildOptions = ParamsOf<typeof buildCommand>
export const CheckOptions = checkCommand.schema
export type CheckOptions = ParamsOf<typeof checkCommand>
export const VerifyOptions = verifyCommand.schema
export type VerifyOptions = ParamsOf<typeof verifyCommand>
export const DiffOptions = diffCommand.schema
export type DiffOptions = ParamsOf<typeof diffCommand>
export const PublishOptions = publishCommand.schema
export type PublishOptions = ParamsOf<typeof publishCommand>
export const ServeOptions = serveCommand.schema
export type ServeOptions = ParamsOf<typeof serveCommand>
export const EvalOptions = evalCommand.schema
export type EvalOptions = ParamsOf<typeof evalCommand>
export const CompareBuildsOptions = compareBuildsCommand.schema
export type CompareBuildsOptions = ParamsOf<typeof compareBuildsCommand>
export const CompareResultsOptions = compareResultsCommand.schema
export type CompareResultsOptions = ParamsOf<typeof compareResultsCommand>
export const ScreenOptions = screenCommand.schema
export type ScreenOptions = ParamsOf<typeof screenCommand>
export const JudgeOptions = judgeCommand.schema
export type JudgeOptions = ParamsOf<typeof judgeCommand>

/** build-dataset: builds the output folder (and writes the lock when there is none). */
export const buildDataset: (params?: BuildOptions) => Promise<BuildRun> = build

/**
 * check-dataset: the problems of a built folder (`dir`, default out) against the recipe its manifest names; none when
 * it meets the spec. `upstream`: whether provenance.jsonl was proved against the upstream rows.
 */
export const checkDataset: (params?: CheckOptions) => Promise<{ dir: string; problems: string[]; upstream: boolean }> = check

/** verify-dataset: the folder compared with a rebuild from the lock; `result.identical` says whether they match. */
export const verifyDataset: (params?: VerifyOptions) => Promise<{ outDir: string; result: VerifyResult }> = verify

/** diff-dataset: two builds compared (`a` and `b`, or `rev` and at most `b`); `identical` says whether they are. */
export const diffDatasets: (params?: DiffOptions) => Promise<DatasetDiff> = diff

/** publish-dataset: verifies, plans and (unless `dryRun`) publishes; the plan and the result. */
export const publishDataset: (params: PublishOptions) => Promise<PublishRun> = publish

/** serve-hub: a local Hub on the loopback interface, until `close()`. */
export const serveHub: (params?: ServeOptions) => Promise<HubServer> = serve

/** eval-model: the data checked against its manifest, the server asked (what the journal lacks), the result (and, with `out`, its files). */
export const evaluateModel: (params?: EvalOptions) => Promise<EvalRun> = evaluate

/** screen: candidates the recipe's build would lend and no mark covers, marked and rechecked; the marks file written (and pinned) once complete. */
export const screenRecipe: (params?: ScreenOptions) => Promise<ScreenRun> = screen

/** judge: a seeded blind sample of a built folder's grown items, marked and scored into the judged rates (written once complete). */
export const judgeDataset: (params?: JudgeOptions) => Promise<JudgeRun> = judge

/** compare-results: B − A for each score on the items both scored (`a` and `b`: two result files), with paired bootstrap intervals. */
export const compareResults: (params: CompareResultsOptions) => Promise<Comparison> = compare

/** compare-builds: builds of the previous and the new version (`old`, `new`) compared into the card's "Changes from" figures, pinned in the lock (`pin`) or checked (`check`). */
export const compareBuilds: (params: CompareBuildsOptions) => Promise<BuildsCompared> = compareB
