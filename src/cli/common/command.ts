/**
 * A command declared once — its options with types, defaults and help — and
 * from that declaration: the parse, the typed values, the usage, -h/--help,
 * --version, --json and the USAGE errors; and the library's params (the flags
 * in camelCase, the positionals by name, the params that are not flags), their
 * type and zod schema. Over node's parseArgs; all this builder needs of citty.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util'
import { z } from 'zod'
import { hintOf, isJevError, JevError } from '../../errors.ts'
import { didYouMean } from '../../util/did-you-mean.ts'
import { NO_PROGRESS, type Progress, progressFor } from '../../util/progress.ts'
import { scrub } from '../../util/secrets.ts'
import { BUILDER } from '../../version.ts'
import type { Io } from '../run.ts'

/** `number`: the flag takes a number (seconds, a count, bytes, a port), so the library takes a number too, as its text. */
export type Option =
  | { type: 'string'; arg: string; help: string; default?: string; number?: true }
  | { type: 'boolean'; help: string; default?: boolean; short?: string }
export type Options = Record<string, Option>

/** The library's params that are not flags, as zod schemas. */
export type ParamSchemas = Record<string, z.ZodType>
type NoParams = Record<never, never>

const fn = <T>() => z.custom<T>((v) => typeof v === 'function', 'must be a function')
const PROGRESS_METHODS = ['stage', 'file', 'rows', 'log', 'above', 'end'] as const

/** Params every command takes: the environment it reads, and where its lines go (HF_TOKEN scrubbed). */
export const BASE_PARAMS = {
  /** the environment the command reads (HF_TOKEN, HF_ENDPOINT, HF_HUB_OFFLINE, JEV_*); default process.env */
  env: z
    .custom<Record<string, string | undefined>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'must be an object')
    .optional(),
  /** gets each line the CLI would print (progress, warnings, a publish's steps), HF_TOKEN scrubbed; default: dropped */
  onLine: fn<(line: string) => void>().optional(),
}

/** Params a command may declare besides: a function of a given type, a progress display, a fetch. */
export const PARAMS = {
  fn: <T>() => fn<T>().optional(),
  /**
   * drawn as the command goes: stages, downloads, rows (terminalProgress, or your own); default none. The
   * caller ends it; its lines are not drawn around onLine's, so an onLine printing to the same terminal
   * should print through progress.log
   */
  progress: z
    .custom<Progress>(
      (v) => typeof v === 'object' && v !== null && PROGRESS_METHODS.every((m) => typeof (v as Record<string, unknown>)[m] === 'function'),
      'must be a Progress (stage, file, rows, log, above, end)',
    )
    .optional(),
  /** the fetch every request goes through (default globalThis.fetch) */
  fetch: fn<typeof fetch>().optional(),
}

/** Flags of the command line alone (how the result is printed), not params of the library. */
const CLI_ONLY = new Set(['json'])
type CliOnly = 'json'

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S
const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
type Simplify<T> = { [K in keyof T]: T[K] } & {}

/** The flags as params: camelCase, booleans boolean, strings string, numbers a number or its text. */
type FlagParams<O extends Options> = {
  [K in keyof O & string as K extends CliOnly ? never : Camel<K>]?:
    | (O[K] extends { type: 'boolean' } ? boolean : O[K] extends { number: true } ? string | number : string)
    | undefined
}

/** A command's params: its flags, its positionals by name, env, onLine and the params it declares; `R` required. */
export type Params<O extends Options, A extends string = never, P extends ParamSchemas = NoParams, R extends string = never> = Simplify<
  Omit<
    FlagParams<O> & { [N in A]?: string | undefined } & { [K in keyof (typeof BASE_PARAMS & P)]?: z.input<(typeof BASE_PARAMS & P)[K]> },
    R
  > & {
    [K in R & keyof (FlagParams<O> & { [N in A]?: string })]-?: Exclude<(FlagParams<O> & { [N in A]?: string })[K], undefined>
  }
>

/** The parsed values: booleans always set, strings set when they have a default. */
export type Values<O extends Options> = {
  -readonly [K in keyof O]: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { default: string } ? string : string | undefined
}

export interface CommandSpec<O extends Options, A extends string = never, P extends ParamSchemas = NoParams, R extends string = never> {
  name: string
  /** positionals in the synopsis ("[DIR]", "A B"), how many at most, and their names as params of the library */
  args?: { synopsis: string; max: number; names?: readonly A[] }
  about: readonly string[]
  options: O
  /** lines after the options: environment, exit status */
  notes?: readonly string[]
  /** the library's params that are not flags, besides env and onLine */
  params?: P
  /** params the library's type requires (the command itself says when one is missing, as on the command line) */
  required?: readonly R[]
}

