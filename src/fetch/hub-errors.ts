/** Whatever a Hub request threw, as one typed, token-free error naming repo, revision and file. */
import { type ErrorContext, isJevError, JevError } from '../errors.ts'
import { settingOf } from './bounds.ts'
import { type ResponseNote, TransientError } from './guarded-fetch.ts'
import { httpErrorCode, statusWords } from './http-errors.ts'
import { isHubApiError, isInvalidApiResponse } from './hub-client.ts'
import { type HubSession, scrubbed } from './hub-session.ts'
import { AttemptsFailed } from './retry.ts'

function httpError(
  s: HubSession,
  status: number,
  note: ResponseNote | undefined,
  detail: string,
  ctx: ErrorContext,
  after: string,
  retryAfterMs?: number,
  deadlineLeftMs?: number,
): JevError {
  const where = `${ctx.repo}@${ctx.revision} ${ctx.file}`
  const words = statusWords(status)
  const head = `Hub answered HTTP ${status}`
  const c = { ...ctx, status }
  if (status === 401) {
    const what = s.token
      ? 'HF_TOKEN was rejected; check that it is valid and not expired'
      : "without a token the Hub answers this for a repo that is private, gated or missing: check the recipe's repo, or set HF_TOKEN"
    return new JevError(httpErrorCode(status, 'read'), `${head} (${words}) for ${where}: ${what}`, c)
  }
  if (status === 403) {
    const what = s.token
      ? "HF_TOKEN has no access; accept the dataset's terms on its Hub page with that account, or use a token that can read it"
      : 'the repo is gated or private; set HF_TOKEN to a token with access'
    return new JevError(httpErrorCode(status, 'read'), `${head} (${words}) for ${where}: ${what}`, c)
  }
  if (status === 404) {
    const kind = note?.status === 404 ? note.errorCode : null
    const what =
      kind === 'RepoNotFound'
        ? `no dataset repo ${ctx.repo}; check the recipe's repo${s.token ? '' : ' (a private repo also answers 404 without HF_TOKEN)'}`
        : kind === 'RevisionNotFound'
          ? `no revision ${ctx.revision} in ${ctx.repo}; check the recipe's revision`
          : kind === 'EntryNotFound'
            ? `no file ${ctx.file} at that revision; check the recipe's path`
            : "check the recipe's repo, revision and path"
    return new JevError(httpErrorCode(status, 'read'), `${head} (${words}) for ${where}: ${what}`, c)
  }
  if (retryAfterMs !== undefined) {
    const secs = Math.ceil(retryAfterMs / 1000)
    const at = new Date(s.policy.now() + retryAfterMs).toISOString().replace(/\.\d+Z$/, 'Z')
    const limit =
      deadlineLeftMs !== undefined
        ? `more than the ${Math.floor(deadlineLeftMs / 1000)} s left of the ${s.policy.fileDeadlineMs / 1000} s allowed for one file (${settingOf('fileDeadlineMs')} to wait longer)`
        : `longer than the ${s.policy.maxRetryAfterMs / 1000} s this builder waits (${settingOf('maxRetryAfterMs')} to wait longer)`
    return new JevError('NETWORK', `${head} for ${where}${after} and asked to wait ${secs} s, ${limit}; try again after ${at}`, {
      ...c,
      retryAfter: at,
    })
  }
  // Signed CDN URLs carry credentials in their query; the path is enough to say where.
  const why =
    status === 429
      ? 'rate limited; wait a few minutes, or set HF_TOKEN for a higher limit'
      : status >= 500
        ? 'the Hub or HF_ENDPOINT is failing; try again later'
        : detail.replace(/(https?:\/\/[^\s?]+)\?\S*/g, '$1')
  return new JevError(httpErrorCode(status, 'read'), `${head} for ${where}${after}: ${why}`, c)
}

/** The error for `caught`, thrown while fetching the file `ctx` names (after retries, when AttemptsFailed). */
export function hubFetchError(s: HubSession, caught: unknown, ctx: ErrorContext): JevError {
  const failed = caught instanceof AttemptsFailed ? caught : null
  const e = failed ? failed.cause : caught
  const attempts = failed?.attempts ?? 1
  const after = attempts > 1 ? ` after ${attempts} attempts` : ''
  const where = `${ctx.repo}@${ctx.revision} ${ctx.file}`
  const withCtx = (j: JevError) => new JevError(j.code, scrubbed(s, j.message), { ...j.context, ...(attempts > 1 ? { attempts } : {}) })
  if (isJevError(e)) return withCtx(new JevError(e.code, e.message, { ...ctx, ...e.context }))
  if (e instanceof TransientError) {
    const c = { ...ctx, ...e.detail, attempts }
    if (e.code === 'INTEGRITY')
      return withCtx(
        new JevError('INTEGRITY', `downloaded ${where} does not match the Hub${after}: ${e.message}; nothing was written to the cache`, c),
      )
    return withCtx(new JevError('NETWORK', `could not fetch ${where} from ${s.endpoint}${after}: ${e.message}`, c))
  }
  if (isHubApiError(e))
    return withCtx(httpError(s, e.statusCode, failed?.note, e.message, ctx, after, failed?.retryAfterMs, failed?.deadlineLeftMs))
  const err = e instanceof Error ? e : new Error(String(e))
  if (err instanceof TypeError && err.message.includes("must start with 'hf_'")) {
    return new JevError('AUTH', 'the Hugging Face token is malformed: it must start with hf_', ctx)
  }
  if (isInvalidApiResponse(err) || err instanceof SyntaxError) {
    return withCtx(new JevError('NETWORK', `could not fetch ${where} from ${s.endpoint}${after}: malformed response: ${err.message}`, ctx))
  }
  const errno = err as NodeJS.ErrnoException
  if (typeof errno.syscall === 'string') {
    return new JevError('IO', scrubbed(s, `cache write failed for ${where}: ${errno.message}`), { ...ctx, path: errno.path })
  }
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : ''
  return withCtx(new JevError('NETWORK', `could not fetch ${where} from ${s.endpoint}${after}: ${err.message}${cause}`, ctx))
}
