/**
 * The reviewer's client: one POST to an OpenAI-compatible chat endpoint, bounded. One deadline per attempt covers the
 * headers and the whole body, the body is read up to a size cap, and what a second try can fix (408, 429, 5xx, a
 * dropped connection, a deadline, a body that is not a chat answer) is retried a bounded number of times. The key
 * goes only into the authorization header; no message names it, nor the URL's user, password or query.
 */
import { randomInt } from 'node:crypto'
import { z } from 'zod'
import { JevError } from '../errors.ts'
import { backoffMs, isRetryableStatus, parseRetryAfter } from '../fetch/retry.ts'
import { readCapped } from '../util/read-capped.ts'

export interface ChatClient {
  /** the server's base URL (…/v1/chat/completions is added unless it ends so) */
  url: string
  /** sent as `authorization: Bearer …` and nowhere else */
  apiKey?: string | undefined
  /** one attempt, headers and body together */
  timeoutMs: number
  /** extra attempts after the first */
  retries: number
  /** the longest Retry-After waited out */
  maxRetryAfterMs: number
  /** the largest answer body read */
  maxBytes: number
  sleep?: (ms: number) => Promise<void>
  /** each retry, its reason (scrubbed) and the attempt about to be made */
  onRetry?: (why: string, attempt: number, of: number) => void
}

/** The chat endpoint a base URL names, without its user and password (fetch refuses them; they go in a header). */
export function chatEndpoint(url: string): { endpoint: string; basic: string | null } {
  const u = new URL(url)
  const basic =
    u.username || u.password ? Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64') : null
  u.username = ''
  u.password = ''
  const path = u.pathname.replace(/\/+$/, '')
  u.pathname = /\/chat\/completions$/.test(path) ? path : `${path}/v1/chat/completions`
  return { endpoint: u.href, basic }
}

/** A URL as a message or a file may show it: no user, password, query or fragment (any of them may hold a credential). */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname}`.replace(/\/+$/, '')
  } catch {
    return '<the URL given>'
  }
}

/** `text` with the key, and the full URL, replaced: what a message may say. */
export function scrubbed(text: string, c: Pick<ChatClient, 'url' | 'apiKey'>): string {
  let out = text.split(c.url).join(safeUrl(c.url))
  if (c.apiKey) out = out.split(c.apiKey).join('<API_KEY>')
  return out
}

/** Whether `url` is an http(s) URL; USAGE naming the flag (and no part of the URL that may hold a credential) otherwise. */
export function checkUrl(url: string, flag: string): void {
  let ok = false
  try {
    ok = /^https?:$/.test(new URL(url).protocol)
  } catch {}
  if (!ok) throw new JevError('USAGE', `${flag} is not an http:// or https:// URL`, { hint: `give ${flag} as http://HOST:PORT` })
}

const ChatAnswer = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1),
})

const realSleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms))
const jitter = () => randomInt(2 ** 32) / 2 ** 32

interface Attempt {
  content?: string
  /** why the attempt failed and whether another may help */
  why?: string
  retry?: boolean
  status?: number
  waitMs?: number | null
}

