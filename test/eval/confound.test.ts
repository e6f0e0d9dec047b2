/**
 * The option-count confound of 1.3.0 and what the standardised figures do about it: a stand-in
 * server whose calibration depends on the source alone (calibrated on the English sources, 0.25
 * overconfident on JCommonsenseQA), run on the committed out/ (jev-bench 1.3.0, where
 * JCommonsenseQA holds no item at n = 3–4 and most of n = 7–8). Pooled by option count its ECE
 * climbs with n beyond the intervals; standardised to one source mix it is flat within them.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Figure } from '../../src/eval/figures.ts'
import type { EvalResult } from '../../src/eval/result.ts'
import { runInProcess } from '../helpers/cli.ts'
import { OUT } from '../helpers/eval-rig.ts'

const unit = (s: string) => parseInt(createHash('sha256').update(s).digest('hex').slice(0, 12), 16) / 2 ** 48
/** The three confidences the stand-in states, one per item by a keyed hash. */
const LEVELS = [0.6, 0.75, 0.9]
const OVERCONFIDENT = 0.25

interface Planned {
  choices: string[]
  gold: string
  conf: number
  right: boolean
}

/**
 * Each record's answer: its stated confidence, and whether its top option is the right one. Within
 * one source, option count and confidence, the items (in keyed-hash order) are right at the rate
 * the source is calibrated to, as evenly as whole items allow, so the stand-in's miscalibration is
 * its source's and hardly any sampling noise.
 */
function plan(): Map<string, Planned> {
  const records = ['test.jsonl', 'val.jsonl'].flatMap((f) =>
    readFileSync(join(OUT, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { source: string; question: string; choices: string[]; answer_idx: number }),
  )
  const classes = new Map<string, { key: string; r: (typeof records)[number]; conf: number }[]>()
  for (const r of records) {
    const key = `${r.question}\u0000${[...r.choices].sort().join('\u0000')}`
    const conf = LEVELS[Math.floor(unit(`conf\u0000${key}`) * LEVELS.length)]!
    const c = `${r.source}\u0000${r.choices.length}\u0000${conf}`
    classes.set(c, [...(classes.get(c) ?? []), { key, r, conf }])
  }
  const out = new Map<string, Planned>()
  for (const members of classes.values()) {
    members.sort((a, b) => unit(`rank\u0000${a.key}`) - unit(`rank\u0000${b.key}`))
    members.forEach(({ key, r, conf }, k) => {
      const rate = conf - (r.source === 'jcommonsenseqa' ? OVERCONFIDENT : 0)
      // the k-th item is right when the running count of right ones, rounded, steps up
      const right = Math.floor((k + 1) * rate + 0.5) > Math.floor(k * rate + 0.5)
      out.set(key, { choices: r.choices, gold: r.choices[r.answer_idx]!, conf, right })
    })
  }
  return out
}

/** POST /v1/systemone with probabilities only, on 127.0.0.1, for at most `limit` requests. */
async function startStandIn(answers: Map<string, Planned>, limit: number) {
  let served = 0
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { questions: { q: { instructions: string; criteria: object } } }
      const q = body.questions.q
      const choices = Object.keys(q.criteria)
      const a = answers.get(`${q.instructions}\u0000${[...choices].sort().join('\u0000')}`)
      if (req.url !== '/v1/systemone' || !a || ++served > limit) {
        res.writeHead(a ? 503 : 404).end()
        return
      }
      const wrong = a.choices.filter((c) => c !== a.gold)
      const top = a.right ? a.gold : wrong[Math.floor(unit(`wrong\u0000${q.instructions}`) * wrong.length)]!
      const rest = (1 - a.conf) / (choices.length - 1)
      const probabilities = Object.fromEntries(choices.map((c) => [c, c === top ? a.conf : rest]))
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answers: { q: { probabilities } } }))
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  server.unref()
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  }
}

