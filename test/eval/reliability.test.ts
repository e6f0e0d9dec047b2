/**
 * eval-model's failures, each against a real loopback server: an answer with NaN or without a
 * label is one invalid item (and all of them a failed run), a refused probe is not kept as a
 * mode, a journal is one run's at a time and an edited line is refused, and no credential (the
 * key, a user and password or a token in --url, whatever the server echoes) reaches a line, a
 * file or the JSON output.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { runInProcess, runNode } from '../helpers/cli.ts'
import { gold, OUT } from '../helpers/eval-rig.ts'
import { modelLogits, startModelServer } from '../helpers/model-server.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-eval-rel-'))
})
after(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

const FAST = ['--bootstrap', '200', '--workers', '3']
const records = async (split: string) =>
  (await readFile(join(OUT, `${split}.jsonl`), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; question: string; choices: string[] })
const systemoneQ = (body: string) => JSON.parse(body).questions.q as { instructions: string; criteria: Record<string, null> }
const openaiPrompt = (body: string) => JSON.parse(body).messages[0].content as string
/** Logits as Python's json.dumps writes them, the first option's NaN. */
const nanLogits = (choices: string[]) =>
  `{"answers": {"q": {"logits": {${choices.map((c, i) => `${JSON.stringify(c)}: ${i === 0 ? 'NaN' : (0.5 * i).toFixed(1)}`).join(', ')}}}}}`

test('NaN as Python writes it is one invalid item, counted and listed in the result and report, not a network error; a rerun asks nothing', async () => {
  const [first] = await records('test')
  const server = await startModelServer({
    gold,
    fault: ({ body }) => {
      const q = systemoneQ(body)
      return q.instructions === first!.question ? { body: nanLogits(Object.keys(q.criteria)) } : undefined
    },
  })
  const out = join(tmp, 'nan.json')
  const args = ['--url', server.url, '--data', OUT, '--limit', '12', '--mode', 'logits', '--retries', '1', '--out', out, ...FAST]
  const r = await runInProcess('eval-model', args)
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /^invalid answers \(not scored, listed in the result\): 1$/m)
  const res = JSON.parse(await readFile(out, 'utf8'))
  assert.deepEqual(res.invalid.items.length, 1)
  assert.equal(res.invalid.items[0].id, first!.id)
  assert.match(res.invalid.items[0].why, /not a finite number \("NaN"\)/)
  assert.equal(res.items.length, 11)
  assert.match(await readFile(join(tmp, 'nan.report.md'), 'utf8'), /^\| test \| .* \| logits for option .* not a finite number/m)
  // asked once, not retried as a body that is not JSON; the rerun finds it in the journal
  const asked = server.requests.length
  assert.equal(asked, 24)
  const again = await runInProcess('eval-model', args)
  await server.close()
  assert.equal(again.status, 0, again.stderr)
  assert.equal(server.requests.length, asked)
})

test('every answer invalid fails the run with a typed error and exit 3, not accuracy=n/a and a temperature at its bound', async () => {
  const all = await startModelServer({ gold, fault: ({ body }) => ({ body: nanLogits(Object.keys(systemoneQ(body).criteria)) }) })
  const r = await runInProcess('eval-model', ['--url', all.url, '--data', OUT, '--limit', '5', '--mode', 'logits', ...FAST])
  await all.close()
  assert.equal(r.status, 3, r.stderr)
  assert.match(
    r.stderr,
    /^error\[DATA\]: no valid answer in val: all 5 are invalid, so no temperature can be fitted; the first: logits for option/m,
  )
  assert.doesNotMatch(r.stdout, /accuracy/)
})

