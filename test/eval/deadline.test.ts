/**
 * Every wait of eval-model is bounded by --timeout, the answer's body included, with garbage
 * collected all the time: the CLI runs as a child under `--expose-gc` calling gc() every 20 ms,
 * against real loopback servers that never answer, stall after the headers and 10 bytes, or
 * trickle one byte a second. An answer's size is capped, and a Retry-After that cannot be waited
 * for is named.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { childEnv, NODE_FLAGS, ROOT, runInProcess } from '../helpers/cli.ts'
import { OUT } from '../helpers/eval-rig.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-deadline-'))
})
after(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

interface Loopback {
  url: string
  /** resolves once an answer was ended before it was complete (the client gave up on it); fails after `ms` */
  cut(ms?: number): Promise<void>
  close(): Promise<void>
}

/** A server on 127.0.0.1 whose every answer is `answer`'s; stopped, it ends every connection. */
async function serve(answer: (res: ServerResponse, done: () => void) => void): Promise<Loopback> {
  let cut: () => void = () => {}
  const wasCut = new Promise<void>((ok) => (cut = ok))
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on('end', () => {
      let complete = false
      res.on('close', () => {
        if (!complete) cut()
      })
      answer(res, () => (complete = true))
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  server.unref()
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut: (ms = 10_000) => {
      let guard: NodeJS.Timeout | undefined
      const late = new Promise<never>((_, ko) => {
        guard = setTimeout(() => ko(new Error(`no answer was cut within ${ms} ms: the client read on`)), ms)
      })
      return Promise.race([wasCut, late]).finally(() => clearTimeout(guard))
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}

const JEV = join(ROOT, 'dist', 'cli', 'main.js')
/** Loaded first in the child: a full garbage collection every 20 ms, so nothing the waits need may be only weakly held. */
const GC_OFTEN = `data:text/javascript,${encodeURIComponent('setInterval(() => globalThis.gc(), 20).unref()')}`
/** Far beyond any --timeout here: a child still running then has a wait the deadline does not bound. */
const GUARD_MS = 40_000

/** eval-model as a child with forced garbage collection; `seconds` is its wall time. */
function evalUnderGc(url: string, timeout: number): Promise<{ status: number | null; stderr: string; seconds: number }> {
  const args = [
    '--url',
    url,
    '--data',
    OUT,
    '--limit',
    '3',
    '--mode',
    'logits',
    '--timeout',
    String(timeout),
    '--retries',
    '0',
    '--workers',
    '2',
  ]
  const t0 = performance.now()
  const child = spawn(process.execPath, [...NODE_FLAGS, '--expose-gc', '--import', GC_OFTEN, JEV, 'eval-model', ...args], {
    cwd: ROOT,
    env: childEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const guard = setTimeout(() => child.kill('SIGKILL'), GUARD_MS)
  return once(child, 'close').then(([status]) => {
    clearTimeout(guard)
    return { status: status as number | null, stderr, seconds: (performance.now() - t0) / 1000 }
  })
}

test('--timeout bounds the whole answer under constant garbage collection: no headers, 10 bytes then a stall, a 1 byte/s trickle', async () => {
  const timers: NodeJS.Timeout[] = []
  // never answers: the request is read, then nothing
  const silent = await serve(() => {})
  // the headers and 10 of the 1000 bytes they promise, then nothing
  const stall = await serve((res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
    res.write('{"answers"')
  })
  // one byte a second of a 1000-byte body, until the client goes or the test ends
  const trickle = await serve((res, done) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
    let sent = 0
    const t = setInterval(() => {
      if (res.destroyed || sent >= 1000) {
        clearInterval(t)
        if (sent >= 1000) done()
        return
      }
      res.write(' ')
      sent++
    }, 1000)
    timers.push(t)
  })
  try {
    const [a, b, c] = await Promise.all([evalUnderGc(silent.url, 2), evalUnderGc(stall.url, 2), evalUnderGc(trickle.url, 3)])
    // a child the guard killed has status null: its wait outlived the deadline
    assert.equal(b.status, 6, `the stalled answer: ${b.stderr}`)
    assert.match(b.stderr, /^error\[NETWORK\]: .*\/v1\/systemone: the answer did not finish within 2 s \(--timeout\)$/m)
    assert.equal(c.status, 6, `the trickled answer: ${c.stderr}`)
    assert.match(c.stderr, /^error\[NETWORK\]: .*: the answer did not finish within 3 s \(--timeout\)$/m)
    assert.match(c.stderr, /^hint: .*--timeout S/m)
    assert.equal(a.status, 6, a.stderr)
    assert.match(a.stderr, /^error\[NETWORK\]: http:\/\/127\.0\.0\.1:\d+\/v1\/systemone: no answer within 2 s/m)
    // the child gave up on the answers it was reading: the servers saw them cut
    await Promise.all([stall.cut(), trickle.cut()])
  } finally {
    for (const t of timers) clearInterval(t)
    await Promise.all([silent.close(), stall.close(), trickle.close()])
  }
})

test('an answer larger than --max-answer-bytes ends the run with a typed error, read no further; a declared one is not read at all', async () => {
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  // 64 MiB of spaces with no length given, written as the client takes them
  const endless = await serve((res, done) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    let left = 1024
    const more = () => {
      while (left > 0 && !res.destroyed) {
        left--
        if (!res.write(chunk)) return void res.once('drain', more)
      }
      if (left === 0) res.end(done)
    }
    more()
  })
  const declared = await serve((res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) })
    res.write('{')
  })
  try {
    const args = ['--data', OUT, '--limit', '3', '--mode', 'logits', '--retries', '0', '--max-answer-bytes', '1000000']
    const r = await runInProcess('eval-model', ['--url', endless.url, ...args])
    assert.equal(r.status, 6, r.stderr)
    assert.match(r.stderr, /^error\[NETWORK\]: .*: an answer larger than 1000000 bytes \(--max-answer-bytes\)$/m)
    await endless.cut()
    const d = await runInProcess('eval-model', ['--url', declared.url, ...args])
    assert.equal(d.status, 6, d.stderr)
    assert.match(d.stderr, /an answer larger than 1000000 bytes/)
  } finally {
    await Promise.all([endless.close(), declared.close()])
  }
})

test('--retries 0 and a Retry-After: the error line names the wait the server asked for', async () => {
  const server = await serve((res, done) => {
    res.writeHead(429, { 'retry-after': '120', 'content-type': 'application/json' })
    res.end('{"error":"slow down"}', done)
  })
  try {
    const r = await runInProcess('eval-model', ['--url', server.url, '--data', OUT, '--limit', '3', '--mode', 'logits', '--retries', '0'])
    assert.equal(r.status, 6, r.stderr)
    assert.match(r.stderr, /^error\[NETWORK\]: .*: HTTP 429 after 1 attempt, and the server asked to wait 120 s$/m)
    assert.match(r.stderr, /^hint: the server is rate-limiting/m)
  } finally {
    await server.close()
  }
})