let tmp: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-confound-'))
})
after(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

/** Whether every interval shares a point: the figures are flat within their intervals. */
const overlap = (figures: Figure[]) => Math.max(...figures.map((f) => f.ci.ece[0])) < Math.min(...figures.map((f) => f.ci.ece[1]))

test('on 1.3.0, a model miscalibrated by source alone: ECE by option count climbs beyond its intervals pooled, and is flat within them standardised', async () => {
  const answers = plan()
  const server = await startStandIn(answers, answers.size + 10)
  const out = join(tmp, 'standin.json')
  const r = await runInProcess('eval-model', ['--url', server.url, '--data', OUT, '--mode', 'probabilities', '--out', out])
  await server.close()
  assert.equal(r.status, 0, r.stderr)
  const res = JSON.parse(await readFile(out, 'utf8')) as EvalResult
  assert.equal(res.items.length, 1191)
  assert.equal(res.bootstrap.resamples, 1000)
  const b = res.breakdowns
  assert.equal(b.scores, 'reported')

  // the stand-in is what it claims: JCommonsenseQA 0.25 overconfident, the English sources calibrated
  assert.ok(Math.abs(b.by_source.jcommonsenseqa!.ece - OVERCONFIDENT) < 0.03, `jcommonsenseqa ECE ${b.by_source.jcommonsenseqa!.ece}`)
  for (const s of ['arc_challenge', 'arc_easy', 'boolq', 'mmlu']) assert.ok(b.by_source[s]!.ece < 0.05, `${s} ECE ${b.by_source[s]!.ece}`)

  // pooled, as eval.py's by_n: low at n ≤ 4, where 1.3.0 has no JCommonsenseQA, high at n ≥ 5, where it is most items
  const pooled = (ns: number[]) => ns.map((n) => b.by_n[String(n)]!)
  const low = pooled([2, 3, 4])
  const high = pooled([5, 6, 7, 8])
  assert.ok(Math.max(...low.map((f) => f.ece)) + 0.05 < Math.min(...high.map((f) => f.ece)))
  assert.ok(
    low.some((l) => high.some((h) => l.ci.ece[1] < h.ci.ece[0])),
    'some option count at n ≤ 4 lies wholly below one at n ≥ 5',
  )
  assert.ok(!overlap([...low, ...high]), 'the pooled ECE intervals share no point')

  // standardised to the non-BoolQ mix: n = 3 and 4 cannot be (no JCommonsenseQA there), the rest are flat
  const std = b.standardised!
  assert.deepEqual(std.sources, ['arc_challenge', 'arc_easy', 'jcommonsenseqa', 'mmlu'])
  assert.deepEqual(std.missing, { 3: ['jcommonsenseqa'], 4: ['jcommonsenseqa'] })
  assert.deepEqual(Object.keys(std.by_n), ['2', '5', '6', '7', '8'])
  assert.ok(overlap(Object.values(std.by_n)), 'the standardised ECE intervals share a point')
  // over the sources present at every option count, every n is standardised, and flat too
  const common = b.standardised_common!
  assert.deepEqual(common.sources, ['arc_challenge', 'arc_easy', 'mmlu'])
  assert.deepEqual(Object.keys(common.by_n), ['2', '3', '4', '5', '6', '7', '8'])
  assert.ok(overlap(Object.values(common.by_n)), 'the ECE intervals standardised over the common sources share a point')
  // accuracy and the other means are the weighted per-source means, exactly as defined
  const at5 = Object.entries(std.weights).reduce((a, [s, w]) => a + w * b.by_source_n[s]!['5']!.acc, 0)
  assert.ok(Math.abs(std.by_n['5']!.acc - at5) < 1e-12)

  // the report shows both, with intervals
  const md = await readFile(join(tmp, 'standin.report.md'), 'utf8')
  assert.match(md, /^### Standardised to one source mix$/m)
  assert.match(md, /^\| 3 \| 151 \| not standardised: jcommonsenseqa has no item with 3 options \|/m)
  assert.match(md, /^\| 8 \| 107 \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|/m)
})
