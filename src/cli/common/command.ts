/**
 * A command declared once — its options with types, defaults and help — and
 * from that declaration: the parse, the typed values, the usage, -h/--help,
 * --version, --json and the USAGE errors. Over node's parseArgs, so no
 * dependency; all this builder needs of citty and the like.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util'
import { hintOf, isJevError, JevError } from '../../errors.ts'
import { didYouMean } from '../../util/did-you-mean.ts'
import { NO_PROGRESS, progressFor } from '../../util/progress.ts'
import { BUILDER } from '../../version.ts'
import type { Io } from '../run.ts'

export type Option =
  | { type: 'string'; arg: string; help: string; default?: string }
  | { type: 'boolean'; help: string; default?: boolean; short?: string }
export type Options = Record<string, Option>

/** The parsed values: booleans always set, strings set when they have a default. */
export type Values<O extends Options> = {
  -readonly [K in keyof O]: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { default: string } ? string : string | undefined
}

export interface CommandSpec<O extends Options> {
  name: string
  /** positionals in the synopsis ("[DIR]", "A B") and how many at most */
  args?: { synopsis: string; max: number }
  about: readonly string[]
  options: O
  /** lines after the options: environment, exit status */
  notes?: readonly string[]
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

export interface Command<O extends Options> {
  spec: CommandSpec<O>
  /** the synopsis, shown with a USAGE error */
  usage(): string
  /** the synopsis, what the command does and every option: -h, --help */
  help(): string
  parse(argv: string[], io: Io, env?: NodeJS.ProcessEnv): Parsed<O> | null
  /** Parses, runs `body` and prints its JSON under --json (text then goes to stderr); errors as {"error":…} there too. */
  main(argv: string[], env: NodeJS.ProcessEnv, io: Io, body: (p: Parsed<O>, io: Io) => Promise<Outcome>): Promise<number>
}

export function defineCommand<O extends Options>(spec: CommandSpec<O>): Command<O> {
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
    options: Object.entries(all).map(([name, o]) => ({ name, ...o })),
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

  async function main(argv: string[], env: NodeJS.ProcessEnv, io: Io, body: (p: Parsed<O>, io: Io) => Promise<Outcome>): Promise<number> {
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
        outcome = await body(parsed, bodyIo)
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
  return { spec, usage, help, parse, main }
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
