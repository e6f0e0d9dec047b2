/**
 * The reviewer's client and journal against a stand-in server on loopback: every wait bounded (one deadline for
 * headers and body, a body cap, bounded retries, a capped Retry-After), the key only in the header, a URL's
 * credentials in no message, answers validated, and a journal a rerun resumes from without asking again.
 */
import assert from 'node:assert/strict'
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { isJevError } from '../src/errors.ts'
import { type ChatClient, chatEndpoint, postChat, safeUrl } from '../src/review/http.ts'
import { type Ask, askModel, type ModelReviewer, parseModelAnswer } from '../src/review/model.ts'
import { type ReviewerServer, type ReviewFault, startReviewerServer } from './helpers/reviewer-server.ts'

const KEY = 'sk-SECRET-key-123'
let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-review-'))
})
after(() => rm(tmp, { recursive: true, force: true }))

/** A server for one test, with faults by request; closed after `fn`. */
async function withServer(
  fault: ((seen: number, task: string) => ReviewFault | undefined) | undefined,
  fn: (s: ReviewerServer) => Promise<void>,
) {
  const s = await startReviewerServer({ apiKey: KEY, ...(fault && { fault: ({ seen, task }) => fault(seen, task) }) })
  try {
    await fn(s)
  } finally {
    await s.close()
  }
}

const sleeps: number[] = []
const client = (url: string, extra: Partial<ChatClient> = {}): ChatClient => ({
  url,
  apiKey: KEY,
  timeoutMs: 30_000,
  retries: 2,
  maxRetryAfterMs: 60_000,
  maxBytes: 1 << 20,
  sleep: async (ms) => void sleeps.push(ms),
  ...extra,
})
const body = (text: string) =>
  JSON.stringify({
    model: 'm',
    messages: [
      { role: 'system', content: 'You are screening' },
      { role: 'user', content: text },
    ],
  })
const item = '## 1 (2 candidates)\n\nQuestion: q?\n\nOwn options:\n- ✓ a\n- b\n\nCandidates:\n1. c\n2. d\n'
const fails = (code: string, says: RegExp) => (e: unknown) => {
  assert.ok(isJevError(e), String(e))
  assert.equal(e.code, code, e.message)
  assert.match(e.message, says)
  assert.ok(!e.message.includes(KEY) && !String(e.context.hint).includes(KEY), 'no key in the message')
  return true
}

describe('the client', () => {
  test('an endpoint keeps no credentials: user and password go to a header, and messages show neither nor the query', () => {
    const { endpoint, basic } = chatEndpoint('http://me:pw@127.0.0.1:9/base/?key=abc')
    assert.equal(endpoint, 'http://127.0.0.1:9/base/v1/chat/completions?key=abc')
    assert.equal(Buffer.from(basic!, 'base64').toString(), 'me:pw')
    assert.equal(safeUrl('http://me:pw@127.0.0.1:9/base/v1/chat/completions?key=abc#x'), 'http://127.0.0.1:9/base/v1/chat/completions')
  })

  test('a key a header cannot carry, or a key beside a user and password in the URL, is refused before any request', async () => {
    const sent = sleeps.length
    await assert.rejects(postChat(client('http://127.0.0.1:9', { apiKey: 'abc\ndef' }), body(item)), (e: unknown) => {
      assert.ok(isJevError(e) && e.code === 'USAGE' && /cannot carry/.test(e.message) && !e.message.includes('abc'), String(e))
      return true
    })
    await assert.rejects(postChat(client('http://me:pw@127.0.0.1:9'), body(item)), (e: unknown) => {
      assert.ok(
        isJevError(e) && e.code === 'USAGE' && /give the credentials one way/.test(e.message) && !e.message.includes('pw'),
        String(e),
      )
      return true
    })
    assert.equal(sleeps.length, sent, 'no attempt was retried')
  })

  test('retries 503 and a dropped connection, then answers; the key is sent only as the Bearer header', async () => {
    await withServer(
      (seen) => (seen === 0 ? { status: 503 } : seen === 1 ? 'drop' : undefined),
      async (s) => {
        sleeps.length = 0
        const content = await postChat(client(s.url), body(item))
        assert.deepEqual(JSON.parse(content).marks.length, 2)
        assert.equal(s.requests.length, 3)
        assert.equal(sleeps.length, 2, 'two backoffs, injected: no real wait')
        assert.ok(s.requests.every((r) => r.authorization === `Bearer ${KEY}` && !r.body.includes(KEY)))
      },
    )
  })

  // the runner's timeout is the bound: an abort that missed the body once left the read to the server's 300 s request timeout
  test('one deadline covers headers and body: a server that stalls mid-body is cut off, and retried a bounded number of times', {
    timeout: 60_000,
  }, async () => {
    await withServer(
      () => 'stall',
      async (s) => {
        await assert.rejects(
          postChat(client(s.url, { timeoutMs: 300, retries: 1 }), body(item)),
          fails('NETWORK', /^http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: no whole answer within 0\.3 s after 2 attempts$/),
        )
        assert.equal(s.requests.length, 2)
      },
    )
  })

  test('a body over the cap is refused at once; an answer with no chat content, or a Retry-After over the cap, is not waited out', async () => {
    await withServer(
      () => 'huge',
      async (s) => {
        await assert.rejects(postChat(client(s.url), body(item)), fails('NETWORK', /an answer over 1048576 bytes$/))
        assert.equal(s.requests.length, 1, 'not retried')
      },
    )
    await withServer(
      () => 'not-chat',
      async (s) => {
        await assert.rejects(
          postChat(client(s.url), body(item)),
          fails('NETWORK', /an answer without choices\[0\]\.message\.content after 3 attempts$/),
        )
      },
    )
    await withServer(
      () => ({ status: 429, retryAfter: '3600' }),
      async (s) => {
        await assert.rejects(postChat(client(s.url), body(item)), fails('NETWORK', /HTTP 429, and the server asked to wait 3600 s$/))
        assert.equal(s.requests.length, 1)
      },
    )
  })

  test('a wrong key is AUTH, and neither it nor the URL credentials appear in the message', async () => {
    await withServer(undefined, async (s) => {
      const url = s.url.replace('http://', 'http://user:PASSWORD@')
      await assert.rejects(postChat(client(`${url}/?token=QUERYSECRET`, { apiKey: undefined }), body(item)), (e: unknown) => {
        assert.ok(isJevError(e) && e.code === 'AUTH', String(e))
        for (const secret of ['PASSWORD', 'QUERYSECRET']) assert.ok(!e.message.includes(secret), e.message)
        return true
      })
      await assert.rejects(postChat(client(`${s.url}/?token=QUERYSECRET`, { apiKey: 'sk-wrong' }), body(item)), (e: unknown) => {
        assert.ok(isJevError(e) && e.code === 'AUTH', String(e))
        for (const secret of ['sk-wrong', 'QUERYSECRET']) assert.ok(!e.message.includes(secret), e.message)
        return true
      })
    })
  })
})

