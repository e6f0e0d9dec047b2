/**
 * An evaluation run: the mode (given, or found with one probe as the reference evaluator finds
 * it), the requests the journal lacks sent by a pool of workers, each answer (scrubbed of the
 * credentials) journaled as it comes, then the result computed from the journal's answers.
 */
import { JevError } from '../errors.ts'
import { sha256Hex } from '../util/hash.ts'
import type { Progress } from '../util/progress.ts'
import { type Api, answerPart, hasLogits, type Mode } from './answers.ts'
import { credentialsOf, publicUrl, scrubJson } from './credentials.ts'
import type { EvalData, EvalItem, EvalSplit } from './data.ts'
import { Cancelled, DEFAULT_MAX_ANSWER_BYTES, postJson } from './http.ts'
import {
  type AnswerLine,
  headerMismatch,
  JOURNAL_VERSION,
  type JournalContent,
  type JournalHeader,
  JournalWriter,
  readJournal,
  withJournalLock,
} from './journal.ts'
import { openaiBody, SYSTEMONE_MODEL, systemoneBody } from './prompt.ts'
import { buildResult, type EvalResult } from './result.ts'

export interface RunSettings {
  url: string
  api: Api
  /** openai only: the model name sent */
  model: string
  assistantPrefix: string | undefined
  mode: Mode | 'auto'
  limit: number | undefined
  workers: number
  timeoutMs: number
  retries: number
  maxRetryAfterMs: number
  /** the most bytes one answer may have (default DEFAULT_MAX_ANSWER_BYTES) */
  maxAnswerBytes?: number
  apiKey: string | undefined
  resamples: number
  seed: number
  /** the journal: read first, appended to; undefined: none */
  journal: string | undefined
  /** compute from the journal alone: no request at all */
  fromJournal: boolean
}

export interface RunIo {
  log: (line: string) => void
  progress?: Progress | undefined
}

/** The API's path added to the URL's (its query, if any, kept after it). */
export function endpointOf(s: Pick<RunSettings, 'url' | 'api'>): string {
  const u = new URL(s.url)
  u.pathname = `${u.pathname.replace(/\/+$/, '')}${s.api === 'systemone' ? '/v1/systemone' : '/v1/chat/completions'}`
  return u.href
}

export function bodyOf(s: Pick<RunSettings, 'api' | 'model' | 'assistantPrefix'>, item: EvalItem, wantLogits: boolean): string {
  return s.api === 'systemone' ? systemoneBody(item, s.assistantPrefix, wantLogits) : openaiBody(item, s.model)
}

/** The request's hash: what it was sent to and its body, so an answer is reused only for the very same request. */
export const requestKey = (endpoint: string, body: string) => sha256Hex(`${publicUrl(endpoint)}\n${body}`)

export function limited(data: EvalData, limit: number | undefined): Record<EvalSplit, EvalItem[]> {
  const cut = (items: EvalItem[]) => (limit ? items.slice(0, limit) : items)
  return { val: cut(data.splits.val), test: cut(data.splits.test) }
}

function refused(endpoint: string, status: number): JevError {
  const auth = status === 401 || status === 403
  return new JevError(auth ? 'AUTH' : 'NETWORK', `${publicUrl(endpoint)} answered HTTP ${status}`, {
    status,
    hint: auth
      ? 'the server wants an API key: give it with --api-key KEY or JEV_API_KEY'
      : 'the server refused the request; check --url, --api and (for openai) --model',
  })
}

export async function runEvaluation(data: EvalData, s: RunSettings, io: RunIo): Promise<EvalResult> {
  const splits = limited(data, s.limit)
  if (splits.val.length === 0 || splits.test.length === 0)
    throw new JevError('DATA', `${data.origin}: val or test has no question to ask`, { hint: 'check the data, and --limit' })
  // checked before the journal is touched: a key a header cannot carry, or credentials given twice, are refused
  const cred = credentialsOf(s.url, s.apiKey)
  return s.journal ? withJournalLock(s.journal, () => evaluate(data, splits, s, io, cred)) : evaluate(data, splits, s, io, cred)
}

