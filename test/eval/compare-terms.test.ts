/**
 * compare-results names what it compares and which way each score is better, and refuses runs
 * that are not alike (other data, other items asked, another mode) unless --allow-mismatch; and
 * eval-model flags a temperature at the edge of the reference search. Real runs against the
 * deterministic test server on 127.0.0.1.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { runInProcess } from '../helpers/cli.ts'
import { gold, OUT } from '../helpers/eval-rig.ts'
import { type ModelServerOptions, startModelServer } from '../helpers/model-server.ts'

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-compare-'))
})
after(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

async function run(name: string, server: ModelServerOptions, args: string[]): Promise<{ file: string; stdout: string }> {
  const s = await startModelServer({ gold, ...server })
  const file = join(tmp, `${name}.json`)
  const r = await runInProcess('eval-model', ['--url', s.url, '--data', OUT, '--out', file, '--bootstrap', '200', ...args])
  await s.close()
  assert.equal(r.status, 0, r.stderr)
  return { file, stdout: r.stdout }
}

test('compare-results refuses runs of other data, other items or another mode, naming how they differ; --allow-mismatch compares the shared items and says so', async () => {
  const logits = await run('logits', {}, ['--limit', '60'])
  const probs = await run('probs', { logits: 'reject' }, ['--limit', '60'])
  const fewer = await run('fewer', {}, ['--limit', '50'])
  const other = join(tmp, 'other-data.json')
  const edited = JSON.parse(await readFile(logits.file, 'utf8')) as { dataset: { datasetHash: string } }
  edited.dataset.datasetHash = '0'.repeat(64)
  await writeFile(other, JSON.stringify(edited))

  const modes = await runInProcess('compare-results', [logits.file, probs.file])
  assert.equal(modes.status, 2)
  assert.match(modes.stderr, /^error\[USAGE\]: the two results are not of like runs: different modes \(A logits, B probabilities\)$/m)
  assert.match(modes.stderr, /--allow-mismatch/)
  const items = await runInProcess('compare-results', [logits.file, fewer.file])
  assert.equal(items.status, 2)
  assert.match(items.stderr, /different items asked \(60 in A, 50 in B; 10 only in A, 0 only in B\)/)
  const data = await runInProcess('compare-results', [logits.file, other])
  assert.equal(data.status, 2)
  assert.match(data.stderr, /different data \(datasetHash [0-9a-f]{12}… in A, 000000000000… in B\)/)

  const allowed = await runInProcess('compare-results', [logits.file, probs.file, '--allow-mismatch'])
  assert.equal(allowed.status, 0, allowed.stderr)
  assert.match(allowed.stdout, /^A: .*logits\.json, calibrated scores \(logits mode, T = [0-9.]+ fitted on val\)$/m)
  assert.match(allowed.stdout, /^B: .*probs\.json, scores as reported \(probabilities mode\)$/m)
  assert.match(allowed.stdout, /^not like runs, compared anyway \(--allow-mismatch\): different modes \(A logits, B probabilities\)$/m)
  const shared = await runInProcess('compare-results', [logits.file, fewer.file, '--allow-mismatch', '--json'])
  assert.equal(shared.status, 0, shared.stderr)
  const c = JSON.parse(shared.stdout)
  assert.equal(c.shared, 50)
  assert.deepEqual(c.better, { acc: 'higher', ece: 'lower', nll: 'lower', brier: 'lower', mean_conf: null })
  assert.equal(c.mismatches.length, 1)
})

test('compare-results --raw compares the raw scores of logits runs and says so', async () => {
  const a = await run('raw-a', {}, ['--limit', '40'])
  const b = await run('raw-b', { scale: 2 }, ['--limit', '40'])
  const cal = await runInProcess('compare-results', [a.file, b.file, '--json'])
  const raw = await runInProcess('compare-results', [a.file, b.file, '--raw', '--json'])
  assert.equal(raw.status, 0, raw.stderr)
  const [rc, cc] = [JSON.parse(raw.stdout), JSON.parse(cal.stdout)]
  assert.equal(rc.compared.a, 'raw scores (logits mode, T = 1)')
  assert.match(cc.compared.a, /^calibrated scores/)
  const res = JSON.parse(await readFile(b.file, 'utf8'))
  assert.equal(rc.scores.nll.b, res.raw.nll)
  assert.equal(cc.scores.nll.b, res.calibrated.nll)
})

test('a temperature at the edge of the reference search is flagged in the summary, the report and the result, with the unbounded fit beside it', async () => {
  // logits 100 times too sharp: the best temperature is far above e^3
  const r = await run('edge', { scale: 100 }, ['--limit', '60'])
  const res = JSON.parse(await readFile(r.file, 'utf8'))
  assert.ok(Math.abs(res.temperature - Math.exp(3)) < 1e-4, String(res.temperature))
  assert.equal(res.temperature_fit.at_edge, true)
  assert.ok(res.temperature_fit.unbounded.temperature > 25)
  assert.ok(res.temperature_fit.unbounded.val_nll < res.temperature_fit.val_nll)
  assert.match(
    r.stdout,
    /^ {2}T is at the edge of the reference search \(log T in \[-3, 3\]\); unbounded T=[0-9.]+ \(val NLL [0-9.]+ against [0-9.]+\)$/m,
  )
  const md = await readFile(join(tmp, 'edge.report.md'), 'utf8')
  assert.match(
    md,
    /^- \*\*temperature at the edge of the reference search\*\*: T = 20\.086 is e\^3, the end of log T in \[-3, 3\]; an unbounded fit gives T = [0-9.]+/m,
  )
})
