/**
 * From a server's answer to the values scored, under the validity rules: one finite value per
 * option; probabilities in [0, 1] summing to 1 within 0.01 (then normalised). An answer that breaks
 * them makes its item invalid: counted and listed in the result, never silently dropped. Valid
 * probabilities are kept as sent (the reference evaluator's scores); result.ts scores them
 * normalised too.
 */
import type { EvalItem } from './data.ts'
import { LABELS } from './prompt.ts'

export type Api = 'systemone' | 'openai'
export type Mode = 'logits' | 'probabilities'

/** The log-probability given to a label missing from an OpenAI-compatible server's top alternatives: probability 1e-12. */
export const LOGPROB_FLOOR = Math.log(1e-12)
/** How far from 1 probabilities may sum and still be normalised. */
export const SUM_TOLERANCE = 0.01
/** Sums off 1 by more than this are counted as normalised. */
const EXACT = 1e-9

export type Extracted = { ok: true; values: number[]; missing: number; normalised: boolean } | { ok: false; why: string }

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The part of a 2xx body the journal keeps: systemone's `answers.q`, or the first token's `top_logprobs`. */
export function answerPart(api: Api, json: unknown): unknown {
  if (api === 'systemone') {
    const answers = isObj(json) ? json.answers : undefined
    return isObj(answers) && 'q' in answers ? answers.q : null
  }
  const choice = isObj(json) && Array.isArray(json.choices) ? json.choices[0] : undefined
  const content = isObj(choice) && isObj(choice.logprobs) && Array.isArray(choice.logprobs.content) ? choice.logprobs.content[0] : undefined
  return isObj(content) && Array.isArray(content.top_logprobs) ? content.top_logprobs : null
}

/** Whether a systemone answer carries a logit for every option (the probe's test). */
export function hasLogits(item: EvalItem, part: unknown): boolean {
  return isObj(part) && isObj(part.logits) && item.choices.every((c) => Object.hasOwn(part.logits as object, c))
}

function perOption(item: EvalItem, map: unknown, name: string): number[] | string {
  if (!isObj(map)) return `no ${name}`
  const out: number[] = []
  for (const c of item.choices) {
    const v = Object.hasOwn(map, c) ? map[c] : undefined
    if (typeof v !== 'number' || !Number.isFinite(v))
      return `${name} for option ${JSON.stringify(c)} is ${v === undefined ? 'missing' : `not a finite number (${JSON.stringify(v)})`}`
    out.push(v)
  }
  if (Object.keys(map).length !== item.choices.length) return `${Object.keys(map).length} ${name} for ${item.choices.length} options`
  return out
}

/** A label written another way ("A.", "(A)", "A:"): its probability would be lost to the label, so the answer is refused. */
const MISSPELT_LABEL = /^\(?([A-H])[.):]\)?$/

function extractOpenai(item: EvalItem, part: unknown): Extracted {
  if (!Array.isArray(part)) return { ok: false, why: 'no top_logprobs for the first token' }
  if (part.length === 0) return { ok: false, why: 'top_logprobs is empty' }
  const labels = LABELS.slice(0, item.choices.length) as readonly string[]
  const tokens = new Set<string>()
  const sums = new Map<string, number>()
  let total = 0
  for (const t of part) {
    if (!isObj(t) || typeof t.token !== 'string' || typeof t.logprob !== 'number' || !Number.isFinite(t.logprob) || t.logprob > 0)
      return { ok: false, why: `a top_logprobs entry is not {token, logprob ≤ 0}: ${JSON.stringify(t)}` }
    if (tokens.has(t.token)) return { ok: false, why: `the token ${JSON.stringify(t.token)} is listed twice in top_logprobs` }
    tokens.add(t.token)
    total += Math.exp(t.logprob)
    const label = t.token.trim()
    const misspelt = MISSPELT_LABEL.exec(label)
    if (misspelt && labels.includes(misspelt[1]!))
      return { ok: false, why: `the token ${JSON.stringify(t.token)} is label ${misspelt[1]} written another way` }
    // one label spelt with and without a space (" A", "A"): their probabilities add up
    const prev = sums.get(label)
    sums.set(label, prev === undefined ? t.logprob : Math.log(Math.exp(prev) + Math.exp(t.logprob)))
  }
  if (total > 1 + SUM_TOLERANCE) return { ok: false, why: `the top_logprobs probabilities sum to ${total}, more than 1` }
  if (!labels.some((l) => sums.has(l)))
    return {
      ok: false,
      why: `none of the labels ${labels[0]}–${labels[labels.length - 1]} among the top_logprobs tokens ${JSON.stringify([...tokens].slice(0, 8))}`,
    }
  let missing = 0
  const values = labels.map((l) => {
    const v = sums.get(l)
    if (v === undefined) missing++
    return v ?? LOGPROB_FLOOR
  })
  return { ok: true, values, missing, normalised: false }
}

export function extract(item: EvalItem, api: Api, mode: Mode, part: unknown): Extracted {
  if (api === 'openai') return extractOpenai(item, part)
  if (!isObj(part)) return { ok: false, why: 'no answers.q in the answer' }
  if (mode === 'logits') {
    const v = perOption(item, part.logits, 'logits')
    return typeof v === 'string' ? { ok: false, why: v } : { ok: true, values: v, missing: 0, normalised: false }
  }
  const p = perOption(item, part.probabilities, 'probabilities')
  if (typeof p === 'string') return { ok: false, why: p }
  if (p.some((x) => x < 0 || x > 1)) return { ok: false, why: `a probability outside [0, 1]: ${JSON.stringify(p)}` }
  let s = 0
  for (const x of p) s += x
  if (Math.abs(s - 1) > SUM_TOLERANCE) return { ok: false, why: `probabilities sum to ${s}, not 1 within ${SUM_TOLERANCE}` }
  // the values as sent are what the reference evaluator scores; `normalised` says a normalised copy scores differently
  return { ok: true, values: p, missing: 0, normalised: Math.abs(s - 1) > EXACT }
}

/** Probabilities divided by their sum. */
export function normalise(p: readonly number[]): number[] {
  let s = 0
  for (const x of p) s += x
  return p.map((x) => x / s)
}
