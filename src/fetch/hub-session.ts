/**
 * What every request of one Hub fetcher shares: where it goes, with which token, under which
 * bounds, what it reports, and the commits it has resolved. Passed to the request, download and
 * error modules in place of a closure.
 */

import type { ErrorContext } from '../errors.ts'
import { oneLine } from '../util/oneline.ts'
import type { Progress } from '../util/progress.ts'
import { scrubToken } from '../util/secrets.ts'
import type { BodyWatcher, Deadline, Fetch } from './guarded-fetch.ts'
import { type RetryPolicy, withRetries } from './retry.ts'

export interface HubSession {
  endpoint: string
  token: string | undefined
  /** absolute: the cache's links are compared with absolute paths */
  cacheDir: string
  offline: boolean
  policy: RetryPolicy
  baseFetch: Fetch
  lockWaitMs: number
  log: ((line: string) => void) | undefined
  /** each download's bytes, on a terminal; none: no bars */
  progress?: Progress
  /** one commit per repo@revision for the fetcher's lifetime: every file of a build comes from the same snapshot */
  commits: Map<string, Promise<string>>
  /** repos whose blobs/ was cleared of temp files killed builds left, once per fetcher */
  swept: Set<string>
}

/** One line, no token. */
export const scrubbed = (s: HubSession, text: string) => oneLine(scrubToken(text, s.token))

/** A progress or warning line, scrubbed. */
export const say = (s: HubSession, line: string) => s.log?.(scrubbed(s, line))

/** The @huggingface/hub client's options for one attempt's fetch. */
export const clientOf = (s: HubSession, f: Fetch) => ({ hubUrl: s.endpoint, fetch: f, ...(s.token ? { accessToken: s.token } : {}) })

/** Every Hub call goes through here: a fresh guarded fetch per attempt, bounded retries, one log line per retry. */
export function retried<T>(
  s: HubSession,
  ctx: ErrorContext,
  deadline: Deadline,
  run: (f: Fetch) => Promise<T>,
  htmlExpected = false,
  onBody?: BodyWatcher,
): Promise<T> {
  return withRetries(s.policy, s.baseFetch, run, {
    htmlExpected,
    deadline,
    ...(onBody ? { onBody } : {}),
    onRetry: (ev) => {
      const asked = ev.retryAfterMs !== undefined ? ` (the Hub asked to wait ${Math.ceil(ev.retryAfterMs / 1000)} s)` : ''
      say(s, `hub: ${ctx.repo}@${ctx.revision} ${ctx.file}: ${ev.why}; retrying (attempt ${ev.attempt} of ${ev.of})${asked}`)
    },
  })
}