test('--api openai: labels spelt another way, missing, or listed twice, and an empty top_logprobs are invalid items, never a uniform guess', async () => {
  const completion = (top: unknown[]) =>
    JSON.stringify({ choices: [{ index: 0, logprobs: { content: [{ token: 'x', logprob: -0.1, top_logprobs: top }] } }] })
  const spelt = await startModelServer({
    fault: () => ({
      body: completion([
        { token: 'A.', logprob: -0.4 },
        { token: 'b', logprob: -1.4 },
      ]),
    }),
  })
  const s = await runInProcess('eval-model', ['--url', spelt.url, '--api', 'openai', '--data', OUT, '--limit', '5', ...FAST])
  await spelt.close()
  assert.equal(s.status, 3, s.stderr)
  assert.match(s.stderr, /no valid answer in val: .*the token "A\." is label A written another way/)

  // three test questions answered badly, the rest as the model would: three invalid items, the others scored
  const tests = await records('test')
  const bad = new Map<string, unknown[]>([
    [tests[0]!.question, []],
    [
      tests[1]!.question,
      [
        { token: 'a', logprob: -0.3 },
        { token: 'c', logprob: -1.5 },
      ],
    ],
    [
      tests[2]!.question,
      [
        { token: 'B', logprob: -0.2 },
        { token: 'B', logprob: -0.2 },
      ],
    ],
  ])
  const mixed = await startModelServer({
    gold,
    fault: ({ body }) => {
      const prompt = openaiPrompt(body)
      for (const [q, top] of bad) if (prompt.includes(`\nQuestion: ${q}\nOptions:\n`)) return { body: completion(top) }
      return undefined
    },
  })
  const out = join(tmp, 'openai-bad.json')
  const m = await runInProcess('eval-model', ['--url', mixed.url, '--api', 'openai', '--data', OUT, '--limit', '20', '--out', out, ...FAST])
  await mixed.close()
  assert.equal(m.status, 0, m.stderr)
  const res = JSON.parse(await readFile(out, 'utf8'))
  assert.deepEqual(
    res.invalid.items.map((x: { id: string; why: string }) => [x.id, x.why.replace(/ \[.*/, '')]),
    [
      [tests[0]!.id, 'top_logprobs is empty'],
      [tests[1]!.id, `none of the labels A–${'ABCDEFGH'[tests[1]!.choices.length - 1]} among the top_logprobs tokens`],
      [tests[2]!.id, 'the token "B" is listed twice in top_logprobs'],
    ],
  )
  assert.equal(res.items.length, 17)
})

test('a probe refused with 401 is not kept as the mode: the rerun with the key probes again and scores logits', async () => {
  const KEY = 'sk-probe-key-31337'
  const server = await startModelServer({ gold, apiKey: KEY })
  const out = join(tmp, 'probe.json')
  const args = ['--url', server.url, '--data', OUT, '--limit', '10', '--out', out, ...FAST]
  const denied = await runInProcess('eval-model', args)
  assert.equal(denied.status, 6, denied.stderr)
  assert.match(denied.stderr, /error\[AUTH\]/)
  // the journal holds its header only: neither the refusal nor a mode
  assert.equal((await readFile(join(tmp, 'probe.journal.jsonl'), 'utf8')).trim().split('\n').length, 1)
  const r = await runInProcess('eval-model', args, { JEV_API_KEY: KEY })
  await server.close()
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stderr, /mode: logits \(detected\)/)
  const res = JSON.parse(await readFile(out, 'utf8'))
  assert.equal(res.mode, 'logits')
  assert.ok(res.temperature > 0)
})

test('a journal is one run at a time: a second run on it is refused at once and sends nothing; the first finishes whole', async () => {
  const server = await startModelServer({ gold, holdAfter: 6 })
  const out = join(tmp, 'locked.json')
  const args = ['--url', server.url, '--data', OUT, '--limit', '20', '--mode', 'logits', '--out', out, ...FAST]
  const first = runInProcess('eval-model', args)
  // the first run is mid-way: each of its 3 workers waits on a request past the sixth, held by the server
  while (server.requests.length < 9) await new Promise((ok) => setTimeout(ok, 10))
  const held = server.requests.length
  let secondDone = false
  const second = runInProcess('eval-model', args).finally(() => (secondDone = true))
  // should the second run send anything, it is let through, so the test ends and fails rather than hangs
  while (!secondDone && server.requests.length === held) await new Promise((ok) => setTimeout(ok, 10))
  server.release()
  const [a, b] = await Promise.all([first, second])
  await server.close()
  assert.equal(b.status, 7, b.stderr)
  assert.match(
    b.stderr,
    new RegExp(
      `^error\\[IO\\]: the journal .*locked\\.journal\\.jsonl is in use by another eval-model run \\(process ${process.pid}\\)$`,
      'm',
    ),
  )
  assert.equal(a.status, 0, a.stderr)
  assert.equal(server.requests.length, 40)
  assert.equal((await readFile(join(tmp, 'locked.journal.jsonl'), 'utf8')).trim().split('\n').length, 41)
  await assert.rejects(readFile(join(tmp, 'locked.journal.jsonl.lock')))
})

