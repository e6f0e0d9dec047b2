/**
 * A model as the reviewer: one chat request per item (the task's prompt as the system message, the item as the
 * user's), its answer a strict JSON object {"marks": [...]} checked letter by letter, each answer journaled as it
 * comes, so a rerun asks only for what is missing. A pool of workers sends the requests; every wait is bounded by
 * the client (./http.ts).
 */
import { z } from 'zod'
import { JevError } from '../errors.ts'
import { sha256Hex } from '../util/hash.ts'
import type { Progress } from '../util/progress.ts'
import { type ChatClient, chatEndpoint, postChat, safeUrl, scrubbed } from './http.ts'
import { headerDiffers, type ReviewHeader, ReviewJournalWriter, readReviewJournal } from './journal.ts'
import { MARK_LETTERS, type ReviewTask, reviewerPrompt } from './prompts.ts'

export interface ModelReviewer {
  kind: 'model'
  client: ChatClient
  model: string
  /** the journal's file; none: answers are not kept */
  journal?: string | undefined
  /** parallel requests */
  workers: number
}

/** One item to mark: its id, the text the model is shown, and how many marks it must give. */
export interface Ask {
  id: string
  text: string
  count: number
}

const Answer = z.strictObject({ marks: z.array(z.string()) })

/** The marks of a model's answer, or why it is not a valid one. */
export function parseModelAnswer(content: string, task: ReviewTask, count: number): { marks: string } | { why: string } {
  // a fenced block is the one wrapping tolerated: many chat models add it whatever they are told
  const fenced = /^```(?:json)?[ \t]*\n([\s\S]*?)\n?```$/.exec(content.trim())
  let json: unknown
  try {
    json = JSON.parse(fenced ? fenced[1]! : content.trim())
  } catch {
    return { why: 'the answer is not a JSON object' }
  }
  const a = Answer.safeParse(json)
  if (!a.success) return { why: 'the answer is not {"marks": [...]} alone' }
  const letters = MARK_LETTERS[task]
  const wrong = a.data.marks.find((m) => !letters.includes(m))
  if (wrong !== undefined) return { why: `a mark ${JSON.stringify(wrong).slice(0, 20)} is none of ${letters.join(', ')}` }
  if (a.data.marks.length !== count) return { why: `${a.data.marks.length} marks for ${count}` }
  return { marks: a.data.marks.join('') }
}

/** The request body for one item: deterministic, so its hash names the request in the journal. */
export function requestBody(task: ReviewTask, model: string, text: string): string {
  return JSON.stringify({
    model,
    temperature: 0,
    messages: [
      { role: 'system', content: reviewerPrompt(task).text },
      { role: 'user', content: text },
    ],
  })
}

/** What the marks file and the card record of a model reviewer: never the key, nor the URL's credentials or query. */
export function modelIdentity(task: ReviewTask, r: ModelReviewer): { kind: 'model'; model: string; endpoint: string; prompt: string } {
  return { kind: 'model', model: r.model, endpoint: safeUrl(chatEndpoint(r.client.url).endpoint), prompt: reviewerPrompt(task).sha256 }
}

/**
 * Every item's marks (letters, one per candidate or option), from the journal or the model. An item whose answers
 * stay invalid after the client's retries is DATA naming it, after all the others are asked and journaled.
 */
export async function askModel(
  task: ReviewTask,
  r: ModelReviewer,
  asks: readonly Ask[],
  io: { log: (line: string) => void; progress?: Progress | undefined },
): Promise<Map<string, string>> {
  const id = modelIdentity(task, r)
  const header: ReviewHeader = { journal: 'jev-review', version: 1, task, endpoint: id.endpoint, model: r.model, prompt: id.prompt }
  const had = r.journal ? readReviewJournal(r.journal) : null
  if (had && r.journal) {
    const why = headerDiffers(had.header, header)
    if (why)
      throw new JevError('USAGE', `the journal ${r.journal} is another run's: ${why}`, {
        usage: null,
        file: r.journal,
        hint: 'name another journal with --journal FILE (or remove this one to start over)',
      })
  }
  const writer = r.journal ? await ReviewJournalWriter.open(r.journal, had, header) : null
  const out = new Map<string, string>()
  const todo: { ask: Ask; body: string; key: string }[] = []
  for (const ask of asks) {
    const body = requestBody(task, r.model, ask.text)
    const key = sha256Hex(`${id.endpoint}\n${body}`)
    const kept = had?.lines.get(key)
    if (kept && kept.id === ask.id && kept.marks.length === ask.count) out.set(ask.id, kept.marks)
    else todo.push({ ask, body, key })
  }
  const failed: { id: string; why: string }[] = []
  let done = 0
  io.progress?.stage(`asking ${r.model} (${task}): ${todo.length} of ${asks.length} items`)
  const client: ChatClient = {
    ...r.client,
    onRetry: (why, attempt, of) => io.log(`${task}: ${why}; attempt ${attempt} of ${of}`),
  }
  let next = 0
  let stop: unknown = null
  const worker = async () => {
    while (next < todo.length && stop === null) {
      const { ask, body, key } = todo[next++]!
      let why = ''
      for (let n = 0; n <= Math.max(0, r.client.retries); n++) {
        const t0 = performance.now()
        let content: string
        try {
          content = await postChat(client, body)
        } catch (e) {
          stop ??= e
          return
        }
        const got = parseModelAnswer(content, task, ask.count)
        if ('marks' in got) {
          out.set(ask.id, got.marks)
          writer?.append({ id: ask.id, key, marks: got.marks, ms: Math.round(performance.now() - t0) })
          why = ''
          break
        }
        why = got.why
      }
      if (why) failed.push({ id: ask.id, why })
      done++
      if (done % 100 === 0) io.log(`${task}: ${done} of ${todo.length} items marked`)
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(r.workers, todo.length)) }, worker))
  } finally {
    writer?.close()
  }
  if (stop !== null) throw stop
  if (failed.length)
    throw new JevError(
      'DATA',
      `${r.model} gave no valid answer for ${failed.length} item${failed.length === 1 ? '' : 's'} (e.g. ${failed[0]!.id}: ${scrubbed(failed[0]!.why, r.client)})`,
      {
        id: failed[0]!.id,
        hint: `the model must answer {"marks": [...]} with one letter per line shown (the prompt is the package's prompts/${task}.md); answers kept are in the journal, so a rerun asks only for these`,
      },
    )
  return out
}
