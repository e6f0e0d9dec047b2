/**
 * DNS rebinding: serve-hub answers only requests whose Host is a loopback name with its
 * own port, refuses writes from another Origin, and never puts a foreign host in a URL.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { type HubServer, startHubServer } from '../helpers/hub-server.ts'

let tmp: string
let server: HubServer
let port: number

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-hub-host-'))
  const dir = join(tmp, 'mirror', 'datasets', 'acme', 'tiny', 'data')
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'x.parquet'), 'PAR1 not really')
  server = await startHubServer({ root: join(tmp, 'mirror'), store: join(tmp, 'store') })
  port = Number(new URL(server.url).port)
})
after(async () => {
  await server.close()
  await rm(tmp, { recursive: true, force: true })
})

/** A raw request, so the Host header is the one given (fetch sets its own). */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body = '',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((ok, ko) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, text }))
    })
    req.on('error', ko)
    req.end(body)
  })
}
const create = (name: string, headers: Record<string, string>) =>
  send(
    'POST',
    '/api/repos/create',
    { Authorization: 'Bearer hf_anything', 'Content-Type': 'application/json', ...headers },
    JSON.stringify({ name, organization: 'acme', type: 'dataset' }),
  )

test('a foreign Host is refused (421) for reads and writes, and no repo is created', async () => {
  for (const host of [
    'attacker.example',
    `attacker.example:${port}`,
    '127.0.0.1.attacker.example',
    `10.0.0.1:${port}`,
    `127.0.0.1:${port + 1}`,
  ]) {
    const w = await create('rebound', { Host: host })
    assert.equal(w.status, 421, host)
    assert.doesNotMatch(w.text, /attacker/, host)
    const r = await send('GET', '/api/datasets/acme/tiny', { Host: host })
    assert.equal(r.status, 421, host)
  }
  const missing = await send('GET', '/api/datasets/acme/rebound', { Host: `127.0.0.1:${port}` })
  assert.equal(missing.status, 404)
})

test('loopback names with the server port are answered, and URLs carry that host', async () => {
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `127.5.6.7:${port}`, `LOCALHOST:${port}`]) {
    const r = await send('GET', '/api/datasets/acme/tiny', { Host: host })
    assert.equal(r.status, 200, host)
    const lfs = await send('GET', '/datasets/acme/tiny/resolve/main/data/x.parquet', { Host: host })
    assert.equal(lfs.status, 302, host)
    assert.ok(String(lfs.headers.location).startsWith(`http://${host.toLowerCase()}/cdn-lfs/`), String(lfs.headers.location))
  }
  const made = await create('made-here', { Host: `localhost:${port}` })
  assert.equal(made.status, 200)
  assert.equal((JSON.parse(made.text) as { url: string }).url, `http://localhost:${port}/datasets/acme/made-here`)
})

test('a write whose Origin is not the server is refused (403); its own origin, or none, is accepted', async () => {
  const own = `127.0.0.1:${port}`
  for (const origin of [
    'http://attacker.example',
    `http://attacker.example:${port}`,
    'null',
    `https://127.0.0.1:${port}`,
    `http://127.0.0.1:${port + 1}`,
  ]) {
    const r = await create('from-page', { Host: own, Origin: origin })
    assert.equal(r.status, 403, origin)
  }
  assert.equal((await send('GET', '/api/datasets/acme/from-page', { Host: own })).status, 404)
  assert.equal((await create('from-self', { Host: own, Origin: `http://${own}` })).status, 200)
  // a read from another origin is answered (no CORS header lets a page read it)
  const read = await send('GET', '/api/datasets/acme/tiny', { Host: own, Origin: 'http://attacker.example' })
  assert.equal(read.status, 200)
  assert.equal(read.headers['access-control-allow-origin'], undefined)
})
