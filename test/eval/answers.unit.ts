/**
 * An invalid answer is an invalid item, never a network error and never a uniform guess: NaN and
 * Infinity as Python writes them, empty top_logprobs, labels spelt another way, a token listed
 * twice; and a journal line edited is caught by its checksum. Credentials leave no trace in a URL
 * shown, a scrubbed line or an echoed answer.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { extract } from '../../src/eval/answers.ts'
import { credentialsOf, publicUrl, scrubJson } from '../../src/eval/credentials.ts'
import type { EvalItem } from '../../src/eval/data.ts'
import { parseAnswerJson } from '../../src/eval/http.ts'
import { sealLine } from '../../src/eval/journal.ts'

const item: EvalItem = {
  id: 'x',
  split: 'test',
  source: 'mmlu',
  question: 'Q?',
  context: null,
  choices: ['p', 'q', 'r', 's'],
  gold: 1,
  n: 4,
  upstreamKept: 4,
  contaminated: false,
}

const invalid = (x: ReturnType<typeof extract>) => (x.ok ? assert.fail(`accepted: ${JSON.stringify(x)}`) : x.why)

test('NaN, Infinity and -Infinity as json.dumps writes them parse, and make the item invalid; text in strings is left alone', () => {
  const body = '{"answers": {"q": {"logits": {"p": NaN, "q": 1.5, "r": -Infinity, "s": Infinity}, "note": "NaN, Infinity"}}}'
  assert.throws(() => JSON.parse(body))
  const json = parseAnswerJson(body) as { answers: { q: { logits: Record<string, unknown>; note: string } } }
  assert.deepEqual(json.answers.q.logits, { p: 'NaN', q: 1.5, r: '-Infinity', s: 'Infinity' })
  assert.equal(json.answers.q.note, 'NaN, Infinity')
  assert.match(invalid(extract(item, 'systemone', 'logits', json.answers.q)), /logits for option "p" is not a finite number \("NaN"\)/)
  assert.match(invalid(extract(item, 'openai', 'logits', [{ token: 'A', logprob: parseAnswerJson('NaN') }])), /not \{token, logprob ≤ 0\}/)
  // a body that is not JSON, NaN or not, still fails to parse (it is retried as one)
  assert.throws(() => parseAnswerJson('{"answers": NaN'))
  assert.throws(() => parseAnswerJson('{"a": "\\"NaN'))
})

test('openai: empty top_logprobs, no label at all, a label spelt another way, a token twice or a sum above 1 are invalid, not uniform', () => {
  assert.equal(invalid(extract(item, 'openai', 'logits', [])), 'top_logprobs is empty')
  assert.match(
    invalid(
      extract(item, 'openai', 'logits', [
        { token: 'a', logprob: -0.5 },
        { token: 'b', logprob: -1.5 },
      ]),
    ),
    /none of the labels A–D among the top_logprobs tokens \["a","b"\]/,
  )
  for (const spelt of ['A.', ' (B)', 'C)', 'D:'])
    assert.match(
      invalid(
        extract(item, 'openai', 'logits', [
          { token: spelt, logprob: -0.2 },
          { token: 'A', logprob: -3 },
        ]),
      ),
      /is label [A-D] written another way/,
      spelt,
    )
  assert.match(
    invalid(
      extract(item, 'openai', 'logits', [
        { token: 'A', logprob: -0.1 },
        { token: 'A', logprob: -0.1 },
      ]),
    ),
    /the token "A" is listed twice/,
  )
  // two spellings of one label add up, but never past 1
  assert.match(
    invalid(
      extract(item, 'openai', 'logits', [
        { token: 'A', logprob: -0.1 },
        { token: ' A', logprob: -0.1 },
      ]),
    ),
    /probabilities sum to 1\.8\d*, more than 1/,
  )
  // a label past this item's options ("E." for four) is just another token; a label missing is counted, not invalid
  const ok = extract(item, 'openai', 'logits', [
    { token: ' A', logprob: Math.log(0.5) },
    { token: 'A', logprob: Math.log(0.2) },
    { token: 'C', logprob: Math.log(0.1) },
    { token: 'E.', logprob: Math.log(0.1) },
    { token: 'The', logprob: Math.log(0.05) },
  ])
  assert.ok(ok.ok)
  assert.equal(ok.missing, 2)
  assert.ok(Math.abs(ok.values[0]! - Math.log(0.7)) < 1e-12)
  assert.equal(ok.values[1], Math.log(1e-12))
})

test('a journal line carries the sha256 of the rest, as its last field', () => {
  const line = sealLine({ split: 'val', id: 'a', key: 'k', answer: { sum: 1 }, ms: 3 })
  assert.match(line, /^\{"split":"val","id":"a","key":"k","answer":\{"sum":1\},"ms":3,"sum":"[0-9a-f]{64}"\}$/)
  assert.notEqual(sealLine({ ms: 4 }).slice(-66), sealLine({ ms: 3 }).slice(-66))
  assert.match(sealLine({}), /^\{"sum":"[0-9a-f]{64}"\}$/)
})

test('credentials: the URL shown has no user, password or token value; every line and echoed answer is scrubbed of them', () => {
  const url = 'http://alice:pa%24%24word@127.0.0.1:8080/base/?api_key=KEY-in-query&x=1&access_token=tok-777&sig=s1gnature'
  assert.equal(publicUrl(url), 'http://127.0.0.1:8080/base/?api_key=REDACTED&x=1&access_token=REDACTED&sig=REDACTED')
  const c = credentialsOf(url, undefined)
  assert.equal(c.requestUrl, 'http://127.0.0.1:8080/base/?api_key=KEY-in-query&x=1&access_token=tok-777&sig=s1gnature')
  assert.equal(c.authorization, `Basic ${Buffer.from('alice:pa$$word').toString('base64')}`)
  const line = `failed at ${url} (${c.authorization}) with pa$$word and tok-777, s1gnature, KEY-in-query`
  const scrubbed = c.scrub(line)
  for (const s of ['alice', 'pa$$word', 'pa%24%24word', 'tok-777', 's1gnature', 'KEY-in-query', c.authorization!.slice(6)])
    assert.ok(!scrubbed.includes(s), `${s} in ${scrubbed}`)
  // a journal's public URL (--from-journal) hides nothing more
  assert.equal(credentialsOf(publicUrl(url), undefined).scrub('?api_key=REDACTED'), '?api_key=REDACTED')
  const k = credentialsOf('http://127.0.0.1:1', 'sk-abc-123')
  assert.equal(k.authorization, 'Bearer sk-abc-123')
  assert.deepEqual(scrubJson({ echo: { authorization: 'Bearer sk-abc-123', 'sk-abc-123': [1, 'x sk-abc-123'] } }, k.scrub), {
    echo: { authorization: 'Bearer <API_KEY>', '<API_KEY>': [1, 'x <API_KEY>'] },
  })
  // a key a header cannot carry is refused without being shown; so are credentials given twice
  for (const bad of ['sk-1\r\nX-Evil: 1', 'sk 1', 'sk-é'])
    assert.throws(
      () => credentialsOf('http://127.0.0.1:1', bad),
      (e: Error) => /an HTTP header cannot carry/.test(e.message) && !e.message.includes(bad),
    )
  assert.throws(() => credentialsOf('http://u:pw@127.0.0.1:1', 'sk-1'), /give the credentials one way/)
})
