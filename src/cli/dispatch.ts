/**
 * The top level of `jev`: picks the command, or answers itself when there is none to run
 * (the command list, --help and --version, as text or with --json as JSON, and USAGE errors
 * for no command or a mistyped one). The commands come as data, so the caller decides how each runs.
 */

import { JevError } from '../errors.ts'
import { didYouMean } from '../util/did-you-mean.ts'
import { BUILDER } from '../version.ts'
import { errorJson } from './common/command.ts'
import { type Io, runCli } from './run.ts'

export { stdio } from './run.ts'

/** Runs one command with the arguments after its name and gives its exit status. */
export type RunCommand = (command: string, args: string[]) => Promise<number>

const TOP_FLAGS = ['help', 'version', 'json', 'debug']

/** The top-level usage: how to name a command, and which there are. */
export function topUsage(commands: readonly string[]): string {
  return [
    'usage: jev COMMAND [options]   (npx jev …, or npm run COMMAND -- …)',
    `  COMMAND: ${commands.join(', ')}`,
    "  jev COMMAND -h prints a command's options; --version prints the builder's name and version",
  ].join('\n')
}

/** `jev ARGV…`: the command's exit status when `argv` names one, else the top level's own answer's. */
export async function dispatch(argv: string[], io: Io, commands: readonly string[], run?: RunCommand): Promise<number> {
  const [first, ...rest] = argv
  if (first !== undefined && commands.includes(first)) {
    if (!run) throw new Error(`dispatch: no way to run ${first} was given`)
    return run(first, rest)
  }
  const json = argv.includes('--json')
  return runCli(
    async () => {
      try {
        return top(argv, io, commands, json)
      } catch (e) {
        if (json) io.out(JSON.stringify({ error: errorJson(e), commands }))
        throw e
      }
    },
    io,
    false,
  )
}

function top(argv: string[], io: Io, commands: readonly string[], json: boolean): number {
  const usage = topUsage(commands)
  const [first] = argv
  if (first !== undefined && !first.startsWith('-')) {
    const near = didYouMean(first, commands)
    throw new JevError('USAGE', `unknown command ${JSON.stringify(first)}`, {
      usage: null,
      hint: near ?? `one of ${commands.join(', ')}`,
    })
  }
  const flags = new Set<string>()
  for (const a of argv) {
    if (a === '-h') flags.add('help')
    else if (a.startsWith('--') && TOP_FLAGS.includes(a.slice(2))) flags.add(a.slice(2))
    else if (commands.includes(a))
      throw new JevError('USAGE', `${a} comes after ${argv[0]}`, {
        usage: null,
        hint: `the command comes first: jev ${a} ${argv.filter((x) => x !== a).join(' ')}`,
      })
    else if (a.startsWith('-')) {
      const near = a.startsWith('--') ? didYouMean(a.slice(2).replace(/=.*/, ''), TOP_FLAGS, '--') : null
      throw new JevError('USAGE', `unknown option ${a}`, {
        usage: near ? null : usage,
        hint: near ?? `jev itself takes only ${TOP_FLAGS.map((f) => `--${f}`).join(', ')}; a command's options follow its name`,
      })
    } else throw new JevError('USAGE', `unexpected argument ${JSON.stringify(a)}`, { usage, hint: 'name the command first' })
  }
  if (flags.has('version')) {
    io.out(json ? JSON.stringify({ name: BUILDER.name, version: BUILDER.version }) : `${BUILDER.name} ${BUILDER.version}`)
    return 0
  }
  if (flags.has('help')) {
    io.out(json ? JSON.stringify({ name: BUILDER.name, version: BUILDER.version, usage: 'jev COMMAND [options]', commands }) : usage)
    return 0
  }
  throw new JevError('USAGE', 'no command given', {
    usage,
    hint: 'name one of the commands above; jev COMMAND -h prints its options',
  })
}
