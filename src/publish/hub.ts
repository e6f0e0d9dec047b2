/**
 * What publishing reads from and asks of the Hub, through @huggingface/hub
 * where it has a helper and through the Hub's REST API where it has none
 * (refs, tags); every failure becomes one typed, token-free JevError.
 */
import { datasetInfo, downloadFile, HubApiError, type ListFileEntry, listFiles, repoExists } from '@huggingface/hub'
import { isJevError, JevError } from '../errors.ts'
import { httpErrorCode } from '../fetch/http-errors.ts'
import { oneLine } from '../util/oneline.ts'
import { scrubToken } from '../util/secrets.ts'

export interface HubAccess {
  /** e.g. https://huggingface.co, without a trailing slash */
  endpoint: string
  token?: string
  fetch?: typeof fetch
}

export const hubClientOf = (a: HubAccess) => ({
  hubUrl: a.endpoint,
  ...(a.token ? { accessToken: a.token } : {}),
  ...(a.fetch ? { fetch: a.fetch } : {}),
})
const dataset = (name: string) => ({ type: 'dataset' as const, name })

/** One line, no token: what went wrong, where, and the Hub's own words. */
export function hubError(e: unknown, what: string, a: HubAccess): JevError {
  const scrub = (s: string) => oneLine(scrubToken(s, a.token))
  if (isJevError(e)) return new JevError(e.code, scrub(e.message), e.context)
  if (e instanceof HubApiError) {
    const s = e.statusCode
    const code = httpErrorCode(s, 'write')
    const why =
      s === 401
        ? ' (the token is missing, invalid or expired)'
        : s === 403
          ? ' (the token lacks write access to this repo or namespace)'
          : s === 412
            ? ' (someone committed to the branch since it was read; nothing was changed)'
            : ''
    // the client appends ". URL: …" to the Hub's words, which often end in a full stop already
    const words = e.message.replace(/([.!?])\. URL: /, '$1 URL: ')
    return new JevError(code, scrub(`Hub answered HTTP ${s} to ${what}${why}: ${words}`), { status: s })
  }
  const err = e instanceof Error ? e : new Error(String(e))
  if (err instanceof TypeError && err.message.includes("must start with 'hf_'"))
    return new JevError('AUTH', 'HF_TOKEN is malformed: a Hugging Face token starts with hf_')
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : ''
  return new JevError('NETWORK', scrub(`could not ${what} at ${a.endpoint}: ${err.message}${cause}`))
}

export interface RemoteHead {
  repoExists: boolean
  branchExists: boolean
  /** the branch head; for a missing branch, the default branch's head it will start from */
  commit: string | null
  private: boolean
}

export async function resolveHead(repo: string, revision: string, a: HubAccess): Promise<RemoteHead> {
  const info = (rev: string) => datasetInfo({ ...hubClientOf(a), name: repo, revision: rev, additionalFields: ['sha'] })
  try {
    const i = await info(revision)
    return { repoExists: true, branchExists: true, commit: i.sha, private: i.private }
  } catch (e) {
    // without credentials the Hub answers 401, not 404, for a repo it does not show (missing, private or gated)
    const hidden = e instanceof HubApiError && (e.statusCode === 404 || (e.statusCode === 401 && !a.token))
    if (!hidden) throw hubError(e, `read ${repo}@${revision}`, a)
  }
  try {
    if (
      !(await repoExists({
        repo: dataset(repo),
        hubUrl: a.endpoint,
        ...(a.token ? { accessToken: a.token } : {}),
        ...(a.fetch ? { fetch: a.fetch } : {}),
      }))
    )
      return { repoExists: false, branchExists: false, commit: null, private: false }
    const i = await info('HEAD')
    // the repo may have appeared between the two reads, with the branch: read it again rather than plan to create it
    const again = await info(revision).catch((e: unknown) => {
      if (e instanceof HubApiError && e.statusCode === 404) return null
      throw e
    })
    if (again) return { repoExists: true, branchExists: true, commit: again.sha, private: again.private }
    return { repoExists: true, branchExists: false, commit: i.sha, private: i.private }
  } catch (e) {
    throw hubError(e, `read ${repo}`, a)
  }
}

/** Every file at a commit, by path. */
export async function remoteFiles(repo: string, commit: string, a: HubAccess): Promise<Map<string, ListFileEntry>> {
  const out = new Map<string, ListFileEntry>()
  try {
    for await (const f of listFiles({ ...hubClientOf(a), repo: dataset(repo), revision: commit, recursive: true }))
      if (f.type === 'file') out.set(f.path, f)
  } catch (e) {
    throw hubError(e, `list the files of ${repo}@${commit}`, a)
  }
  return out
}

/** The paths the manifest at that commit says a previous publish put there (null when it cannot tell). */
export async function previousOutputs(repo: string, commit: string, a: HubAccess): Promise<string[] | null> {
  let text: string
  try {
    const blob = await downloadFile({ ...hubClientOf(a), repo: dataset(repo), revision: commit, path: 'manifest.json', xet: false })
    if (!blob) return null
    text = await blob.text()
  } catch (e) {
    throw hubError(e, `download manifest.json from ${repo}@${commit}`, a)
  }
  try {
    const outputs = (JSON.parse(text) as { outputs?: { path?: unknown }[] }).outputs
    if (!Array.isArray(outputs)) return null
    return outputs
      .map((o) => o?.path)
      .filter((p): p is string => typeof p === 'string' && /^[\w.-]+(\/[\w.-]+)*$/.test(p) && !p.split('/').includes('..'))
  } catch {
    return null
  }
}

async function rest(a: HubAccess, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const url = `${a.endpoint}${path}`
  const res = await (a.fetch ?? fetch)(url, {
    method,
    headers: {
      ...(a.token ? { Authorization: `Bearer ${a.token}` } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  let parsed: unknown = null
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    // a non-JSON body; its text goes into the error below
  }
  if (!res.ok) {
    const msg = (parsed as { error?: unknown } | null)?.error
    throw new HubApiError(
      url,
      res.status,
      res.headers.get('X-Request-Id') ?? undefined,
      `${typeof msg === 'string' ? msg : text.slice(0, 200) || res.statusText}. URL: ${url}`,
    )
  }
  return parsed
}

export interface RepoRefs {
  branches: Record<string, string>
  tags: Record<string, string>
}

/** `GET /api/datasets/{repo}/refs`: the client has no helper for it. */
export async function listRefs(repo: string, a: HubAccess): Promise<RepoRefs> {
  try {
    const r = (await rest(a, 'GET', `/api/datasets/${repo}/refs`)) as {
      branches?: { name: string; targetCommit: string }[]
      tags?: { name: string; targetCommit: string }[]
    }
    const map = (xs: { name: string; targetCommit: string }[] = []) => Object.fromEntries(xs.map((x) => [x.name, x.targetCommit]))
    return { branches: map(r.branches), tags: map(r.tags) }
  } catch (e) {
    throw hubError(e, `list the refs of ${repo}`, a)
  }
}

/** `POST /api/datasets/{repo}/tag/{commit}`; 'exists' when the Hub says the tag is taken (409). */
export async function tagCommit(repo: string, commit: string, tag: string, a: HubAccess): Promise<'created' | 'exists'> {
  try {
    await rest(a, 'POST', `/api/datasets/${repo}/tag/${encodeURIComponent(commit)}`, { tag })
    return 'created'
  } catch (e) {
    if (e instanceof HubApiError && e.statusCode === 409) return 'exists'
    throw hubError(e, `tag ${repo}@${commit} as ${tag}`, a)
  }
}
