#!/usr/bin/env node
// Runs one of the CLIs: from bundle/ or else dist/ when it was compiled from
// the src/ there is now (fast start; see src-hash.mjs), otherwise straight
// from src/ through tsx (always current).
import { readdirSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { commandEntry } from './src-hash.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const [command, ...args] = process.argv.slice(2)
// run.ts is the CLIs' shared helper and dispatch.ts the top level, not commands
const commands = readdirSync(`${root}src/cli`)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && f !== 'dispatch.ts')
  .map((f) => f.slice(0, -3))
  .sort()
if (!commands.includes(command)) {
  // no command, a flag or a mistyped name: the command list, --help, --version (with --json too) or a USAGE error
  const { dispatch, stdio } = await import(pathToFileURL(await commandEntry(root, 'dispatch')).href)
  process.exitCode = await dispatch(process.argv.slice(2), stdio, commands)
} else {
  // --debug prints the stack: compiled, through its source maps, so that it names src/*.ts lines
  if (args.includes('--debug')) process.setSourceMapsEnabled(true)
  const entry = await commandEntry(root, command)
  process.argv = [process.argv[0], entry, ...args]
  await import(pathToFileURL(entry).href)
}
