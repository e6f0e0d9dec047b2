import { homedir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { JevError } from '../errors.ts'
import type { Api, Mode } from '../eval/answers.ts'
import { DEFAULT_RESAMPLES, DEFAULT_SEED } from '../eval/bootstrap.ts'
import { credentialsOf } from '../eval/credentials.ts'
import { type EvalData, folderFiles, hubFiles, loadEvalData } from '../eval/data.ts'
import { DEFAULT_MAX_ANSWER_BYTES } from '../eval/http.ts'
import { readJournal } from '../eval/journal.ts'
import { SYSTEMONE_MODEL } from '../eval/prompt.ts'
import { byNSvg, reliabilitySvg, reportMarkdown } from '../eval/report.ts'
import type { EvalResult } from '../eval/result.ts'
import { type RunSettings, runEvaluation } from '../eval/run.ts'
import { writeAtomic } from '../util/atomic.ts'
import { isRepoId } from '../util/repo-name.ts'
import { defineCommand, JSON_OPTION, PARAMS, QUIET_OPTION } from './common/command.ts'
import { offlineFromEnv, requireFolder } from './common/source-options.ts'
import type { Io } from './run.ts'

export const evalCommand = defineCommand({
  name: 'eval-model',
  about: [
    "Evaluates a model server on jev-bench by the reference protocol (eval.py's requests and scores), after checking every file against manifest.json.",
    'Answers go to a journal beside --out as they come: a rerun sends only what is missing, and --from-journal scores with no server at all.',
  ],
  options: {
    url: {
      type: 'string',
      arg: 'URL',
      help: "the server, e.g. http://127.0.0.1:8080; a user:password@ in it is sent as Basic (with --from-journal: the journal's)",
    },
    data: { type: 'string', arg: 'DIR', help: 'a built folder (test.jsonl, val.jsonl, manifest.json, …)' },
    repo: {
      type: 'string',
      arg: 'OWNER/NAME',
      help: 'a Hub dataset repo instead of --data (HF_ENDPOINT, HF_TOKEN, the Hugging Face cache)',
    },
    revision: { type: 'string', arg: 'REV', help: 'the revision of --repo (a tag or commit: pin it)' },
    api: {
      type: 'string',
      arg: 'API',
      help: 'systemone (POST /v1/systemone; the default) or openai (POST /v1/chat/completions, logprobs)',
    },
    model: { type: 'string', arg: 'NAME', help: `openai: the model name sent (default ${SYSTEMONE_MODEL})` },
    'api-key': { type: 'string', arg: 'KEY', help: 'sent as a Bearer token, never printed or written (JEV_API_KEY does the same)' },
    mode: { type: 'string', arg: 'MODE', default: 'auto', help: 'systemone: auto (one probe), logits or probabilities' },
    'assistant-prefix': { type: 'string', arg: 'TEXT', help: 'systemone: text the model writes before the label' },
    workers: { type: 'string', number: true, arg: 'N', default: '8', help: 'parallel requests' },
    timeout: { type: 'string', number: true, arg: 'S', default: '600', help: 'seconds one request may take, its whole answer read' },
    retries: {
      type: 'string',
      number: true,
      arg: 'N',
      default: '4',
      help: 'extra attempts for 408, 429, 5xx, a dropped connection or a body that is not JSON',
    },
    'max-retry-after': { type: 'string', number: true, arg: 'S', default: '60', help: 'the longest Retry-After waited out' },
    'max-answer-bytes': {
      type: 'string',
      number: true,
      arg: 'N',
      default: String(DEFAULT_MAX_ANSWER_BYTES),
      help: 'the largest answer body read; a larger one ends the run',
    },
    limit: { type: 'string', number: true, arg: 'N', help: 'only the first N questions of each split (a quick check)' },
    out: {
      type: 'string',
      arg: 'FILE',
      help: 'the result JSON; beside it FILE minus .json plus .journal.jsonl, .report.md, .reliability.svg, .by-n.svg',
    },
    journal: { type: 'string', arg: 'FILE', help: 'the journal (default beside --out; none without --out)' },
    'from-journal': { type: 'string', arg: 'FILE', help: 'score the answers of this journal; no request is sent' },
    bootstrap: {
      type: 'string',
      number: true,
      arg: 'N',
      default: String(DEFAULT_RESAMPLES),
      help: 'bootstrap resamples for the 95 % intervals',
    },
    seed: { type: 'string', number: true, arg: 'N', default: String(DEFAULT_SEED), help: "the bootstrap's seed" },
    offline: { type: 'boolean', default: false, help: '--repo: only the Hugging Face cache (HF_HUB_OFFLINE=1 does the same)' },
    'cache-dir': { type: 'string', arg: 'DIR', help: '--repo: the Hugging Face cache (default as build-dataset)' },
    ...QUIET_OPTION,
    ...JSON_OPTION,
  },
  notes: [
    'Environment: JEV_API_KEY (as --api-key), HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE (for --repo).',
    'Exit status: 0 scored; 2 bad usage; 3 malformed data or journal, or no valid answer to score; 5 the data differs from its manifest; 6 the server or Hub failed; 7 a file could not be read or written, or the journal is in use.',
  ],
  params: { progress: PARAMS.progress },
})

export const parseEval = (argv: string[], io: Io) => evalCommand.parse(argv, io)
type EvalValues = NonNullable<ReturnType<typeof parseEval>>['values']

export interface EvalRun {
  result: EvalResult
  /** the files written (none without --out) */
  files: { out?: string; journal?: string; report?: string; reliability?: string; byN?: string }
}

const count = (v: string, flag: string, min: number) => {
  const n = /^\d+$/.test(v.trim()) ? Number(v) : NaN
  if (!Number.isSafeInteger(n) || n < min)
    throw new JevError('USAGE', `--${flag} ${JSON.stringify(v)} is not a whole number of at least ${min}`)
  return n
}
const seconds = (v: string, flag: string) => {
  const n = /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN
  if (!(n > 0)) throw new JevError('USAGE', `--${flag} ${JSON.stringify(v)} is not a positive number of seconds`)
  return Math.round(n * 1000)
}

/** The files beside --out: its name without .json and a suffix. */
export function besideOut(out: string) {
  const base = join(dirname(out), basename(out).replace(/\.json$/i, ''))
  return {
    journal: `${base}.journal.jsonl`,
    report: `${base}.report.md`,
    reliability: `${base}.reliability.svg`,
    byN: `${base}.by-n.svg`,
  }
}

async function loadData(values: EvalValues, env: NodeJS.ProcessEnv, io: Io): Promise<EvalData> {
  if (values.data && values.repo) throw new JevError('USAGE', 'give --data DIR or --repo OWNER/NAME, not both')
  if (values.data) {
    await requireFolder(values.data, '--data')
    return loadEvalData(`${values.data.replace(/\/+$/, '')}/`, folderFiles(values.data))
  }
  if (!values.repo) throw new JevError('USAGE', 'no data: give --data DIR (a built folder) or --repo OWNER/NAME --revision REV')
  if (!isRepoId(values.repo)) throw new JevError('USAGE', `--repo ${JSON.stringify(values.repo)} is not OWNER/NAME`)
  if (!values.revision) throw new JevError('USAGE', '--repo needs --revision REV: scores are comparable only on pinned data')
  const { createHubFetcher, hubOptionsFromEnv, resolveCacheDir } = await import('../fetch/hub.ts')
  const fetcher = createHubFetcher({
    ...hubOptionsFromEnv(env),
    cacheDir: values['cache-dir'] ?? resolveCacheDir(env, homedir()),
    offline: values.offline || offlineFromEnv(env),
    ...(values.quiet ? {} : { log: io.err }),
  })
  return loadEvalData(`${values.repo}@${values.revision}/`, hubFiles(fetcher, values.repo, values.revision))
}

/** Parsed options to the run: data checked, answers gathered, result and report written. */
export async function runEval(values: EvalValues, env: NodeJS.ProcessEnv, io: Io): Promise<EvalRun> {
  if (!['auto', 'logits', 'probabilities'].includes(values.mode))
    throw new JevError('USAGE', `--mode ${JSON.stringify(values.mode)}: auto, logits or probabilities`)
  const fromJournal = values['from-journal']
  const journal = fromJournal ?? values.journal ?? (values.out ? besideOut(values.out).journal : undefined)
  // from a journal, the run's settings are the journal's unless given (and then they must agree: runEvaluation checks)
  const header = fromJournal ? readJournal(fromJournal)?.header : undefined
  if (fromJournal && !header)
    throw new JevError('IO', `${fromJournal}: no journal there`, { file: fromJournal, hint: 'name a journal an eval-model run wrote' })
  const api = (values.api ?? header?.api ?? 'systemone') as Api
  if (api !== 'systemone' && api !== 'openai') throw new JevError('USAGE', `--api ${JSON.stringify(api)}: systemone or openai`)
  const url = values.url ?? header?.url
  const model = values.model ?? (header?.api === 'openai' ? header.model : undefined)
  const prefix = values['assistant-prefix'] ?? header?.assistant_prefix ?? undefined
  if (!url) throw new JevError('USAGE', 'no --url: the model server to evaluate')
  try {
    const u = new URL(url)
    if (!/^https?:$/.test(u.protocol)) throw new Error()
  } catch {
    // a URL that does not parse is not shown if it may hold credentials
    const shown = /[@?]/.test(url) ? '' : ` ${JSON.stringify(url)}`
    throw new JevError('USAGE', `--url${shown} is not an http:// or https:// URL`)
  }
  const settings: RunSettings = {
    url,
    api,
    model: model ?? SYSTEMONE_MODEL,
    assistantPrefix: prefix,
    mode: values.mode as Mode | 'auto',
    limit: values.limit === undefined ? undefined : count(values.limit, 'limit', 1),
    workers: count(values.workers, 'workers', 1),
    timeoutMs: seconds(values.timeout, 'timeout'),
    retries: count(values.retries, 'retries', 0),
    maxRetryAfterMs: seconds(values['max-retry-after'], 'max-retry-after'),
    maxAnswerBytes: count(values['max-answer-bytes'], 'max-answer-bytes', 1),
    apiKey: values['api-key'] ?? (env.JEV_API_KEY || undefined),
    resamples: count(values.bootstrap, 'bootstrap', 1),
    seed: count(values.seed, 'seed', 0),
    journal,
    fromJournal: fromJournal !== undefined,
  }
  // no credential is in a line or an error: whatever is printed or thrown from here on is scrubbed
  const { scrub } = credentialsOf(url, settings.apiKey)
  const log = (l: string) => io.err(scrub(l))
  try {
    const data = await loadData(values, env, io)
    io.progress?.stage('asking the server')
    const result = await runEvaluation(data, settings, { log, progress: io.progress })
    const files: EvalRun['files'] = journal && !fromJournal ? { journal } : {}
    if (values.out) {
      const beside = besideOut(values.out)
      await writeAtomic(values.out, `${JSON.stringify(result, null, 1)}\n`)
      const figures = { reliability: basename(beside.reliability), byN: basename(beside.byN) }
      await writeAtomic(beside.report, reportMarkdown(result, figures))
      await writeAtomic(beside.reliability, reliabilitySvg(result))
      await writeAtomic(beside.byN, byNSvg(result))
      Object.assign(files, { out: values.out, report: beside.report, reliability: beside.reliability, byN: beside.byN })
    }
    return { result, files }
  } catch (e) {
    throw scrubbedError(e, scrub)
  }
}

/** The error with its message and the strings of its context scrubbed. */
function scrubbedError(e: unknown, scrub: (text: string) => string): unknown {
  if (!(e instanceof Error)) return e
  e.message = scrub(e.message)
  if (e.stack) e.stack = scrub(e.stack)
  if (e instanceof JevError) for (const [k, v] of Object.entries(e.context)) if (typeof v === 'string') e.context[k] = scrub(v)
  return e
}

const f3 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(3))