async function evaluate(
  data: EvalData,
  splits: Record<EvalSplit, EvalItem[]>,
  s: RunSettings,
  io: RunIo,
  cred: ReturnType<typeof credentialsOf>,
): Promise<EvalResult> {
  const endpoint = endpointOf(s)
  const requestUrl = endpointOf({ url: cred.requestUrl, api: s.api })
  const header: JournalHeader = {
    journal: 'jev-eval',
    version: JOURNAL_VERSION,
    url: publicUrl(s.url),
    api: s.api,
    model: s.api === 'openai' ? s.model : SYSTEMONE_MODEL,
    assistant_prefix: s.assistantPrefix ?? null,
    datasetHash: data.manifest.datasetHash,
  }
  let content: JournalContent | null = s.journal ? readJournal(s.journal) : null
  if (content && !content.header) content = null
  if (s.fromJournal && !content)
    throw new JevError('IO', `no journal at ${s.journal}`, {
      file: s.journal,
      hint: 'name the journal a run wrote with --from-journal FILE',
    })
  if (content?.header) {
    const why = headerMismatch(content.header, header)
    if (why)
      throw new JevError('USAGE', `the journal ${s.journal} is another run's: ${why}`, {
        file: s.journal,
        hint: s.fromJournal
          ? 'give the same --url, --api, --model, --assistant-prefix and data as the run that wrote it'
          : 'name another --out (or --journal) for this run, or remove the journal to start over',
      })
  }
  const answers = new Map<string, AnswerLine>(content?.answers ?? [])
  const probes = content?.probes ?? new Map()
  const writer = s.journal && !s.fromJournal ? new JournalWriter(s.journal, content, header) : null
  const key = (item: EvalItem, wantLogits: boolean) => requestKey(endpoint, bodyOf(s, item, wantLogits))
  const shownUrl = publicUrl(endpoint)
  const post = (body: string, signal?: AbortSignal) =>
    postJson(requestUrl, body, {
      authorization: cred.authorization,
      shownUrl,
      timeoutMs: s.timeoutMs,
      retries: s.retries,
      maxRetryAfterMs: s.maxRetryAfterMs,
      maxBytes: s.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
      signal,
      onRetry: (why, attempt, of) => io.log(`eval: ${why}; retrying (attempt ${attempt} of ${of})`),
    })
  // what the server sent back, without the credentials it may echo: only this is kept and scored
  const partOf = (json: unknown) => scrubJson(answerPart(s.api, json), cred.scrub)
  // a probe refused with a 4xx is journaled only once an answer shows the server answers at all
  let pendingProbe: object | null = null
  const keep = (line: AnswerLine) => {
    answers.set(line.key, line)
    if (pendingProbe) writer?.append(pendingProbe)
    pendingProbe = null
    writer?.append(line)
  }
  try {
    // the mode: an OpenAI-compatible server's log-probabilities are logits; systemone's is found by one probe
    let mode: Mode
    if (s.api === 'openai') mode = 'logits'
    else if (s.mode !== 'auto') mode = s.mode
    else {
      const first = splits.val[0]!
      const k = key(first, true)
      const seen = answers.get(k)
      if (seen) mode = hasLogits(first, seen.answer) ? 'logits' : 'probabilities'
      else if (probes.has(k)) mode = 'probabilities'
      else if (s.fromJournal) throw missing(s.journal!, 1)
      else {
        const r = await post(bodyOf(s, first, true))
        if (r.status >= 400 && r.status < 500) {
          // as eval.py: a refusal means no logits; but a 401 or a wrong URL refuses every request, so it is not kept yet
          mode = 'probabilities'
          pendingProbe = { probe: 'probabilities', key: k, status: r.status }
        } else {
          const part = partOf(r.json)
          mode = hasLogits(first, part) ? 'logits' : 'probabilities'
          // a probe that found logits is the first question's answer: it is not asked again
          if (mode === 'logits') keep({ split: 'val', id: first.id, key: k, answer: part, ms: r.ms })
          else writer?.append({ probe: 'probabilities', key: k, status: r.status })
        }
      }
      io.log(`mode: ${mode} (detected)`)
    }
    const wantLogits = mode === 'logits'
    const keyOf = (item: EvalItem) => key(item, wantLogits)
    for (const split of ['val', 'test'] as const) {
      const todo = splits[split].filter((it) => !answers.has(keyOf(it)))
      if (s.fromJournal && todo.length) throw missing(s.journal!, todo.length)
      const total = splits[split].length
      let done = total - todo.length
      if (content && done && todo.length) io.log(`${split}: ${done} of ${total} answers from the journal, ${todo.length} to ask`)
      io.progress?.rows(`${split} answers`, done, total)
      let next = 0
      // after a failure no worker starts another request, and those in flight are abandoned (a rerun asks them again)
      const stop = new AbortController()
      const worker = async () => {
        while (next < todo.length && !stop.signal.aborted) {
          const item = todo[next++]!
          const body = bodyOf(s, item, wantLogits)
          const r = await post(body, stop.signal)
          if (r.status >= 300) throw refused(endpoint, r.status)
          keep({ split, id: item.id, key: keyOf(item), answer: partOf(r.json), ms: r.ms })
          io.progress?.rows(`${split} answers`, ++done, total)
        }
      }
      const ends = await Promise.allSettled(
        Array.from({ length: Math.max(1, Math.min(s.workers, todo.length)) }, () =>
          worker().catch((e: unknown) => {
            stop.abort()
            throw e
          }),
        ),
      )
      const failure = ends.find((e) => e.status === 'rejected' && !(e.reason instanceof Cancelled))
      if (failure) throw (failure as PromiseRejectedResult).reason
    }
    return buildResult(data, splits, answers, keyOf, {
      url: header.url,
      api: s.api,
      model: s.model,
      assistantPrefix: s.assistantPrefix ?? null,
      mode,
      resamples: s.resamples,
      seed: s.seed,
    })
  } finally {
    writer?.close()
  }
}

const missing = (journal: string, n: number) =>
  new JevError('DATA', `the journal ${journal} lacks ${n} answer${n === 1 ? '' : 's'} this evaluation needs`, {
    file: journal,
    hint: 'run without --from-journal to ask the server for the rest (the journal is resumed)',
  })
