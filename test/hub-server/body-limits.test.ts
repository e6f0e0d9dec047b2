/**
 * serve-hub's memory is bounded: validate-yaml takes a card's size (1 MiB), every
 * endpoint has a bound, and bodies held across all requests have a total. An oversize
 * body is answered early, before the client has sent it, and is never buffered.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { type ClientRequest, type IncomingMessage, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { type HubServer, startHubServer } from '../helpers/hub-server.ts'

const MiB = 1024 * 1024
let tmp: string
let server: HubServer
let port: number
const seen: string[] = []
let onSeen: (() => void) | undefined

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-hub-bodies-'))
  await mkdir(join(tmp, 'datasets', 'acme', 'tiny'), { recursive: true })
  await writeFile(join(tmp, 'datasets', 'acme', 'tiny', 'notes.txt'), 'notes\n')
  server = await startHubServer({
    root: tmp,
    maxBodyBytesInFlight: 4 * MiB,
    onRequest: (r) => {
      seen.push(r.url)
      onSeen?.()
    },
  })
  port = Number(new URL(server.url).port)
})
after(async () => {
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

/** Starts a POST and resolves with its response, whatever part of the body has been sent by then. */
function start(path: string, headers: Record<string, string>): { req: ClientRequest; response: Promise<IncomingMessage> } {
  let req!: ClientRequest
  const response = new Promise<IncomingMessage>((ok, ko) => {
    req = request({ host: '127.0.0.1', port, method: 'POST', path, headers }, ok)
    req.on('error', ko)
  })
  req.flushHeaders()
  return { req, response }
}
const text = async (res: IncomingMessage) => {
  let s = ''
  for await (const c of res) s += c
  return s
}
/** Resolves once the server has seen one more request. */
const nextSeen = () => new Promise<void>((ok) => (onSeen = ok))

test('validate-yaml: a declared body over 1 MiB is 413 before any of it is sent', { timeout: 20_000 }, async () => {
  const { req, response } = start('/api/validate-yaml', { 'Content-Type': 'application/json', 'Content-Length': String(250 * MiB) })
  req.write('{"content": "')
  const res = await response
  assert.equal(res.statusCode, 413)
  assert.match(await text(res), /1048576 bytes/)
  req.destroy()
})

test('validate-yaml: a chunked body is 413 once it passes 1 MiB, while the client is still sending', { timeout: 20_000 }, async () => {
  const { req, response } = start('/api/validate-yaml', { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' })
  req.write(`{"content": "${'x'.repeat(MiB)}`)
  req.write('x'.repeat(64 * 1024))
  // never ended: only an early answer resolves this
  const res = await response
  assert.equal(res.statusCode, 413)
  req.destroy()
  // a card-sized body is still answered
  const ok = await fetch(`${server.url}/api/validate-yaml`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ content: `---\nlicense: mit\n---\n${'# x\n'.repeat(1000)}`, repoType: 'dataset' }),
  })
  assert.equal(ok.status, 200)
})

test('other endpoints have a bound too: paths-info over 16 MiB is 413', { timeout: 20_000 }, async () => {
  const { req, response } = start('/api/datasets/acme/tiny/paths-info/main', { 'Content-Length': String(17 * MiB) })
  const res = await response
  assert.equal(res.statusCode, 413)
  req.destroy()
})

test('bodies in flight across requests have a total: past it, 503 with Retry-After; freed when the first ends', {
  timeout: 20_000,
}, async () => {
  const first = start('/api/datasets/acme/tiny/paths-info/main', { 'Content-Length': String(3 * MiB) })
  const arrived = nextSeen()
  first.req.write('paths=')
  await arrived
  const second = start('/api/datasets/acme/tiny/paths-info/main', { 'Content-Length': String(2 * MiB) })
  const busy = await second.response
  assert.equal(busy.statusCode, 503)
  assert.equal(busy.headers['retry-after'], '1')
  second.req.destroy()
  first.req.end('x'.repeat(3 * MiB - 'paths='.length))
  assert.equal((await first.response).statusCode, 200)
  const again = await fetch(`${server.url}/api/datasets/acme/tiny/paths-info/main`, { method: 'POST', body: 'x'.repeat(2 * MiB) })
  assert.equal(again.status, 200, 'the budget is back once the first request is done')
})
