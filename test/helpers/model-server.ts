/**
 * A deterministic model server on 127.0.0.1 for the evaluation tests: POST /v1/systemone (the
 * reference evaluator's API) and POST /v1/chat/completions (OpenAI-compatible, with logprobs).
 * An option's logit is a hash of the question and the option's text, plus a bonus for the right
 * option on the questions the "model" knows, so results are reproducible and far from chance;
 * it can be slow, refuse logits, fail with a status, drop the connection or answer malformed.
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** `body`: this text answered with HTTP 200, as it is (NaN as Python writes it, an echo of the request's headers, …) */
export type Fault = { status: number; retryAfter?: string } | { body: string } | 'drop' | 'malformed' | 'not-json'

export interface ModelServerOptions {
  /** the right option's text for a question, when the model may know it */
  gold?: (question: string) => string | undefined
  /** 'reject': return_logits gets HTTP 400; 'ignore': only probabilities come back; default: logits served */
  logits?: 'serve' | 'reject' | 'ignore'
  /** the logits multiplied by this (a sharper, more confident model; default 1) */
  scale?: number
  /** probabilities rounded to this many decimals (as hosted APIs do) */
  round?: number
  /** milliseconds before each answer */
  delayMs?: number
  /** the fault for a request; `seen` counts earlier requests with the same body */
  fault?: (r: { path: string; body: string; seen: number; authorization: string | undefined }) => Fault | undefined
  /** the key a request must carry as `authorization: Bearer …` */
  apiKey?: string
  /** requests after this many are held unanswered until release() (a run to kill mid-way) */
  holdAfter?: number
  /** openai: how many labels the top_logprobs list holds at most (default all) */
  topLabels?: number
}

export interface ModelRequest {
  /** the path, without the query */
  path: string
  /** the path and query as sent */
  url: string
  body: string
  authorization: string | undefined
}

export interface ModelServer {
  url: string
  requests: ModelRequest[]
  /** the bodies of requests answered (2xx) */
  answered: string[]
  /** answers the requests held by holdAfter (and every later one) */
  release(): void
  close(): Promise<void>
}

const unit = (s: string) => parseInt(createHash('sha256').update(s).digest('hex').slice(0, 12), 16) / 2 ** 48

/** The model's logits for a question's options, each a function of the question and that option alone. */
export function modelLogits(question: string, choices: readonly string[], gold?: string): number[] {
  const knows = gold !== undefined && unit(`knows\u0000${question}`) < 0.7
  return choices.map((c) => 3 * unit(`logit\u0000${question}\u0000${c}`) - 1.5 + (knows && c === gold ? 2.5 : 0))
}

function softmax(z: readonly number[]): number[] {
  const m = Math.max(...z)
  const e = z.map((x) => Math.exp(x - m))
  const s = e.reduce((a, b) => a + b, 0)
  return e.map((x) => x / s)
}

