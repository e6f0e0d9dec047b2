/**
 * The reference evaluator and eval-model against one deterministic server: the same request
 * bodies, byte for byte, and every number of eval.py's --out within 1e-9, in logits and in
 * probabilities mode. eval.py is not ours to copy: the test is given its path in JEV_EVAL_PY.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { runNode } from '../helpers/cli.ts'
import { gold, numbersAgree, OUT } from '../helpers/eval-rig.ts'
import { type ModelServerOptions, startModelServer } from '../helpers/model-server.ts'

const EVAL_PY = process.env.JEV_EVAL_PY
const skip = EVAL_PY ? false : 'JEV_EVAL_PY is not set (the path of the reference eval.py): the comparison with it is skipped'
const KEY = 'sk-test-KEY-0123'

function python(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((ok, ko) => {
    const child = spawn('/usr/bin/python3', [EVAL_PY!, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin' } })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => child.kill(), 120_000)
    child.on('error', ko)
    child.on('close', (status) => {
      clearTimeout(timer)
      ok({ status, stdout, stderr })
    })
  })
}

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-evalpy-'))
})
after(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

async function both(name: string, server: ModelServerOptions, extra: string[] = []) {
  const py = await startModelServer({ ...server, gold, apiKey: KEY })
  const ts = await startModelServer({ ...server, gold, apiKey: KEY })
  try {
    const pyOut = join(tmp, `${name}.py.json`)
    const tsOut = join(tmp, `${name}.ts.json`)
    const p = await python(['--url', py.url, '--data', OUT, '--out', pyOut, '--api-key', KEY, '--workers', '4', ...extra])
    assert.equal(p.status, 0, p.stderr)
    const t = await runNode('eval-model', ['--url', ts.url, '--data', OUT, '--out', tsOut, '--workers', '4', ...extra], {
      JEV_API_KEY: KEY,
    })
    assert.equal(t.status, 0, t.stderr)
    // the same bodies: eval.py sends its probe's twice (once to probe, once to ask), eval-model once
    const bodies = (s: typeof py) => [...new Set(s.requests.map((r) => r.body))].sort()
    assert.deepEqual(bodies(ts), bodies(py))
    assert.equal(ts.requests.length, new Set(ts.requests.map((r) => r.body)).size, 'eval-model sent a body twice')
    assert.ok(ts.requests.every((r) => r.authorization === `Bearer ${KEY}`))
    const ref = JSON.parse(await readFile(pyOut, 'utf8')) as Record<string, unknown>
    const got = JSON.parse(await readFile(tsOut, 'utf8')) as Record<string, unknown>
    // every field of eval.py's, under its names; `url` is the server's, `seconds` its timing
    assert.deepEqual(Object.keys(got).slice(0, Object.keys(ref).length), Object.keys(ref))
    const checked = numbersAgree(ref, got, 1e-9, '', ['/url', '/seconds'])
    return { ref, got, checked }
  } finally {
    await py.close()
    await ts.close()
  }
}

describe('eval-model against the reference eval.py', { skip }, () => {
  test('logits mode (detected by the probe): the temperature, raw and calibrated scores and both breakdowns agree to 1e-9', async () => {
    const { ref, got, checked } = await both('logits', {})
    assert.equal(ref.mode, 'logits')
    assert.equal(got.mode, 'logits')
    assert.ok((ref.temperature as number) > 0.3 && (ref.temperature as number) < 3, 'a temperature away from the search bounds')
    assert.ok(checked.includes('/temperature') && checked.includes('/calibrated/ece') && checked.includes('/by_source/boolq/brier'))
    // 1 temperature + 2 × 6 scores + 7 option counts and 5 sources × 6
    assert.equal(checked.length, 1 + 12 + 12 * 6)
  })

  test('probabilities mode (the server refuses return_logits): reported scores, breakdowns and gold_rounded_to_zero agree', async () => {
    const { ref, got, checked } = await both('probs', { logits: 'reject', round: 3, scale: 3 })
    assert.equal(ref.mode, 'probabilities')
    assert.equal(got.mode, 'probabilities')
    assert.ok((ref.gold_rounded_to_zero as number) > 0, 'rounding sends some right options to 0.0')
    assert.equal(got.gold_rounded_to_zero, ref.gold_rounded_to_zero)
    assert.equal(checked.length, 1 + 6 + 12 * 6)
  })

  test('--limit, --assistant-prefix and --mode logits give eval.py its numbers too', async () => {
    const { checked } = await both('prefix', {}, ['--limit', '50', '--assistant-prefix', 'Answer: ', '--mode', 'logits'])
    assert.ok(checked.includes('/calibrated/nll'))
  })
})
