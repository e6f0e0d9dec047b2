/**
 * eval-model end to end against the deterministic test server (real HTTP on 127.0.0.1, real
 * files): resume after SIGKILL, --from-journal with no server, changed data refused before any
 * request, retries, invalid answers, the OpenAI API, the Hub layer, the API key kept out of
 * every output, compare-results and the report.
 *
 * Two runs are the CLI as a child process (dist/cli/main.js), because only a process can show
 * it: the run killed with SIGKILL mid-way (a kill needs a process to kill), and one ordinary
 * successful run as users start it (the API key test's: the process's exit status, stdout and
 * stderr, the key in none of them). Every other run is the same command in this process
 * (`runInProcess`, test/helpers/cli.ts), which saves a node start and module load of ~0.6 s CPU each.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { ROOT, runInProcess, runNode } from '../helpers/cli.ts'
import { gold, OUT, withoutTimes } from '../helpers/eval-rig.ts'
import { startHubServer } from '../helpers/hub-server.ts'
import { startModelServer } from '../helpers/model-server.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-eval-'))
})
after(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

const FAST = ['--bootstrap', '200', '--workers', '3']
const lines = async (f: string) => (await readFile(f, 'utf8').catch(() => '')).split('\n').filter(Boolean)

test('a run killed mid-way resumes without asking an answered question again, and gives the uninterrupted result; --from-journal gives it with no server', async () => {
  const args = ['--data', OUT, '--limit', '40', ...FAST]
  const whole = await startModelServer({ gold })
  const ref = join(tmp, 'whole.json')
  const r0 = await runInProcess('eval-model', ['--url', whole.url, '--out', ref, ...args])
  assert.equal(r0.status, 0, r0.stderr)
  await whole.close()

  // the server answers 25 requests, then holds the rest: the kill comes while the run waits, whatever the machine's speed
  const server = await startModelServer({ gold, holdAfter: 25 })
  const out = join(tmp, 'killed.json')
  const journal = join(tmp, 'killed.journal.jsonl')
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli', 'main.js'), 'eval-model', '--url', server.url, '--out', out, ...args], {
    stdio: 'ignore',
  })
  let ended: number | null | undefined
  const exited = new Promise((ok) => child.on('exit', (code) => ok((ended = code))))
  // the header and the 25 answers, each fsynced as it came; a child that ends first fails the test, not hangs it
  while ((await lines(journal)).length < 26) {
    assert.equal(ended, undefined, `eval-model ended (${ended}) before the server held its requests`)
    await new Promise((ok) => setTimeout(ok, 20))
  }
  child.kill('SIGKILL')
  await exited
  const answeredBefore = new Set(server.answered)
  assert.equal(answeredBefore.size, 25)
  const heldAtKill = server.requests.length - 25
  // a kill may cut the last line short: the resumed run drops it
  await writeFile(journal, `${await readFile(journal, 'utf8')}{"split":"val","id":"cut sh`)
  server.release()
  const before = server.requests.length
  const r1 = await runInProcess('eval-model', ['--url', server.url, '--out', out, ...args])
  assert.equal(r1.status, 0, r1.stderr)
  assert.match(r1.stderr, /25 of 40 answers from the journal, 15 to ask/)
  const resent = server.requests.slice(before).map((r) => r.body)
  assert.equal(resent.filter((b) => answeredBefore.has(b)).length, 0, 'a question answered before the kill was asked again')
  // asked again: only those the kill left unanswered (held at the server)
  assert.equal(resent.length, 80 - 25)
  assert.equal(new Set(server.requests.map((r) => r.body)).size, 80)
  assert.ok(server.requests.length - 80 <= heldAtKill)
  await server.close()
  assert.deepEqual(withoutTimes(out), withoutTimes(ref))
  assert.equal((await lines(journal)).length, 81)

  // no server at all: the journal alone gives the resumed run's file and report, byte for byte
  const again = join(tmp, 'again.json')
  const r2 = await runInProcess('eval-model', ['--from-journal', journal, '--out', again, ...args])
  assert.equal(r2.status, 0, r2.stderr)
  assert.equal(await readFile(again, 'utf8'), await readFile(out, 'utf8'))
  assert.equal(
    (await readFile(join(tmp, 'again.report.md'), 'utf8')).replaceAll('again.', 'killed.'),
    await readFile(join(tmp, 'killed.report.md'), 'utf8'),
  )
  assert.equal(await readFile(join(tmp, 'again.reliability.svg'), 'utf8'), await readFile(join(tmp, 'killed.reliability.svg'), 'utf8'))
  // a journal lacking answers says so rather than scoring fewer items
  const r3 = await runInProcess('eval-model', ['--from-journal', journal, '--data', OUT, '--limit', '41'])
  assert.equal(r3.status, 3)
  assert.match(r3.stderr, /lacks 1 answer this evaluation needs/)
})

test('one changed byte of test.jsonl is refused before any request, naming the file', async () => {
  const data = join(tmp, 'changed')
  await cp(OUT, data, { recursive: true })
  const f = join(data, 'test.jsonl')
  const bytes = await readFile(f)
  const at = bytes.indexOf('"question":"') + 12
  bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41
  await writeFile(f, bytes)
  const server = await startModelServer({ gold })
  const r = await runInProcess('eval-model', ['--url', server.url, '--data', data, '--out', join(tmp, 'changed.json')])
  await server.close()
  assert.equal(r.status, 5, r.stderr)
  assert.match(r.stderr, /^error\[INTEGRITY\]: .*test\.jsonl has sha256 [0-9a-f]{64}.*manifest\.json says/m)
  assert.equal(server.requests.length, 0)
  await assert.rejects(readFile(join(tmp, 'changed.journal.jsonl')))
})

test('429, 5xx and dropped connections are retried to the same result; a malformed answer is counted invalid and listed', async () => {
  const args = ['--data', OUT, '--limit', '30', ...FAST]
  const clean = await startModelServer({ gold })
  const ref = join(tmp, 'clean.json')
  assert.equal((await runInProcess('eval-model', ['--url', clean.url, '--out', ref, ...args])).status, 0)
  await clean.close()
  let k = 0
  const faults = new Map<string, 'a' | 'b' | 'c'>()
  const server = await startModelServer({
    gold,
    fault: ({ body, seen }) => {
      if (seen > 0) return undefined
      if (!faults.has(body)) faults.set(body, (['a', 'b', 'c', 'x', 'x', 'x', 'x', 'x'] as const)[k++ % 8] as 'a')
      const f = faults.get(body)
      return f === 'a' ? { status: 429, retryAfter: '0' } : f === 'b' ? { status: 503 } : f === 'c' ? 'drop' : undefined
    },
  })
  const out = join(tmp, 'faults.json')
  const r = await runInProcess('eval-model', ['--url', server.url, '--out', out, ...args])
  await server.close()
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stderr, /HTTP 429; retrying \(attempt 2 of 5\)/)
  assert.match(r.stderr, /HTTP 503; retrying/)
  assert.match(r.stderr, /connection failed .*; retrying/)
  assert.deepEqual(withoutTimes(out), withoutTimes(ref))

  // one question answered with logits that are not numbers: invalid, not scored, not retried
  let target: string | undefined
  const bad = await startModelServer({
    gold,
    fault: ({ body }) => {
      if (target === undefined && body.includes('"return_logits"') && !body.includes('"state": "(none)"')) target = body
      return body === target ? 'malformed' : undefined
    },
  })
  const badOut = join(tmp, 'malformed.json')
  const r2 = await runInProcess('eval-model', ['--url', bad.url, '--out', badOut, '--mode', 'logits', ...args])
  await bad.close()
  assert.equal(r2.status, 0, r2.stderr)
  const res = JSON.parse(await readFile(badOut, 'utf8'))
  assert.equal(res.invalid.count, 1)
  assert.match(res.invalid.items[0].why, /logits for option .* not a finite number/)
  assert.equal(res.items.length + (res.invalid.items[0].split === 'test' ? 1 : 0), 30)
  assert.match(r2.stdout, /invalid answers \(not scored, listed in the result\): 1/)
})

test('--api openai: the reference prompt as one user message, labels read from top_logprobs, missing labels counted', async () => {
  const server = await startModelServer({ gold, topLabels: 2 })
  const out = join(tmp, 'openai.json')
  const r = await runInProcess('eval-model', [
    '--url',
    server.url,
    '--api',
    'openai',
    '--model',
    'm-1',
    '--data',
    OUT,
    '--limit',
    '20',
    '--out',
    out,
    ...FAST,
  ])
  assert.equal(r.status, 0, r.stderr)
  const first = JSON.parse(server.requests.find((x) => x.body.includes('Pale Crimson') || true)!.body)
  assert.equal(first.model, 'm-1')
  assert.equal(first.logprobs, true)
  assert.equal(first.max_tokens, 1)
  const val0 = JSON.parse((await readFile(join(OUT, 'val.jsonl'), 'utf8')).split('\n')[0]!)
  const sent = server.requests.map((x) => JSON.parse(x.body).messages[0].content as string)
  const expected = [
    'Context:',
    val0.context ?? '(none)',
    '',
    'Answer the question with only the label of the best option (the character before the colon), nothing else.',
    `Question: ${val0.question}`,
    'Options:',
    ...val0.choices.map((c: string, i: number) => `${'ABCDEFGH'[i]}: ${c}`),
  ].join('\n')
  assert.ok(sent.includes(expected))
  await server.close()
  const res = JSON.parse(await readFile(out, 'utf8'))
  assert.equal(res.api, 'openai')
  assert.equal(res.mode, 'logits')
  assert.ok(res.temperature > 0)
  const expectMissing = res.items.reduce((s: number, it: { n: number }) => s + Math.max(0, it.n - 2), 0)
  assert.ok(res.labels_missing.labels >= expectMissing, 'labels beyond the top 2 are missing on test items at least')
  assert.match(r.stdout, /labels missing from top_logprobs \(given probability 1e-12\)/)
})

test('the API key reaches the server and nothing else: no line, journal, result or report holds it; without it the error says what to do', async () => {
  const KEY = 'sk-SECRET-abc-987'
  const server = await startModelServer({ gold, apiKey: KEY })
  const dir = join(tmp, 'keyed')
  await mkdir(dir)
  // the one ordinary run as a process: its exit status, stdout and stderr as users see them
  const r = await runNode('eval-model', [
    '--url',
    server.url,
    '--data',
    OUT,
    '--limit',
    '10',
    '--out',
    join(dir, 'r.json'),
    '--api-key',
    KEY,
    '--json',
    ...FAST,
  ])
  assert.equal(r.status, 0, r.stderr)
  assert.ok(server.requests.every((x) => x.authorization === `Bearer ${KEY}`))
  assert.ok(!r.stdout.includes(KEY) && !r.stderr.includes(KEY))
  for (const f of await readdir(dir)) assert.ok(!(await readFile(join(dir, f), 'utf8')).includes(KEY), f)
  assert.equal(JSON.parse(r.stdout).files.out, join(dir, 'r.json'))
  const denied = await runInProcess('eval-model', ['--url', server.url, '--data', OUT, '--limit', '10', ...FAST])
  await server.close()
  assert.equal(denied.status, 6)
  assert.match(denied.stderr, /error\[AUTH\]: .* answered HTTP 401/)
  assert.match(denied.stderr, /hint: .*--api-key KEY or JEV_API_KEY/)
})

test('--repo OWNER/NAME --revision REV reads the data through the Hub layer (HF_ENDPOINT, the cache) and scores it as --data does', async () => {
  const mirror = join(tmp, 'mirror')
  await cp(OUT, join(mirror, 'datasets', 'someone', 'jev-bench'), { recursive: true })
  const hub = await startHubServer({ root: mirror })
  const server = await startModelServer({ gold })
  const env = { HF_ENDPOINT: hub.url, HF_HUB_CACHE: join(tmp, 'hf-cache') }
  const a = join(tmp, 'hub.json')
  const r = await runInProcess(
    'eval-model',
    ['--url', server.url, '--repo', 'someone/jev-bench', '--revision', 'main', '--limit', '15', '--out', a, ...FAST],
    env,
  )
  assert.equal(r.status, 0, r.stderr)
  const b = join(tmp, 'dir.json')
  assert.equal((await runInProcess('eval-model', ['--url', server.url, '--data', OUT, '--limit', '15', '--out', b, ...FAST])).status, 0)
  await server.close()
  await hub.close()
  const ra = withoutTimes(a) as { dataset: { origin: string } }
  const rb = withoutTimes(b) as { dataset: { origin: string } }
  assert.equal(ra.dataset.origin, 'someone/jev-bench@main/')
  ra.dataset.origin = rb.dataset.origin
  assert.deepEqual(ra, rb)
  // offline, from the cache the first run filled: no Hub needed
  const off = await runInProcess(
    'eval-model',
    [
      '--from-journal',
      join(tmp, 'hub.journal.jsonl'),
      '--repo',
      'someone/jev-bench',
      '--revision',
      'main',
      '--limit',
      '15',
      '--offline',
      ...FAST,
    ],
    env,
  )
  assert.equal(off.status, 0, off.stderr)
})

test('compare-results: a model against itself differs by 0; a model that knows the answers against one that does not, beyond the noise', async () => {
  const knows = await startModelServer({ gold })
  const guesses = await startModelServer({})
  const a = join(tmp, 'knows.json')
  const b = join(tmp, 'guesses.json')
  for (const [s, f] of [
    [knows, a],
    [guesses, b],
  ] as const)
    assert.equal((await runInProcess('eval-model', ['--url', s.url, '--data', OUT, '--limit', '120', '--out', f, ...FAST])).status, 0)
  await knows.close()
  await guesses.close()
  const same = await runInProcess('compare-results', [a, a, '--json'])
  assert.equal(same.status, 0, same.stderr)
  const s = JSON.parse(same.stdout)
  assert.equal(s.shared, 120)
  assert.deepEqual(s.scores.acc, { a: s.scores.acc.a, b: s.scores.acc.a, diff: 0, interval: [0, 0], significant: false })
  const diff = await runInProcess('compare-results', [a, b])
  assert.equal(diff.status, 0, diff.stderr)
  assert.match(diff.stdout, /^A: .*knows\.json, calibrated scores \(logits mode, T = [0-9.]+ fitted on val\)$/m)
  assert.match(
    diff.stdout,
    /^\| accuracy \| higher \| [0-9.]+ \| [0-9.]+ \| -0\.\d+ \| \[-0\.\d+, -0\.\d+\] \| B worse, beyond the noise \|$/m,
  )
  assert.match(
    diff.stdout,
    /^\| NLL \| lower \| [0-9.]+ \| [0-9.]+ \| \+\d\.\d+ \| \[\+\d\.\d+, \+\d\.\d+\] \| B worse, beyond the noise \|$/m,
  )
  assert.match(diff.stdout, /^\| mean confidence \| neither \| /m)
  const bad = await runInProcess('compare-results', [a, join(OUT, 'manifest.json')])
  assert.equal(bad.status, 3)
})

test('the report: Markdown linking the reliability diagram and accuracy by option count, both SVG, the same bytes for the same answers', async () => {
  const md = await readFile(join(tmp, 'knows.report.md'), 'utf8')
  assert.match(md, /^# jev-bench evaluation$/m)
  assert.match(md, /^\| calibrated \(T = [0-9.]+\) \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|/m)
  assert.match(md, /!\[Reliability diagram\]\(knows\.reliability\.svg\)/)
  assert.match(md, /!\[Accuracy by option count\]\(knows\.by-n\.svg\)/)
  assert.match(md, /^## By upstream options kept \(provenance\.jsonl\)$/m)
  assert.match(md, /^\| 4 \| all \| \d+ \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|/m)
  assert.ok(!md.includes('| grown |'), 'no grown/not grown table')
  assert.match(md, /^## Clean subset \(items not flagged for contamination\)$/m)
  assert.match(md, /^- temperature: T = [0-9.]+, fitted on val/m)
  for (const f of ['knows.reliability.svg', 'knows.by-n.svg']) {
    const svg = await readFile(join(tmp, f), 'utf8')
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>\n[\s\S]*<\/svg>\n$/)
    // well formed as far as the tags go: every opened element is closed
    const opened = (svg.match(/<(rect|text|title|svg)\b([^>]*[^/])?>/g) ?? []).length
    const closed = (svg.match(/<\/(rect|text|title|svg)>/g) ?? []).length
    assert.equal(opened, closed, f)
  }
  const again = join(tmp, 'knows-again.json')
  const r = await runInProcess('eval-model', [
    '--from-journal',
    join(tmp, 'knows.journal.jsonl'),
    '--data',
    OUT,
    '--limit',
    '120',
    '--out',
    again,
    ...FAST,
  ])
  assert.equal(r.status, 0, r.stderr)
  for (const ext of ['.json', '.report.md', '.reliability.svg', '.by-n.svg'])
    assert.equal(
      (await readFile(join(tmp, `knows-again${ext}`), 'utf8')).replaceAll('knows-again', 'knows'),
      await readFile(join(tmp, `knows${ext}`), 'utf8'),
    )
})