/** The question and options back out of the reference prompt. */
function parsePrompt(prompt: string): { question: string; choices: string[] } {
  const q = prompt.indexOf('\nQuestion: ')
  const o = prompt.lastIndexOf('\nOptions:\n')
  const question = prompt.slice(q + '\nQuestion: '.length, o)
  const lines = prompt.slice(o + '\nOptions:\n'.length).split('\n')
  const choices: string[] = []
  for (const line of lines) {
    const m = /^([A-H]): /.exec(line)
    if (m && m[1]!.charCodeAt(0) - 65 === choices.length) choices.push(line.slice(3))
    else choices[choices.length - 1] += `\n${line}`
  }
  return { question, choices }
}

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const requests: ModelRequest[] = []
  const answered: string[] = []
  let released = false
  const waiting: (() => void)[] = []
  const seen = new Map<string, number>()
  const bodyOf = new WeakMap<ServerResponse, string>()
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (status < 300) answered.push(bodyOf.get(res) ?? '')
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(typeof body === 'string' ? body : JSON.stringify(body))
  }
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    bodyOf.set(res, body)
    const path = (req.url ?? '').split('?')[0]!
    requests.push({ path, url: req.url ?? '', body, authorization: req.headers.authorization })
    const n = seen.get(body) ?? 0
    seen.set(body, n + 1)
    if (options.holdAfter !== undefined && requests.length > options.holdAfter && !released)
      await new Promise<void>((ok) => waiting.push(ok))
    if (options.delayMs) await new Promise((ok) => setTimeout(ok, options.delayMs))
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) return send(res, 401, { error: 'bad key' })
    const fault = options.fault?.({ path, body, seen: n, authorization: req.headers.authorization })
    if (fault === 'drop') return req.socket.destroy()
    if (fault === 'not-json') return send(res, 200, '{"answers": ')
    if (fault && typeof fault === 'object' && 'body' in fault) return send(res, 200, fault.body)
    if (fault && typeof fault === 'object')
      return send(res, fault.status, { error: 'fault' }, fault.retryAfter ? { 'retry-after': fault.retryAfter } : {})
    const parsed = JSON.parse(body) as Record<string, any>
    if (req.method !== 'POST') return send(res, 405, { error: 'POST only' })
    if (path === '/v1/systemone') {
      const q = parsed.questions?.q
      // each option's logit depends on its text alone, so the criteria's order does not matter here
      const choices = Object.keys(q.criteria)
      const logits = modelLogits(q.instructions, choices, options.gold?.(q.instructions)).map((x) => x * (options.scale ?? 1))
      const wantsLogits = parsed.options?.return_logits === true
      if (wantsLogits && options.logits === 'reject') return send(res, 400, { error: 'unknown option return_logits' })
      if (fault === 'malformed') {
        const p = Object.fromEntries(choices.map((c, i) => [c, i === 0 ? 0.9 : 0.5]))
        return send(res, 200, { answers: { q: wantsLogits ? { logits: { ...p, [choices[0]!]: 'NaN' } } : { probabilities: p } } })
      }
      let probs = softmax(logits)
      if (options.round !== undefined) probs = probs.map((p) => Number(p.toFixed(options.round)))
      const a: Record<string, unknown> = { choice: choices[probs.indexOf(Math.max(...probs))] }
      if (wantsLogits && options.logits !== 'ignore') a.logits = Object.fromEntries(choices.map((c, i) => [c, logits[i]]))
      else a.probabilities = Object.fromEntries(choices.map((c, i) => [c, probs[i]]))
      return send(res, 200, { answers: { q: a } })
    }
    if (path === '/v1/chat/completions') {
      const { question, choices } = parsePrompt(parsed.messages[0].content)
      const logits = modelLogits(question, choices, options.gold?.(question))
      // one token that is no label takes a share, as a real model's "The" would
      const lp = softmax([...logits, -2]).map(Math.log)
      const top = choices
        .map((_, i) => ({ token: i % 2 ? ` ${String.fromCharCode(65 + i)}` : String.fromCharCode(65 + i), logprob: lp[i]! }))
        .sort((a, b) => b.logprob - a.logprob)
        .slice(0, options.topLabels ?? 8)
      top.push({ token: 'The', logprob: lp[choices.length]! })
      if (fault === 'malformed') top[0] = { token: 'A', logprob: 0.5 }
      return send(res, 200, {
        id: 'cmpl-test',
        object: 'chat.completion',
        model: parsed.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: top[0]!.token },
            logprobs: { content: [{ token: top[0]!.token, logprob: top[0]!.logprob, top_logprobs: top }] },
            finish_reason: 'length',
          },
        ],
      })
    }
    return send(res, 404, { error: 'not found' })
  }
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => send(res, 500, { error: String(e) }))
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  // a test that fails before close() ends rather than waits on a listening server (one holding requests, say)
  server.unref()
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answered,
    release() {
      released = true
      for (const go of waiting.splice(0)) go()
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}
