/**
 * The server's credentials: the API key, a user and password in --url (sent as Basic, as eval.py's
 * requests sends them) and query parameters that look like tokens. Requests carry them; every URL
 * shown or written is the public one, and every line, answer and error is scrubbed of them.
 */
import { JevError } from '../errors.ts'
import { scrubToken } from '../util/secrets.ts'

/** Query parameters whose values are treated as secrets: token, key, api_key, access_token, sig, … */
const SECRET_PARAM = /token|key|sig|secret|pass|pwd|auth|credential/i
/** What a secret query value is written as in a public URL. */
export const REDACTED = 'REDACTED'
/** A user name or query value this short is only taken out of URLs: hunted in free text it would garble every line. */
const MIN_FREE_TEXT = 4

export interface Credentials {
  /** the URL to send requests to: the user and password taken out */
  requestUrl: string
  /** the authorization header's value, if any */
  authorization: string | undefined
  /** `text` with every credential replaced by a placeholder */
  scrub: (text: string) => string
}

interface Secret {
  value: string
  placeholder: string
}

/** The URL without user and password, secret query values replaced: what is printed, journaled and written. */
export function publicUrl(url: string): string {
  const u = new URL(url)
  u.username = ''
  u.password = ''
  if (u.search) {
    const parts = u.search.slice(1).split('&')
    const kept = parts.map((p) => {
      const eq = p.indexOf('=')
      return eq > 0 && SECRET_PARAM.test(decode(p.slice(0, eq))) ? `${p.slice(0, eq)}=${REDACTED}` : p
    })
    u.search = `?${kept.join('&')}`
  }
  return u.href.replace(/\/+$/, '')
}

const decode = (s: string) => {
  try {
    return decodeURIComponent(s.replaceAll('+', ' '))
  } catch {
    return s
  }
}

/** A key a header can carry: visible ASCII only, so no line break or control character can reach a request or a line. */
function checkKey(key: string): void {
  if (!/^[\x21-\x7e]+$/.test(key))
    throw new JevError(
      'USAGE',
      'the API key (--api-key or JEV_API_KEY) holds a character an HTTP header cannot carry: a space, a line break, a control or non-ASCII character',
      { usage: null, hint: 'give the key alone, without quotes, spaces or a trailing newline' },
    )
}

export function credentialsOf(url: string, apiKey: string | undefined): Credentials {
  const u = new URL(url)
  const secrets: Secret[] = []
  const add = (value: string, placeholder: string, min = 1) => {
    // a journal's URL (--from-journal) holds REDACTED already: nothing to hide
    if (value.length >= min && value !== REDACTED) secrets.push({ value, placeholder })
  }
  let authorization: string | undefined
  if (apiKey !== undefined) {
    checkKey(apiKey)
    add(apiKey, '<API_KEY>')
    authorization = `Bearer ${apiKey}`
  }
  if (u.username || u.password) {
    if (apiKey !== undefined)
      throw new JevError('USAGE', '--url holds a user or password and an API key is given too: give the credentials one way', {
        usage: null,
        hint: 'either --api-key KEY (or JEV_API_KEY), or a user and password in --url, not both',
      })
    const user = decode(u.username)
    const password = decode(u.password)
    const basic = Buffer.from(`${user}:${password}`).toString('base64')
    authorization = `Basic ${basic}`
    add(basic, '<URL_CREDENTIALS>')
    add(`${u.username}:${u.password}@`, '<URL_CREDENTIALS>@')
    for (const p of new Set([password, u.password])) add(p, '<URL_PASSWORD>')
    for (const n of new Set([user, u.username])) add(n, '<URL_USER>', MIN_FREE_TEXT)
  }
  for (const p of u.search.slice(1).split('&')) {
    const eq = p.indexOf('=')
    if (eq > 0 && SECRET_PARAM.test(decode(p.slice(0, eq))))
      for (const v of new Set([p.slice(eq + 1), decode(p.slice(eq + 1))])) add(v, '<URL_TOKEN>', MIN_FREE_TEXT)
  }
  // the longest first, so a secret holding another is replaced whole
  secrets.sort((a, b) => b.value.length - a.value.length)
  u.username = ''
  u.password = ''
  return {
    requestUrl: u.href,
    authorization,
    scrub: (text) => secrets.reduce((t, s) => scrubToken(t, s.value, s.placeholder), text),
  }
}

/** A parsed answer with every string (keys too) scrubbed: what a server echoes back (an Authorization header, say) is kept without it. */
export function scrubJson(v: unknown, scrub: (text: string) => string): unknown {
  if (typeof v === 'string') return scrub(v)
  if (Array.isArray(v)) return v.map((x) => scrubJson(x, scrub))
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [scrub(k), scrubJson(x, scrub)]))
  return v
}
