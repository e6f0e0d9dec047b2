/** The options `screen` and `judge` share for a model as the reviewer, declared once, and the reviewer they make. */
import { JevError } from '../../errors.ts'
import { boundsFrom } from '../../fetch/bounds.ts'
import { checkUrl } from '../../review/http.ts'
import type { ModelReviewer } from '../../review/model.ts'

/** The largest answer a reviewer may send: a chat answer with a few marks is a few kB. */
export const MAX_ANSWER_BYTES = 1 << 20

export const MODEL_OPTIONS = {
  url: { type: 'string', arg: 'URL', help: 'a model as the reviewer: an OpenAI-compatible server (POST URL/v1/chat/completions)' },
  model: { type: 'string', arg: 'NAME', help: 'the model named in each request' },
  'api-key': {
    type: 'string',
    arg: 'KEY',
    help: 'sent to --url as a Bearer token, never printed or written (JEV_REVIEW_API_KEY does the same)',
  },
  journal: {
    type: 'string',
    arg: 'FILE',
    help: "the model's answers as they come, so a rerun asks only for the rest (default beside --out)",
  },
  workers: { type: 'string', number: true, arg: 'N', default: '4', help: 'parallel requests' },
  timeout: { type: 'string', number: true, arg: 'S', default: '120', help: 'seconds one request may take, headers and body together' },
  retries: {
    type: 'string',
    number: true,
    arg: 'N',
    default: '2',
    help: 'extra attempts for 408, 429, 5xx, a dropped connection, a timeout or an answer that is not valid JSON marks',
  },
} as const

export const whole = (v: string, flag: string, min: number): number => {
  const n = /^\d+$/.test(v.trim()) ? Number(v) : NaN
  if (!Number.isSafeInteger(n) || n < min)
    throw new JevError('USAGE', `--${flag} ${JSON.stringify(v)} is not a whole number of at least ${min}`)
  return n
}

const seconds = (v: string, flag: string): number => {
  const n = /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN
  if (!(n > 0)) throw new JevError('USAGE', `--${flag} ${JSON.stringify(v)} is not a positive number of seconds`)
  return Math.round(n * 1000)
}

export interface ModelValues {
  url?: string | undefined
  model?: string | undefined
  'api-key'?: string | undefined
  journal?: string | undefined
  workers: string
  timeout: string
  retries: string
  [flag: string]: unknown
}

/**
 * The model reviewer the options name (url, model, key from `key` or the environment's `keyEnv`), or null where
 * they name none; `flags` spells the options in messages (screen's second reviewer has its own).
 */
export function modelReviewer(
  o: { url: string | undefined; model: string | undefined; key: string | undefined; journal: string | undefined },
  values: ModelValues,
  env: NodeJS.ProcessEnv,
  flags: { url: string; model: string },
): ModelReviewer | null {
  if (o.url === undefined && o.model === undefined) return null
  if (o.url === undefined || o.model === undefined)
    throw new JevError('USAGE', `a model as the reviewer needs both ${flags.url} URL and ${flags.model} NAME`)
  checkUrl(o.url, flags.url)
  return {
    kind: 'model',
    model: o.model,
    journal: o.journal,
    workers: whole(values.workers, 'workers', 1),
    client: {
      url: o.url,
      apiKey: o.key || undefined,
      timeoutMs: seconds(values.timeout, 'timeout'),
      retries: whole(values.retries, 'retries', 0),
      maxRetryAfterMs: boundsFrom(values, env).maxRetryAfterMs,
      maxBytes: MAX_ANSWER_BYTES,
    },
  }
}
