#!/usr/bin/env node
/** The `jev` command: the first argument names a command, the rest are its options. */
import { readFileSync } from 'node:fs'
import { COMMANDS } from './commands.ts'
import { type Io, runMain, stdio } from './run.ts'

const names = Object.keys(COMMANDS).join(', ')

async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...args] = argv
  if (command === '--version') {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string }
    io.out(`${pkg.name} ${pkg.version}`)
    return 0
  }
  if (command === '-h' || command === '--help') {
    io.out(`usage: jev COMMAND [options]   (npx jev …, or npm run COMMAND -- …)\n  COMMAND: ${names}`)
    io.out("  jev COMMAND -h prints a command's options; --version prints the builder's name and version")
    return 0
  }
  const load = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined
  if (!load) {
    io.err(`error[USAGE]: unknown command ${JSON.stringify(command ?? '')}\nhint: one of ${names}`)
    return 2
  }
  // --debug prints the stack through the source maps, so that it names src/*.ts lines
  if (args.includes('--debug')) process.setSourceMapsEnabled(true)
  return (await load())(args, process.env, io)
}

await runMain(() => main(process.argv.slice(2), stdio))
