/**
 * How long any network wait may last: one table of settings, each an environment variable and a
 * flag (the flag wins), in seconds or bytes per second. The defaults make every fault end in a
 * typed error within about two minutes; a slow but working link can be given more.
 */
import { JevError } from '../errors.ts'

export interface NetBounds {
  /** no response headers, or no body bytes, for this long fails the attempt */
  timeoutMs: number
  /** a body slower than this (bytes/s) over `rateWindowMs` fails the attempt (0: no minimum) */
  minRate: number
  rateWindowMs: number
  /** the longest Retry-After waited out; a longer one ends the retries with a typed error */
  maxRetryAfterMs: number
  /** all attempts and waits for one file, or one publish request, together */
  fileDeadlineMs: number
}

interface Setting {
  key: keyof NetBounds
  flag: string
  env: string
  default: number
  unit: 's' | 'bytes/s'
}

export const BOUND_SETTINGS: readonly Setting[] = [
  { key: 'timeoutMs', flag: 'http-timeout', env: 'JEV_HTTP_TIMEOUT', default: 30_000, unit: 's' },
  { key: 'minRate', flag: 'min-rate', env: 'JEV_MIN_RATE', default: 1024, unit: 'bytes/s' },
  { key: 'rateWindowMs', flag: 'rate-window', env: 'JEV_RATE_WINDOW', default: 30_000, unit: 's' },
  { key: 'maxRetryAfterMs', flag: 'max-retry-after', env: 'JEV_MAX_RETRY_AFTER', default: 60_000, unit: 's' },
  { key: 'fileDeadlineMs', flag: 'file-deadline', env: 'JEV_FILE_DEADLINE', default: 120_000, unit: 's' },
]

export const DEFAULT_BOUNDS = Object.fromEntries(BOUND_SETTINGS.map((s) => [s.key, s.default])) as unknown as NetBounds

/** What a message tells the user to set: `set JEV_FILE_DEADLINE or --file-deadline`. */
export function settingOf(key: keyof NetBounds): string {
  const s = BOUND_SETTINGS.find((x) => x.key === key)!
  return `set ${s.env} or --${s.flag}`
}

/** The bounds from flags (strings, as parseArgs gives them) over the environment over the defaults. */
export function boundsFrom(values: Record<string, unknown>, env: NodeJS.ProcessEnv): NetBounds {
  const out = { ...DEFAULT_BOUNDS }
  for (const s of BOUND_SETTINGS) {
    const flag = values[s.flag]
    const [raw, from] = typeof flag === 'string' ? [flag, `--${s.flag}`] : [env[s.env], s.env]
    if (raw === undefined || raw === '') continue
    const n = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN
    if (!Number.isFinite(n) || (n <= 0 && s.key !== 'minRate'))
      throw new JevError(
        'USAGE',
        `${from} ${JSON.stringify(raw)} is not a ${s.key === 'minRate' ? 'number' : 'positive number'} of ${s.unit}`,
      )
    out[s.key] = s.unit === 's' ? Math.round(n * 1000) : n
  }
  return out
}