test('a journal line edited, valid JSON still, is refused naming the journal and the line; no score comes from it', async () => {
  const server = await startModelServer({ gold })
  const out = join(tmp, 'edited.json')
  const args = ['--data', OUT, '--limit', '8', '--mode', 'logits', '--out', out, ...FAST]
  assert.equal((await runInProcess('eval-model', ['--url', server.url, ...args])).status, 0)
  await server.close()
  const journal = join(tmp, 'edited.journal.jsonl')
  const lines = (await readFile(journal, 'utf8')).split('\n')
  // the third line's first logit made larger: still JSON, still a journal line
  const edited = lines[2]!.replace(/"logits":\{("[^"]*":)(-?[0-9.]+)/, (_, k: string, v: string) => `"logits":{${k}${Number(v) + 5}`)
  assert.notEqual(edited, lines[2])
  JSON.parse(edited)
  lines[2] = edited
  await writeFile(journal, lines.join('\n'))
  const before = await readFile(out, 'utf8')
  for (const run of [
    ['--url', server.url, ...args],
    ['--from-journal', journal, ...args],
  ]) {
    const r = await runInProcess('eval-model', run)
    assert.equal(r.status, 3, r.stderr)
    assert.match(r.stderr, /^error\[DATA\]: .*edited\.journal\.jsonl line 3 does not match its checksum: it was edited or damaged$/m)
  }
  assert.equal(await readFile(out, 'utf8'), before)
})

test('credentials stay out of every line, file and the JSON output: the key echoed back, a user, password and token in --url, a key with a line break', async () => {
  const KEY = 'sk-ECHOED-key-4242'
  const tests = await records('test')
  // the server sends the authorization header back inside the scored part, and once as an option's "logit"
  const server = await startModelServer({
    gold,
    fault: ({ body, authorization }) => {
      const q = systemoneQ(body)
      const choices = Object.keys(q.criteria)
      const logits = modelLogits(q.instructions, choices, gold(q.instructions))
      const values = choices.map((c, i) => [c, q.instructions === tests[0]!.question && i === 0 ? authorization : logits[i]])
      return { body: JSON.stringify({ answers: { q: { logits: Object.fromEntries(values), echo: { authorization } } } }) }
    },
  })
  const dir = join(tmp, 'echo')
  await mkdir(dir)
  const r = await runNode('eval-model', [
    '--url',
    server.url,
    '--data',
    OUT,
    '--limit',
    '6',
    '--mode',
    'logits',
    '--out',
    join(dir, 'r.json'),
    '--api-key',
    KEY,
    '--json',
    ...FAST,
  ])
  assert.equal(r.status, 0, r.stderr)
  assert.ok(server.requests.every((x) => x.authorization === `Bearer ${KEY}`))
  const res = JSON.parse(r.stdout)
  assert.match(res.invalid.items[0].why, /not a finite number \("Bearer <API_KEY>"\)/)
  const texts = [r.stdout, r.stderr]
  for (const f of await readdir(dir)) texts.push(await readFile(join(dir, f), 'utf8'))
  assert.ok((await readFile(join(dir, 'r.journal.jsonl'), 'utf8')).includes('Bearer <API_KEY>'), 'the echo is kept, scrubbed')
  for (const t of texts) assert.ok(!t.includes(KEY))

  // a user and password and a token in --url: sent (Basic, and the query), shown nowhere; an error line too
  const USER = 'evaluser'
  const PASSWORD = 'pw-Secret-77'
  const TOKEN = 'tok-Secret-99'
  const url = `http://${USER}:${PASSWORD}@${server.url.slice('http://'.length)}/?token=${TOKEN}`
  const basic = Buffer.from(`${USER}:${PASSWORD}`).toString('base64')
  const udir = join(tmp, 'userinfo')
  await mkdir(udir)
  const u = await runNode('eval-model', [
    '--url',
    url,
    '--data',
    OUT,
    '--limit',
    '6',
    '--mode',
    'logits',
    '--out',
    join(udir, 'r.json'),
    '--json',
    ...FAST,
  ])
  assert.equal(u.status, 0, u.stderr)
  const sent = server.requests.slice(-12)
  assert.ok(sent.every((x) => x.authorization === `Basic ${basic}` && x.url === `/v1/systemone?token=${TOKEN}`))
  const failed = await runNode('eval-model', ['--url', url.replace(/:\d+\//, ':1/'), '--data', OUT, '--limit', '2', '--retries', '0'])
  await server.close()
  assert.equal(failed.status, 6, failed.stderr)
  assert.match(failed.stderr, /^error\[NETWORK\]: http:\/\/127\.0\.0\.1:1\/v1\/systemone\?token=REDACTED: connection failed/m)
  const utexts = [u.stdout, u.stderr, failed.stdout, failed.stderr]
  for (const f of await readdir(udir)) utexts.push(await readFile(join(udir, f), 'utf8'))
  assert.match(JSON.parse(u.stdout).url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=REDACTED$/)
  for (const t of utexts) for (const secret of [USER, PASSWORD, TOKEN, basic]) assert.ok(!t.includes(secret), secret)

  // a key with a line break is refused before anything is sent, and not shown
  const crlf = await runInProcess('eval-model', ['--url', 'http://127.0.0.1:1', '--data', OUT, '--api-key', 'sk-CR\r\nX-Injected: 1'])
  assert.equal(crlf.status, 2, crlf.stderr)
  assert.match(crlf.stderr, /an HTTP header cannot carry/)
  assert.ok(!crlf.stderr.includes('sk-CR') && !crlf.stderr.includes('X-Injected'))
})
