/** Where the Hub and its cache are, from the environment, as Python's huggingface_hub reads it. */
import { join } from 'node:path'
import { JevError } from '../errors.ts'

/** Same lookup order as Python huggingface_hub, so both share one cache. */
export function resolveCacheDir(env: NodeJS.ProcessEnv, homedir: string): string {
  const expand = (p: string) => (p === '~' || p.startsWith('~/') ? join(homedir, p.slice(1)) : p)
  if (env.HF_HUB_CACHE) return expand(env.HF_HUB_CACHE)
  if (env.HF_HOME) return join(expand(env.HF_HOME), 'hub')
  const base = env.XDG_CACHE_HOME ? expand(env.XDG_CACHE_HOME) : join(homedir, '.cache')
  return join(base, 'huggingface', 'hub')
}

function isHttpUrl(s: string): boolean {
  // the URL parser forgives white space around it; a request built from the raw value would not
  if (/\s/.test(s)) return false
  try {
    return /^https?:$/.test(new URL(s).protocol)
  } catch {
    return false
  }
}

/** The JS client reads no environment variables itself. */
export function hubOptionsFromEnv(env: NodeJS.ProcessEnv): { endpoint?: string; token?: string } {
  // checked before any request: a bad value fails every request the same way
  if (env.HF_ENDPOINT && !isHttpUrl(env.HF_ENDPOINT))
    throw new JevError('USAGE', `HF_ENDPOINT ${JSON.stringify(env.HF_ENDPOINT)} is not an http:// or https:// URL`)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what a malformed token holds
  if (env.HF_TOKEN && /[\s\x00-\x1f\x7f]/.test(env.HF_TOKEN))
    throw new JevError('AUTH', 'HF_TOKEN is malformed: it holds white space or a control character')
  return {
    ...(env.HF_ENDPOINT ? { endpoint: env.HF_ENDPOINT.replace(/\/+$/, '') } : {}),
    ...(env.HF_TOKEN ? { token: env.HF_TOKEN } : {}),
  }
}