export interface Parsed<O extends Options> {
  values: Values<O>
  positionals: string[]
}

/** What a command's body gives back: its JSON document, and the error it ends with, if any. */
export interface Outcome {
  json: unknown
  fail?: JevError
}

export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h', help: 'print this text' },
  version: { type: 'boolean', help: "print the builder's name and version" },
  debug: { type: 'boolean', help: 'print the stack trace of an error' },
} as const satisfies Options
export const JSON_OPTION = {
  json: {
    type: 'boolean',
    default: false,
    help: 'one JSON document on stdout (an error too: {"error":{code,message,hint}}); text goes to stderr',
  },
} as const
export const QUIET_OPTION = {
  quiet: {
    type: 'boolean',
    default: false,
    help: 'no progress: neither the lines (downloads, retries, waits for the cache lock, publishing steps) nor the display on a terminal; results, warnings and errors still print',
  },
} as const

const label = (name: string, o: Option) =>
  o.type === 'string' ? `--${name} ${o.arg}` : 'short' in o && o.short ? `-${o.short}, --${name}` : `--${name}`
const line = (l: string, help: string, width: number) => `  ${l.padEnd(width)} ${help}`

/** What a library call gives the command: the params as the values and positionals its parser would give, env and io. */
export interface Call<O extends Options, Pa> {
  values: Values<O>
  positionals: string[]
  params: Pa
  env: NodeJS.ProcessEnv
  io: Io
}

/** The command as a library function: one params object; `io` only from the command line, which prints out and err apart. */
export type LibraryFn<Pa, T> = NoParams extends Pa ? (params?: Pa, io?: Io) => Promise<T> : (params: Pa, io?: Io) => Promise<T>

export interface Command<O extends Options, A extends string = never, P extends ParamSchemas = NoParams, R extends string = never> {
  spec: CommandSpec<O, A, P, R>
  /** the library's params, checked: unknown keys refused, types as declared */
  schema: z.ZodType<Params<O, A, P, R>>
  /** the synopsis, shown with a USAGE error */
  usage(): string
  /** the synopsis, what the command does and every option: -h, --help */
  help(): string
  parse(argv: string[], io: Io, env?: NodeJS.ProcessEnv): Parsed<O> | null
  /** Parses, runs `body` and prints its JSON under --json (text then goes to stderr); errors as {"error":…} there too. */
  main(
    argv: string[],
    env: NodeJS.ProcessEnv,
    io: Io,
    body: (p: Parsed<O> & { params: Params<O, A, P, R> }, io: Io) => Promise<Outcome>,
  ): Promise<number>
  /** The library function: params checked and turned into the parser's values, then `run`. */
  library<T>(run: (call: Call<O, Params<O, A, P, R>>) => Promise<T>): LibraryFn<Params<O, A, P, R>, T>
}

export function defineCommand<
  O extends Options,
  const A extends string = never,
  P extends ParamSchemas = NoParams,
  const R extends string = never,