async function attempt(endpoint: string, basic: string | null, body: string, c: ChatClient): Promise<Attempt> {
  const auth = c.apiKey ? `Bearer ${c.apiKey}` : basic ? `Basic ${basic}` : null
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) }
  const abort = new AbortController()
  // one deadline for the headers and the body: a server that sends a byte now and then is still cut off. The race ends
  // the attempt even where the abort does not reach a body being read, which then waited for the server to hang up
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, ko) => {
    timer = setTimeout(() => {
      abort.abort()
      ko(new Error('deadline'))
    }, c.timeoutMs)
  })
  const exchange = async (): Promise<Attempt> => {
    const res = await fetch(endpoint, { method: 'POST', headers, body, signal: abort.signal, redirect: 'error' })
    const text = await readCapped(res, c.maxBytes)
    if (text === null) return { why: `an answer over ${c.maxBytes} bytes`, retry: false, status: res.status }
    if (res.status === 401 || res.status === 403) return { why: `HTTP ${res.status}`, retry: false, status: res.status }
    if (isRetryableStatus(res.status))
      return {
        why: `HTTP ${res.status}`,
        retry: true,
        status: res.status,
        waitMs: parseRetryAfter(res.headers.get('retry-after'), Date.now()),
      }
    if (res.status < 200 || res.status >= 300) return { why: `HTTP ${res.status}`, retry: false, status: res.status }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return { why: `HTTP ${res.status} with a body that is not JSON`, retry: true }
    }
    const answer = ChatAnswer.safeParse(json)
    if (!answer.success) return { why: 'an answer without choices[0].message.content', retry: true }
    return { content: answer.data.choices[0]!.message.content }
  }
  try {
    return await Promise.race([exchange(), deadline])
  } catch (e) {
    if (abort.signal.aborted) return { why: `no whole answer within ${c.timeoutMs / 1000} s`, retry: true }
    const err = e as Error & { cause?: { code?: string; message?: string } }
    return { why: `connection failed (${err.cause?.code ?? err.cause?.message ?? err.name})`, retry: true }
  } finally {
    clearTimeout(timer)
    // whatever is still in flight (a body being read past the deadline) is ended
    abort.abort()
  }
}

/** The chat answer's text for one request body; NETWORK (or AUTH) naming the endpoint safely when every attempt failed. */
export async function postChat(c: ChatClient, body: string): Promise<string> {
  const { endpoint, basic } = chatEndpoint(c.url)
  // a key a header cannot carry fails every attempt the same way, and two sets of credentials leave one unsaid
  if (c.apiKey !== undefined && !/^[\x21-\x7e]+$/.test(c.apiKey))
    throw new JevError(
      'USAGE',
      "the reviewer's API key holds a character an HTTP header cannot carry: a space, a line break, a control or non-ASCII character",
      {
        usage: null,
        hint: 'give the key alone, without quotes, spaces or a trailing newline',
      },
    )
  if (c.apiKey && basic)
    throw new JevError('USAGE', "the reviewer's URL holds a user or password and an API key is given too: give the credentials one way", {
      usage: null,
    })
  const shown = safeUrl(endpoint)
  const total = Math.max(0, Math.floor(c.retries)) + 1
  const sleep = c.sleep ?? realSleep
  for (let n = 1; ; n++) {
    const a = await attempt(endpoint, basic, body, c)
    if (a.content !== undefined) return a.content
    const why = scrubbed(a.why ?? 'no answer', c)
    if (a.status === 401 || a.status === 403)
      throw new JevError('AUTH', `${shown} answered ${why}`, {
        status: a.status,
        hint: 'the reviewer endpoint wants a key: give it with --api-key KEY or JEV_REVIEW_API_KEY',
      })
    if (!a.retry || n >= total)
      throw new JevError('NETWORK', `${shown}: ${why}${a.retry ? ` after ${n} attempt${n === 1 ? '' : 's'}` : ''}`, {
        ...(a.status ? { status: a.status } : {}),
        hint: a.retry
          ? 'check that the reviewer endpoint is up at --url; answers already received are in the journal, so a rerun asks only for the rest'
          : 'check --url and --model: the endpoint refused the request',
      })
    if (a.waitMs != null && a.waitMs > c.maxRetryAfterMs)
      throw new JevError('NETWORK', `${shown}: ${why}, and the server asked to wait ${Math.ceil(a.waitMs / 1000)} s`, {
        hint: 'the endpoint is rate-limiting; rerun later (answers already received are in the journal) or lower --workers',
      })
    c.onRetry?.(why, n + 1, total)
    await sleep(a.waitMs ?? backoffMs(n - 1, jitter))
  }
}