/** The summary lines, as the reference evaluator prints them, and the intervals. */
export function formatEval(r: EvalResult): string[] {
  const lines: string[] = [`mode: ${r.mode}`, `data: ${r.dataset.origin} (${r.dataset.recipe}); ${r.items.length} test questions scored`]
  if (r.mode === 'logits') {
    const c = r.calibrated!
    const ci = r.intervals.calibrated!
    lines.push(
      `T=${r.temperature!.toFixed(2)}  accuracy=${f3(c.acc)}  ECE ${f3(r.raw!.ece)} -> ${f3(c.ece)}  NLL ${f3(r.raw!.nll)} -> ${f3(c.nll)}`,
      `95 % intervals (calibrated): accuracy [${f3(ci.acc[0])}, ${f3(ci.acc[1])}]  ECE [${f3(ci.ece[0])}, ${f3(ci.ece[1])}]  NLL [${f3(ci.nll[0])}, ${f3(ci.nll[1])}]`,
    )
  } else {
    const p = r.reported!
    const ci = r.intervals.reported!
    lines.push(
      `accuracy=${f3(p.acc)}  ECE=${f3(p.ece)}  NLL=${f3(p.nll)}`,
      `95 % intervals: accuracy [${f3(ci.acc[0])}, ${f3(ci.acc[1])}]  ECE [${f3(ci.ece[0])}, ${f3(ci.ece[1])}]  NLL [${f3(ci.nll[0])}, ${f3(ci.nll[1])}]`,
    )
    if (r.gold_rounded_to_zero)
      lines.push(
        `  NLL and Brier are inflated: the right option was rounded to 0.0 on ${r.gold_rounded_to_zero} of ${r.items.length} questions.`,
      )
  }
  const fit = r.temperature_fit
  if (fit?.at_edge) {
    const u = fit.unbounded
    lines.push(
      `  T is at the edge of the reference search (log T in [${fit.log_t_range.join(', ')}]); ${u.at_limit ? `unbounded, the val loss still falls at T=${u.temperature.toPrecision(3)}` : `unbounded T=${u.temperature.toPrecision(4)} (val NLL ${f3(u.val_nll)} against ${f3(fit.val_nll)})`}`,
    )
  }
  const b = r.breakdowns
  const ns = Object.keys(b.by_n).sort((x, y) => Number(x) - Number(y))
  lines.push(`ECE by option count, pooled:       ${ns.map((n) => `${n}: ${f3(b.by_n[n]?.ece)}`).join('  ')}`)
  if (b.standardised)
    lines.push(
      `ECE by option count, standardised: ${ns.map((n) => `${n}: ${b.standardised?.by_n[n] ? f3(b.standardised.by_n[n].ece) : '  –  '}`).join('  ')}`,
    )
  if (r.clean?.flagged)
    lines.push(`clean subset: ${r.clean.count} items (${r.clean.flagged} flagged left out); its figures are in the report`)
  if (r.invalid.count) lines.push(`invalid answers (not scored, listed in the result): ${r.invalid.count}`)
  if (r.normalised)
    lines.push(
      `probabilities summing to 1 only within 0.01: ${r.normalised}; normalised, accuracy=${f3(r.reported_normalised?.acc)}  ECE=${f3(r.reported_normalised?.ece)}  NLL=${f3(r.reported_normalised?.nll)}`,
    )
  if (r.labels_missing?.labels)
    lines.push(
      `labels missing from top_logprobs (given probability 1e-12): ${r.labels_missing.labels} on ${r.labels_missing.items} questions`,
    )
  lines.push(`always guessing would give ${f3(r.chance)}`)
  return lines
}

/** eval-model as a library function: the data checked, the server asked (what the journal lacks), the result. */
export const evaluateModel = evalCommand.library(({ values, env, io }) => runEval(values, env, io))

export async function evalModelCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return evalCommand.main(argv, env, io, async ({ params }, io) => {
    const run = await evaluateModel(params, io)
    io.progress?.end()
    for (const l of formatEval(run.result)) io.out(l)
    for (const f of [run.files.out, run.files.report]) if (f) io.out(`wrote ${f}`)
    return { json: { ...run.result, files: run.files } }
  })
}
