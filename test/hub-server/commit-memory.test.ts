/**
 * serve-hub's commit endpoint reads its NDJSON body a line at a time: each inline file is stored as its
 * line arrives, so a commit holds one line (in a few copies), whatever its size. Its bodies in flight are
 * counted so against the budget; a line over the bound is 413, and an inline file over 10 MiB is refused
 * as the Hub refuses it.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { childEnv, ROOT } from '../helpers/cli.ts'
import { type HubServer, startHubServer } from '../helpers/hub-server.ts'

const MiB = 1024 * 1024
const AUTH = { Authorization: 'Bearer hf_commitMemory0000000' }
let tmp: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-hub-commit-'))
})
after(() => rm(tmp, { recursive: true, force: true }))

const header = `${JSON.stringify({ key: 'header', value: { summary: 'many files' } })}\n`
const fileLine = (i: number, content: string) =>
  `${JSON.stringify({ key: 'file', value: { path: `data/f${i}.txt`, content, encoding: 'base64' } })}\n`

/** A commit's NDJSON body: the header, then `files` inline files of `size` bytes each, base64; made a line at a time, with its length. */
function commitBody(files: number, size: number): { length: number; lines: () => Generator<string> } {
  // base64 is 4 characters per 3 bytes, none escaped in JSON
  const length =
    header.length + Array.from({ length: files }, (_, i) => fileLine(i, '').length + 4 * Math.ceil(size / 3)).reduce((a, b) => a + b, 0)
  function* lines() {
    yield header
    // one content for all: what is measured is the server's reading, not the test's making
    const content = Buffer.alloc(size, 0x61).toString('base64')
    for (let i = 0; i < files; i++) yield fileLine(i, content)
  }
  return { length, lines }
}

/** POSTs the lines as they are made (the test never holds the whole body). */
async function postCommit(url: string, repo: string, body: ReturnType<typeof commitBody>): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url)
  return new Promise((ok, ko) => {
    const req = request(
      {
        host: hostname,
        port,
        method: 'POST',
        path: `/api/datasets/${repo}/commit/main`,
        headers: { ...AUTH, 'Content-Type': 'application/x-ndjson', 'Content-Length': String(body.length) },
      },
      async (res) => {
        let body = ''
        for await (const c of res) body += c
        ok({ status: res.statusCode!, body })
      },
    )
    req.on('error', ko)
    const it = body.lines()
    const pump = () => {
      for (let n = it.next(); !n.done; n = it.next()) if (!req.write(n.value)) return void req.once('drain', pump)
      req.end()
    }
    pump()
  })
}

async function createRepo(url: string, name: string): Promise<void> {
  const r = await fetch(`${url}/api/repos/create`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, type: 'dataset' }),
  })
  assert.equal(r.status, 200)
}

test('a commit of 27 MiB of inline files passes under a 16 MiB budget: the body is never held whole', { timeout: 60_000 }, async () => {
  const server: HubServer = await startHubServer({ store: join(tmp, 'store'), maxBodyBytesInFlight: 16 * MiB })
  try {
    await createRepo(server.url, 'me/many')
    const r = await postCommit(server.url, 'me/many', commitBody(10, 2 * MiB))
    assert.equal(r.status, 200, r.body)
    const got = await fetch(`${server.url}/datasets/me/many/resolve/main/data/f9.txt`, { headers: AUTH })
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), Buffer.alloc(2 * MiB, 0x61))
  } finally {
    await server.close()
  }
})

test('a line over 16 MiB is 413 and an inline file over 10 MiB is 400, as the Hub refuses it; nothing is committed', {
  timeout: 60_000,
}, async () => {
  const server: HubServer = await startHubServer({})
  try {
    await createRepo(server.url, 'me/big')
    const long = await postCommit(server.url, 'me/big', commitBody(1, 13 * MiB))
    assert.equal(long.status, 413, long.body)
    assert.match(long.body, /a commit line over 16777216 bytes/)
    const big = await postCommit(server.url, 'me/big', commitBody(1, 11 * MiB))
    assert.equal(big.status, 400, big.body)
    assert.match(big.body, /files larger than 10 MiB.*data\/f0\.txt/)
    const tree = (await (await fetch(`${server.url}/api/datasets/me/big/tree/main`, { headers: AUTH })).json()) as { path: string }[]
    assert.deepEqual(
      tree.map((e) => e.path),
      ['.gitattributes'],
    )
  } finally {
    await server.close()
  }
})

/** The peak resident memory of a running process, in bytes (Linux). */
const peakRss = (pid: number) => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024

test('serve-hub committing a 240 MiB body of inline files peaks far under its 1 GiB budget', {
  timeout: 120_000,
  skip: existsSync('/proc/self/status') ? false : 'needs /proc',
}, async () => {
  // through dist/cli/main.js, as users run it, its store on disk: what it holds is the commit's working set
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'serve-hub', '--store', join(tmp, 'served')], {
    cwd: ROOT,
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    let out = ''
    const url = await new Promise<string>((ok, ko) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString()
        const m = /local Hub at (\S+)/.exec(out)
        if (m) ok(m[1]!)
      })
      child.once('exit', (code) => ko(new Error(`serve-hub ended (${code}):\n${out}`)))
    })
    await createRepo(url, 'me/huge')
    const r = await postCommit(url, 'me/huge', commitBody(20, 9 * MiB))
    assert.equal(r.status, 200, r.body)
    const peak = peakRss(child.pid!)
    // reading the body whole took 4-5 times its size (1.1 GB here); a line at a time, its baseline and a few lines
    assert.ok(peak < 512 * MiB, `peak RSS ${Math.round(peak / MiB)} MiB`)
  } finally {
    child.kill()
  }
})
