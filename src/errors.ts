/** Stable error codes; the CLI maps each class to an exit status. */
export const ERROR_CODES = {
  RECIPE: { exit: 2, hint: 'fix the recipe at the JSON paths listed' },
  USAGE: { exit: 2, hint: 'see --help' },
  BUILDER: { exit: 2, hint: 'build an earlier version with the builder that made it (README: "Earlier versions")' },
  SCHEMA: { exit: 3, hint: 'the upstream file does not have the expected columns or types' },
  DATA: { exit: 3, hint: 'an upstream row is malformed; see the file, row and field named' },
  QUOTA: { exit: 4, hint: 'the recipe asks for more questions, or more options, than the named source or group can give' },
  SCREEN: {
    exit: 4,
    hint: "the selected items need options that no reviewer's mark covers: screen them with jev screen, then build again",
  },
  LOCK: { exit: 5, hint: 'the sources differ from the lock; check them, or rebuild with --update-lock to accept the change' },
  INTEGRITY: { exit: 5, hint: 'bytes did not match their expected hash; the partial file was discarded' },
  NETWORK: { exit: 6, hint: 'check the network or HF_ENDPOINT and try again' },
  AUTH: { exit: 6, hint: 'set HF_TOKEN to a token with access to the repo' },
  NOT_FOUND: { exit: 6, hint: 'check the repo name, revision and file path named' },
  OFFLINE: { exit: 6, hint: 'run once without --offline (and without HF_HUB_OFFLINE) to fill the cache, or use --mirror' },
  IO: { exit: 7, hint: 'check the path and its permissions' },
  CHECK: { exit: 8, hint: 'the built dataset does not meet the spec' },
  CARD: {
    exit: 8,
    hint: "the card's front matter is not what the Hub accepts; fix the recipe fields behind the values listed and rebuild",
  },
  CONFLICT: {
    exit: 10,
    hint: 'the repo changed while publishing, or the tag already names other files; run publish again to re-plan, or choose a new tag',
  },
  DIFF: { exit: 11, hint: 'the two builds differ; the lines above (or --json) say how' },
  VERIFY: {
    exit: 9,
    hint: 'the folder is not what the recipe, lock and builder produce; rebuild it (for out/, commit it and the lock together)',
  },
} as const

export type ErrorCode = keyof typeof ERROR_CODES

export interface ErrorContext {
  source?: string
  repo?: string
  revision?: string
  file?: string
  row?: number
  field?: string
  id?: string
  group?: string
  status?: number
  /** what to do, where the code's own hint does not fit this case */
  hint?: string
  /** a USAGE error's command synopsis, printed before the hint; null: the error is not about how the command was typed */
  usage?: string | null
  [key: string]: unknown
}

export class JevError extends Error {
  readonly code: ErrorCode
  readonly context: ErrorContext

  constructor(code: ErrorCode, message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'JevError'
    this.code = code
    this.context = context
  }
}

export function isJevError(e: unknown): e is JevError {
  return e instanceof JevError
}

/** The hint printed with an error: its own, when it carries one, else its code's. */
export function hintOf(e: JevError): string {
  return typeof e.context.hint === 'string' ? e.context.hint : ERROR_CODES[e.code].hint
}
