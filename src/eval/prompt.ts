/** What is sent for one question: the systemone body and the card's reference prompt, both exactly as the protocol gives them. */
import type { EvalItem } from './data.ts'

export const LABELS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'] as const

/** The model name the reference evaluator sends to /v1/systemone. */
export const SYSTEMONE_MODEL = 'jev-latest'

/**
 * JSON as Python's json.dumps writes it by default (", " and ": " between items, every character
 * outside printable ASCII as \uXXXX), so a body's bytes are the reference evaluator's. Object keys
 * keep their order: entries are given as pairs, since a JS object would move keys such as "1" first.
 */
export type PyJson = null | boolean | number | string | PyJson[] | { entries: [string, PyJson][] }

const pyString = (s: string) => JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

export function pyJson(v: PyJson): string {
  if (v === null) return 'null'
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'number') return JSON.stringify(v)
  if (typeof v === 'string') return pyString(v)
  if (Array.isArray(v)) return `[${v.map(pyJson).join(', ')}]`
  return `{${v.entries.map(([k, x]) => `${pyString(k)}: ${pyJson(x)}`).join(', ')}}`
}

const obj = (...entries: [string, PyJson][]): PyJson => ({ entries })

/** The reference evaluator's request body for one item: one `choice` question, the options as its criteria. */
export function systemoneBody(item: EvalItem, assistantPrefix: string | undefined, wantLogits: boolean): string {
  const options: [string, PyJson][] = []
  if (wantLogits) options.push(['return_logits', true], ['temperature_scaling', false])
  if (assistantPrefix) options.push(['assistant_prefix', assistantPrefix])
  const body: [string, PyJson][] = [
    ['model', SYSTEMONE_MODEL],
    // Python's `or`: an empty context is "(none)" too
    ['state', item.context || '(none)'],
    [
      'questions',
      obj([
        'q',
        obj(
          ['type', 'choice'],
          ['instructions', item.question],
          ['criteria', { entries: item.choices.map((c): [string, PyJson] => [c, null]) }],
        ),
      ]),
    ],
  ]
  if (options.length) body.push(['options', { entries: options }])
  return pyJson({ entries: body })
}

/** The card's reference prompt, exactly: one user message. */
export function referencePrompt(item: EvalItem): string {
  return [
    'Context:',
    item.context ?? '(none)',
    '',
    'Answer the question with only the label of the best option (the character before the colon), nothing else.',
    `Question: ${item.question}`,
    'Options:',
    ...item.choices.map((c, i) => `${LABELS[i]}: ${c}`),
  ].join('\n')
}

/** How many top alternatives an OpenAI-compatible server is asked for (the most OpenAI's API allows). */
export const TOP_LOGPROBS = 20

/** A chat completion asking for one token and the log-probabilities of its alternatives. */
export function openaiBody(item: EvalItem, model: string): string {
  return JSON.stringify({
    model,
    messages: [{ role: 'user', content: referencePrompt(item) }],
    max_tokens: 1,
    temperature: 0,
    logprobs: true,
    top_logprobs: TOP_LOGPROBS,
  })
}
