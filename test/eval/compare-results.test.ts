/**
 * compare-results reads both files against the result schema and refuses what cannot be compared:
 * items whose gold differs between A and B, a gold outside the options, values of the wrong length
 * or none, a temperature that is not positive, logits relabelled probabilities; each with one line
 * naming the file and the field. A score that is n/a is never "within the noise".
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { formatComparison } from '../../src/cli/compare-results.ts'
import type { Comparison } from '../../src/eval/compare.ts'
import { BETTER } from '../../src/eval/compare-terms.ts'
import { runInProcess } from '../helpers/cli.ts'
import { gold, OUT } from '../helpers/eval-rig.ts'
import { startModelServer } from '../helpers/model-server.ts'

let tmp: string
let logits: string
let probs: string
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-compare-'))
  const server = await startModelServer({ gold })
  logits = join(tmp, 'logits.json')
  probs = join(tmp, 'probs.json')
  for (const [f, mode] of [
    [logits, 'logits'],
    [probs, 'probabilities'],
  ] as const) {
    const r = await runInProcess('eval-model', [
      '--url',
      server.url,
      '--data',
      OUT,
      '--limit',
      '15',
      '--mode',
      mode,
      '--out',
      f,
      '--bootstrap',
      '50',
    ])
    assert.equal(r.status, 0, r.stderr)
  }
  await server.close()
})
after(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

type Result = {
  mode: string
  temperature?: number
  reported?: unknown
  calibrated?: unknown
  items: { gold: number; n: number; values: number[] }[]
}

/** A copy of `from` changed by `edit`, written beside it. */
async function edited(from: string, name: string, edit: (r: Result) => void): Promise<string> {
  const r = JSON.parse(await readFile(from, 'utf8')) as Result
  edit(r)
  const f = join(tmp, `${name}.json`)
  await writeFile(f, JSON.stringify(r))
  return f
}

test('the two files compare as they are: the untouched pair is accepted (their modes differ, so only when asked)', async () => {
  const r = await runInProcess('compare-results', [logits, probs, '--allow-mismatch'])
  assert.equal(r.status, 0, r.stderr)
})

test('malformed values are refused, naming the file and the field', async () => {
  const cases: [string, string, (r: Result) => void, RegExp][] = [
    ['gold-99', logits, (r) => (r.items[0]!.gold = 99), /items\[0\]\.gold: 99 is not an option of the \d/],
    ['gold-minus', logits, (r) => (r.items[1]!.gold = -1), /items\[1\]\.gold: -1 is not an option/],
    ['values-empty', logits, (r) => (r.items[2]!.values = []), /items\[2\]\.values: empty/],
    ['values-short', logits, (r) => r.items[3]!.values.pop(), /items\[3\]\.values: \d values for n = \d options/],
    ['t-zero', logits, (r) => (r.temperature = 0), /temperature: 0: a temperature is above 0/],
    ['t-negative', logits, (r) => (r.temperature = -5), /temperature: -5: a temperature is above 0/],
    [
      'relabelled',
      logits,
      (r) => {
        r.mode = 'probabilities'
        r.reported = r.calibrated
        delete r.temperature
      },
      /items\[0\]\.values: not probabilities .*logits labelled probabilities\?/,
    ],
  ]
  for (const [name, from, edit, message] of cases) {
    const bad = await edited(from, name, edit)
    for (const [a, b] of [
      [from, bad],
      [bad, from],
    ]) {
      const r = await runInProcess('compare-results', [a!, b!])
      assert.equal(r.status, 3, `${name}: ${r.stderr}${r.stdout}`)
      assert.match(
        r.stderr,
        new RegExp(`^error\\[DATA\\]: .*${name}\\.json is not a well-formed eval-model result: ${message.source}`, 'm'),
        name,
      )
    }
  }
})

test('results that disagree on an item (its gold) are refused: they are not of the same data', async () => {
  const other = await edited(logits, 'other-gold', (r) => {
    const it = r.items[4]!
    it.gold = (it.gold + 1) % it.n
  })
  const r = await runInProcess('compare-results', [logits, other])
  assert.equal(r.status, 2, r.stderr)
  assert.match(
    r.stderr,
    /^error\[USAGE\]: the two results disagree on item ".*": its gold is \d in .*logits\.json, \d in .*other-gold\.json$/m,
  )
})

test('a score that is n/a is shown n/a, never "within the noise"', () => {
  const score = (a: number, b: number) => ({
    a,
    b,
    diff: b - a,
    interval: [b - a, b - a] as [number, number],
    significant: false,
  })
  const c: Comparison = {
    shared: 3,
    onlyA: 0,
    onlyB: 0,
    resamples: 10,
    seed: 1,
    scores: {
      acc: score(0.5, 0.5),
      ece: score(Number.NaN, 0.1),
      nll: score(1, Number.POSITIVE_INFINITY),
      brier: score(0.2, 0.2),
      mean_conf: score(0.6, 0.6),
    },
    compared: { a: 'raw scores', b: 'raw scores' },
    better: BETTER,
    mismatches: [],
  }
  const lines = formatComparison(c, 'a.json', 'b.json')
  assert.match(lines.find((l) => l.startsWith('| accuracy '))!, /within the noise \|$/)
  for (const k of ['ECE', 'NLL']) {
    const l = lines.find((x) => x.startsWith(`| ${k} `))!
    assert.doesNotMatch(l, /noise/, l)
    assert.match(l, /\| n\/a \|$/)
  }
})

test("with --allow-mismatch, an item whose right answer differs between the runs is left out, not scored against A's answer", async () => {
  const other = await edited(logits, 'moved-gold', (r) => {
    const it = r.items[2]!
    it.gold = (it.gold + 1) % it.n
  })
  const r = await runInProcess('compare-results', [logits, other, '--allow-mismatch', '--json', '--bootstrap', '20'])
  assert.equal(r.status, 0, r.stderr)
  const c = JSON.parse(r.stdout) as { shared: number; onlyA: number; onlyB: number; mismatches: string[] }
  const total = (JSON.parse(await readFile(logits, 'utf8')) as Result).items.length
  assert.deepEqual([c.shared, c.onlyA, c.onlyB], [total - 1, 1, 1])
  assert.ok(
    c.mismatches.some((m) => /^1 items of the same id asked otherwise/.test(m)),
    c.mismatches.join('; '),
  )
})
