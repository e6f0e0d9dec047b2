/**
 * A deterministic stand-in reviewer on 127.0.0.1: an OpenAI-compatible POST /v1/chat/completions that reads the task
 * from the system prompt (screen, recheck or judge) and the candidates or options from the user's message, and marks
 * each by a hash of its text, so every run gives the same marks. It can fail a request, answer invalid marks, or
 * hold an answer, for the tests of the client's bounds.
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type ReviewFault = { status: number; retryAfter?: string } | 'drop' | 'bad-marks' | 'not-chat' | 'stall' | 'huge'

export interface ReviewerServerOptions {
  /** the key a request must carry as `authorization: Bearer …` */
  apiKey?: string
  /** the fault for a request; `seen` counts earlier requests with the same body */
  fault?: (r: { task: string; body: string; seen: number }) => ReviewFault | undefined
}

export interface ReviewerServer {
  url: string
  /** every request: its task, the authorization header, the body */
  requests: { task: string; authorization: string | undefined; body: string }[]
  close(): Promise<void>
}

const unit = (s: string) => parseInt(createHash('sha256').update(s).digest('hex').slice(0, 8), 16) / 2 ** 32

/** The stand-in's marks for a task's lines: a share of each kind, fixed by the text. */
export function standInMarks(task: string, texts: readonly string[]): string[] {
  return texts.map((t) => {
    const u = unit(`${task}\u0000${t}`)
    if (task === 'screen') return u < 0.75 ? 'a' : u < 0.9 ? 'f' : 'r'
    if (task === 'recheck') return u < 0.85 ? 'w' : 'r'
    return u < 0.7 ? 'b' : u < 0.95 ? 'f' : 'm'
  })
}

function taskOf(system: string): string {
  if (system.startsWith('You are screening')) return 'screen'
  if (system.startsWith('You are double-checking')) return 'recheck'
  if (system.startsWith('You are judging')) return 'judge'
  return 'unknown'
}

/** The candidates ("1. text") or options ("A. text") the user's message lists. */
function linesOf(task: string, text: string): string[] {
  const re = task === 'judge' ? /^[A-H]\. (.*)$/ : /^\d+\. (.*)$/
  const from = task === 'judge' ? 0 : text.indexOf('\nCandidates:\n')
  return text
    .slice(from)
    .split('\n')
    .flatMap((l) => re.exec(l)?.[1] ?? [])
}

export async function startReviewerServer(options: ReviewerServerOptions = {}): Promise<ReviewerServer> {
  const requests: ReviewerServer['requests'] = []
  const seen = new Map<string, number>()
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(typeof body === 'string' ? body : JSON.stringify(body))
  }
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const parsed = JSON.parse(body) as { messages: { role: string; content: string }[] }
    const task = taskOf(parsed.messages[0]?.content ?? '')
    requests.push({ task, authorization: req.headers.authorization, body })
    const n = seen.get(body) ?? 0
    seen.set(body, n + 1)
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/v1/chat/completions')
      return send(res, 404, { error: 'not found' })
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) return send(res, 401, { error: 'bad key' })
    const fault = options.fault?.({ task, body, seen: n })
    if (fault === 'drop') return req.socket.destroy()
    if (fault === 'stall') {
      // the headers and a first byte, then nothing: only the client's deadline ends it
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{')
      return
    }
    if (fault === 'huge') return send(res, 200, `{"pad": "${'x'.repeat(2 << 20)}"}`)
    if (fault === 'not-chat') return send(res, 200, { result: 'no choices here' })
    if (fault && typeof fault === 'object')
      return send(res, fault.status, { error: 'fault' }, fault.retryAfter ? { 'retry-after': fault.retryAfter } : {})
    const marks = standInMarks(task, linesOf(task, parsed.messages[1]?.content ?? ''))
    const content = fault === 'bad-marks' ? JSON.stringify({ marks: marks.slice(1) }) : JSON.stringify({ marks })
    return send(res, 200, { id: 'chat-test', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] })
  }
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => send(res, 500, { error: String(e) }))
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  // a test that fails before close() ends rather than waits on a listening server
  server.unref()
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}
