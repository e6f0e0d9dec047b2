/** What the evaluation tests share: the committed out/ (read only) as data, its right answers for the test server, and result files compared without their timings. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './cli.ts'

export const OUT = join(ROOT, 'out')

/** The right option's text per question, from out/'s records: the test server's "knowledge". */
const golds = new Map<string, string>()
for (const f of ['test.jsonl', 'val.jsonl'])
  for (const line of readFileSync(join(OUT, f), 'utf8').split('\n')) {
    if (!line) continue
    const r = JSON.parse(line) as { question: string; choices: string[]; answer_idx: number }
    golds.set(r.question, r.choices[r.answer_idx]!)
  }
export const gold = (q: string) => golds.get(q)

/** A result file without `seconds` (the server's timing, not its answers) and `url` (each test server has its own port). */
export function withoutTimes(path: string): Record<string, unknown> {
  const r = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  delete r.seconds
  delete r.url
  return r
}

/** Every number of `ref` found at the same path in `got`, each within `tol`; the paths checked are returned. */
export function numbersAgree(ref: unknown, got: unknown, tol: number, path = '', skip: readonly string[] = []): string[] {
  const checked: string[] = []
  const walk = (a: unknown, b: unknown, p: string) => {
    if (skip.includes(p)) return
    if (typeof a === 'number') {
      if (typeof b !== 'number' || !(Math.abs(a - b) <= tol)) throw new Error(`${p}: reference ${a}, got ${String(b)}`)
      checked.push(p)
    } else if (a !== null && typeof a === 'object') {
      if (b === null || typeof b !== 'object') throw new Error(`${p}: missing`)
      for (const [k, v] of Object.entries(a)) walk(v, (b as Record<string, unknown>)[k], `${p}/${k}`)
    } else if (a !== b) throw new Error(`${p}: reference ${JSON.stringify(a)}, got ${JSON.stringify(b)}`)
  }
  walk(ref, got, path)
  return checked
}