describe('a model reviewer', () => {
  const asks: Ask[] = ['x', 'y', 'z'].map((id) => ({ id, text: item.replace('q?', `${id}?`), count: 2 }))
  const reviewer = (url: string, journal: string, model = 'm'): ModelReviewer => ({
    kind: 'model',
    model,
    journal,
    workers: 2,
    client: client(url),
  })

  test('answers must be {"marks": [...]} with the task’s letters, one per line shown', () => {
    assert.deepEqual(parseModelAnswer('{"marks": ["a", "f"]}', 'screen', 2), { marks: 'af' })
    assert.deepEqual(parseModelAnswer('```json\n{"marks": ["w"]}\n```', 'recheck', 1), { marks: 'w' })
    assert.deepEqual(parseModelAnswer('{"marks": ["a"]}', 'screen', 2), { why: '1 marks for 2' })
    assert.deepEqual(parseModelAnswer('{"marks": ["b"]}', 'screen', 1), { why: 'a mark "b" is none of a, f, r' })
    assert.deepEqual(parseModelAnswer('Sure! {"marks": ["a"]}', 'screen', 1), { why: 'the answer is not a JSON object' })
    assert.deepEqual(parseModelAnswer('{"marks": ["a"], "why": "x"}', 'screen', 1), { why: 'the answer is not {"marks": [...]} alone' })
  })

  test('journals each answer: a rerun asks nothing, a line cut short by a kill is asked again, another model’s journal is refused', async () => {
    const journal = join(tmp, 'resume.journal.jsonl')
    await withServer(undefined, async (s) => {
      const first = await askModel('screen', reviewer(s.url, journal), asks, { log: () => {} })
      assert.equal(s.requests.length, 3)
      assert.equal(first.size, 3)
      const again = await askModel('screen', reviewer(s.url, journal), asks, { log: () => {} })
      assert.equal(s.requests.length, 3, 'nothing asked again')
      assert.deepEqual(again, first)
      // a kill in the middle of appending leaves a partial line: it is dropped, and its item asked again
      const text = await readFile(journal, 'utf8')
      const lines = text.split('\n').filter((l) => l)
      await rm(journal)
      await appendFile(journal, `${lines.slice(0, 3).join('\n')}\n${lines[3]!.slice(0, 20)}`)
      await askModel('screen', reviewer(s.url, journal), asks, { log: () => {} })
      assert.equal(s.requests.length, 4)
      assert.equal((await readFile(journal, 'utf8')).split('\n').filter((l) => l).length, 4)
      assert.ok(!(await readFile(journal, 'utf8')).includes(KEY), 'no key in the journal')
      await assert.rejects(
        askModel('screen', reviewer(s.url, journal, 'other'), asks, { log: () => {} }),
        fails('USAGE', /journal .* is another run's: its model is "m", this run's "other"/),
      )
    })
  })

  test('an item whose answers stay invalid is DATA naming it, after the others are journaled', async () => {
    const journal = join(tmp, 'invalid.journal.jsonl')
    const s = await startReviewerServer({ apiKey: KEY, fault: ({ body }) => (body.includes('y?') ? 'bad-marks' : undefined) })
    try {
      await assert.rejects(
        askModel('screen', reviewer(s.url, journal), asks, { log: () => {} }),
        fails('DATA', /^m gave no valid answer for 1 item \(e\.g\. y: 1 marks for 2\)$/),
      )
      assert.equal(s.requests.filter((r) => r.body.includes('y?')).length, 3, 'the first ask and two retries')
      assert.equal((await readFile(journal, 'utf8')).split('\n').filter((l) => l).length, 3, 'the header and the two valid answers')
    } finally {
      await s.close()
    }
  })
})