>(spec: CommandSpec<O, A, P, R>): Command<O, A, P, R> {
  const all: Options = { ...spec.options, ...COMMON_OPTIONS }
  const synopsis = () => {
    // a flag the arguments' synopsis already shows (diff-dataset's --rev REV) is not repeated
    const flags = Object.entries(spec.options)
      .filter(([n]) => !spec.args?.synopsis.includes(`--${n} `))
      .map(([n, o]) => `[${label(n, o).replace(/^-\w, /, '')}]`)
    const words = [`usage: npm run ${spec.name} --`, ...(spec.args ? [spec.args.synopsis] : []), ...flags, '[--debug]']
    const lines = ['']
    for (const w of words)
      lines[lines.length - 1]!.length + w.length > 118
        ? lines.push(`    ${w}`)
        : (lines[lines.length - 1] += `${lines[lines.length - 1] ? ' ' : ''}${w}`)
    return lines
  }
  const help = () => {
    // one column for the help texts, however long the longest label (--max-retry-after S)
    const width = Math.max(16, ...Object.entries(all).map(([n, o]) => label(n, o).length))
    const opts = Object.entries(all).map(([n, o]) =>
      line(label(n, o), `${o.help}${o.type === 'string' && o.default !== undefined ? ` (default ${o.default})` : ''}`, width),
    )
    return [...synopsis(), ...spec.about.map((l) => `  ${l}`), ...opts, ...(spec.notes ?? [])].join('\n')
  }
  const usage = () => synopsis().join('\n')
  // --help --json: the same declaration as data
  const helpJson = () => ({
    command: spec.name,
    usage: usage(),
    about: spec.about,
    options: Object.entries(all).map(([name, o]) => {
      const { number: _, ...shown } = o as Option & { number?: true }
      return { name, ...shown }
    }),
    notes: spec.notes ?? [],
  })
  const usageError = (message: string, hint?: string) => new JevError('USAGE', message, { usage: usage(), ...(hint ? { hint } : {}) })
  // node's own text advises `--` for positionals; ours names the option and, when one is close, the one meant
  const unknownOption = (argv: string[], options: NonNullable<ParseArgsConfig['options']>) => {
    const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true })
    const token = tokens.find((t) => t.kind === 'option' && !Object.hasOwn(options, t.name))
    const raw = token?.kind === 'option' ? token.rawName : '?'
    const hint = token?.kind === 'option' && token.rawName.startsWith('--') ? didYouMean(token.name, Object.keys(options), '--') : null
    return hint
      ? new JevError('USAGE', `unknown option ${raw}`, { usage: null, hint })
      : usageError(`unknown option ${raw}`, `${spec.name} has no option ${raw}; the usage above lists them, -h says what each does`)
  }

  function parse(argv: string[], io: Io, env: NodeJS.ProcessEnv = process.env): Parsed<O> | null {
    const options: NonNullable<ParseArgsConfig['options']> = Object.fromEntries(
      Object.entries(all).map(([n, o]) => [
        n,
        {
          type: o.type,
          ...('short' in o && o.short ? { short: o.short } : {}),
          ...(o.default !== undefined ? { default: o.default } : {}),
        },
      ]),
    )
    let parsed: ReturnType<typeof parseArgs>
    try {
      parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw unknownOption(argv, options)
      throw usageError((e as Error).message)
    }
    const values = parsed.values as Record<string, unknown>
    if (values.help) {
      io.out(values.json ? JSON.stringify(helpJson()) : help())
      return null
    }
    if (values.version) {
      io.out(values.json ? JSON.stringify({ name: BUILDER.name, version: BUILDER.version }) : `${BUILDER.name} ${BUILDER.version}`)
      return null
    }
    const max = spec.args?.max ?? 0
    // `npm run x --mirror DIR` without `--`: npm keeps --mirror (as npm_config_mirror=true) and passes DIR alone
    const taken = env.npm_lifecycle_event
      ? Object.keys(spec.options).filter((n) => env[`npm_config_${n.replaceAll('-', '_')}`] === 'true' && !argv.includes(`--${n}`))
      : []
    const flags = taken.map((n) => `--${n}`).join(' ')
    if (parsed.positionals.length <= max && taken.length)
      io.err(
        `warning: npm took ${flags} for itself, so ${spec.name} ran without; npm passes on only what follows --: npm run ${spec.name} -- ${flags}`,
      )
    if (parsed.positionals.length > max) {
      const extra = parsed.positionals[max]!
      throw usageError(
        `unexpected argument ${JSON.stringify(extra)}${taken.length ? `: npm took ${flags} for itself` : ''}`,
        // with several flags taken, which value went with which is lost: show each with its placeholder
        taken.length === 1
          ? `npm passes on only what follows --: npm run ${spec.name} -- ${flags} ${extra}`
          : taken.length
            ? `npm passes on only what follows --: npm run ${spec.name} -- ${taken.map((n) => label(n, spec.options[n]!)).join(' ')}`
            : undefined,
      )
    }
    return { values: values as Values<O>, positionals: parsed.positionals }
  }

  type Pa = Params<O, A, P, R>
  const names: readonly string[] = spec.args?.names ?? []
  const flagKeys = new Map(
    Object.entries(spec.options)
      .filter(([n]) => !CLI_ONLY.has(n))
      .map(([n, o]) => [camel(n), [n, o] as const]),
  )
  const shape: Record<string, z.ZodType> = {}
  for (const [key, [, o]] of flagKeys)
    shape[key] = (
      o.type === 'boolean' ? z.boolean() : 'number' in o && o.number ? z.union([z.string(), z.number()]) : z.string()
    ).optional()
  for (const n of names) shape[n] = z.string().optional()
  Object.assign(shape, BASE_PARAMS, spec.params)
  const schema = z.strictObject(shape) as unknown as z.ZodType<Pa>

  /** The parsed command line as the library's params: the same call either way. */
  const paramsOf = (parsed: Parsed<O>, env: NodeJS.ProcessEnv): Pa => {
    const params: Record<string, unknown> = { env }
    for (const [key, [n]] of flagKeys) if (parsed.values[n] !== undefined) params[key] = parsed.values[n]
    names.forEach((n, i) => {
      if (parsed.positionals[i] !== undefined) params[n] = parsed.positionals[i]
    })
    return params as Pa
  }

  /** The params checked, as the values the parser would give for the same flags, defaults filled in. */
  const take = (input: unknown, given?: Io): Call<O, Pa> => {
    const raw = input ?? {}
    if (typeof raw !== 'object' || Array.isArray(raw))
      throw new JevError('USAGE', `${spec.name}: the params must be an object`, { usage: null })
    const known = Object.keys(shape)
    for (const key of Object.keys(raw))
      if (!Object.hasOwn(shape, key))
        throw new JevError('USAGE', `${spec.name} has no param ${JSON.stringify(key)}`, {
          usage: null,
          hint: didYouMean(key, known) ?? `its params: ${known.join(', ')}`,
        })
    const parsed = schema.safeParse(raw)
    if (!parsed.success)
      throw new JevError('USAGE', `bad params of ${spec.name}: ${z.prettifyError(parsed.error).replaceAll('\n', '; ')}`, { usage: null })
    const params = parsed.data as Pa & { env?: NodeJS.ProcessEnv; onLine?: (line: string) => void; progress?: Progress }
    const values: Record<string, unknown> = {}
    for (const [n, o] of Object.entries(spec.options)) {
      const v = CLI_ONLY.has(n) ? undefined : (params as Record<string, unknown>)[camel(n)]
      values[n] = v === undefined ? (o.default ?? (o.type === 'boolean' ? false : undefined)) : typeof v === 'number' ? String(v) : v
    }
    const positionals = names.map((n) => (params as Record<string, unknown>)[n]).filter((p): p is string => typeof p === 'string')
    const env = params.env ?? process.env
    const line = (l: string) => params.onLine?.(scrub(l, env))
    const io: Io = given ?? { out: line, err: line, ...(params.progress ? { progress: params.progress } : {}) }
    return { values: values as Values<O>, positionals, params, env, io }
  }

  function library<T>(run: (call: Call<O, Pa>) => Promise<T>): LibraryFn<Pa, T> {
    return (async (params?: Pa, io?: Io) => run(take(params, io))) as LibraryFn<Pa, T>
  }

  async function main(
    argv: string[],
    env: NodeJS.ProcessEnv,
    io: Io,
    body: (p: Parsed<O> & { params: Pa }, io: Io) => Promise<Outcome>,
  ): Promise<number> {
    const json = 'json' in spec.options && argv.includes('--json')
    let printed = false
    try {
      const parsed = parse(argv, io, env)
      if (!parsed) return 0
      const text = json ? { out: io.err, err: io.err } : io
      // the commands that read sources (they take --quiet) draw progress on a TTY stderr; every line
      // printed meanwhile goes above the bars, and the bars are gone before the result is printed
      const progress = 'quiet' in spec.options && io.terminal ? progressFor(io.terminal, env, parsed.values.quiet === true) : NO_PROGRESS
      const bodyIo: Io = { out: (l) => progress.above(() => text.out(l)), err: (l) => progress.above(() => text.err(l)), progress }
      let outcome: Outcome
      try {
        outcome = await body({ ...parsed, params: paramsOf(parsed, env) }, bodyIo)
      } finally {
        progress.end()
      }
      if (json) {
        const doc = outcome.json !== null && typeof outcome.json === 'object' ? outcome.json : { result: outcome.json }
        io.out(JSON.stringify(outcome.fail ? { ...doc, error: errorJson(outcome.fail) } : doc))
        printed = true
      }
      if (outcome.fail) throw outcome.fail
      return 0
    } catch (e) {
      if (isJevError(e) && e.code === 'USAGE' && e.context.usage === undefined) e.context.usage = usage()
      if (json && !printed) io.out(JSON.stringify({ error: errorJson(e) }))
      throw e
    }
  }
  return { spec, schema, usage, help, parse, main, library }
}

/** An error as the JSON output carries it. */
export function errorJson(e: unknown): { code: string; message: string; hint: string } {
  if (isJevError(e)) return { code: e.code, message: e.message, hint: hintOf(e) }
  return {
    code: 'INTERNAL',
    message: (e as Error)?.message ?? String(e),
    hint: 'this is a bug in the builder; rerun with --debug for a stack trace',
  }
}
