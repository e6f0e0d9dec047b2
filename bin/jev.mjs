#!/usr/bin/env node
// Runs one of the CLIs: from bundle/ or else dist/ when it was compiled from
// the src/ there is now (fast start; see src-hash.mjs), otherwise straight
// from src/ through tsx (always current).
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { commandEntry } from './src-hash.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const [command, ...args] = process.argv.slice(2)
const commands = () =>
  readdirSync(`${root}src/cli`)
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
    .map((f) => f.slice(0, -3))
    .sort()
if (command === '--version') {
  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'))
  process.stdout.write(`${pkg.name} ${pkg.version}\n`)
  process.exit(0)
}
if (command === '-h' || command === '--help') {
  process.stdout.write(
    `usage: jev COMMAND [options]   (npx jev …, or npm run COMMAND -- …)\n  COMMAND: ${commands().join(', ')}\n  jev COMMAND -h prints a command's options; --version prints the builder's name and version\n`,
  )
  process.exit(0)
}
// run.ts is the CLIs' shared helper, not a command
if (!command || !/^[a-z-]+$/.test(command) || command === 'run' || !existsSync(`${root}src/cli/${command}.ts`)) {
  process.stderr.write(`error[USAGE]: unknown command ${JSON.stringify(command ?? '')}\nhint: one of ${commands().join(', ')}\n`)
  process.exit(2)
}

// --debug prints the stack: compiled, through its source maps, so that it names src/*.ts lines
if (args.includes('--debug')) process.setSourceMapsEnabled(true)
const entry = await commandEntry(root, command)
process.argv = [process.argv[0], entry, ...args]
await import(pathToFileURL(entry).href)
