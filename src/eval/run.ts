/**
 * An evaluation run: the mode (given, or found with one probe as the reference evaluator finds
 * it), the requests the journal lacks sent by a pool of workers, each answer journaled as it
 * comes, then the result computed from the journal's answers.
 */
import { JevError } from '../errors.ts'
import { sha256Hex } from '../util/hash.ts'
import type { Progress } from '../util/progress.ts'
import { type Api, answerPart, hasLogits, type Mode } from './answers.ts'
import type { EvalData, EvalItem, EvalSplit } from './data.ts'
import { postJson } from './http.ts'
import { type AnswerLine, headerMismatch, type JournalContent, type JournalHeader, JournalWriter, readJournal } from './journal.ts'
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

/** The URL without a user name or password, as it is written to the journal and the result. */
export function publicUrl(url: string): string {
  const u = new URL(url)
  u.username = ''
  u.password = ''
  return u.href.replace(/\/+$/, '')
}

export function endpointOf(s: Pick<RunSettings, 'url' | 'api'>): string {
  return `${s.url.replace(/\/+$/, '')}${s.api === 'systemone' ? '/v1/systemone' : '/v1/chat/completions'}`
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
  const endpoint = endpointOf(s)
  const header: JournalHeader = {
    journal: 'jev-eval',
    version: 1,
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
  const post = (body: string) =>
    postJson(endpoint, body, {
      apiKey: s.apiKey,
      timeoutMs: s.timeoutMs,
      retries: s.retries,
      maxRetryAfterMs: s.maxRetryAfterMs,
      onRetry: (why, attempt, of) => io.log(`eval: ${why}; retrying (attempt ${attempt} of ${of})`),
    })
  const keep = (line: AnswerLine) => {
    answers.set(line.key, line)
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
          mode = 'probabilities'
          writer?.append({ probe: 'probabilities', key: k, status: r.status })
        } else {
          const part = answerPart('systemone', r.json)
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
      // after a failure no worker starts another request; those in flight are let finish (and journaled)
      let failed = false
      const worker = async () => {
        while (next < todo.length && !failed) {
          const item = todo[next++]!
          const body = bodyOf(s, item, wantLogits)
          const r = await post(body)
          if (r.status >= 300) throw refused(endpoint, r.status)
          keep({ split, id: item.id, key: keyOf(item), answer: answerPart(s.api, r.json), ms: r.ms })
          io.progress?.rows(`${split} answers`, ++done, total)
        }
      }
      const ends = await Promise.allSettled(
        Array.from({ length: Math.max(1, Math.min(s.workers, todo.length)) }, () =>
          worker().catch((e: unknown) => {
            failed = true
            throw e
          }),
        ),
      )
      const failure = ends.find((e) => e.status === 'rejected')
      if (failure) throw failure.reason
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
