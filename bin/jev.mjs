#!/usr/bin/env node
// Runs one of the CLIs: from dist/ when it was compiled after the last change
// to src/ (fast start), otherwise straight from src/ through tsx (always current).
import { existsSync, readdirSync, statSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const [command, ...args] = process.argv.slice(2)
// run.ts is the CLIs' shared helper, not a command
if (!command || !/^[a-z-]+$/.test(command) || command === 'run' || !existsSync(`${root}src/cli/${command}.ts`)) {
  const known = readdirSync(`${root}src/cli`).filter((f) => f.endsWith('.ts') && f !== 'run.ts').map((f) => f.slice(0, -3))
  process.stderr.write(`error[USAGE]: unknown command ${JSON.stringify(command ?? '')}\nhint: one of ${known.sort().join(', ')}\n`)
  process.exit(2)
}

function newestMtime(dir) {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

const stamp = `${root}dist/.stamp`
const compiled = existsSync(stamp) && statSync(stamp).mtimeMs >= newestMtime(`${root}src`)
let entry = `${root}dist/cli/${command}.js`
if (!compiled) {
  const { register } = await import('tsx/esm/api')
  register()
  entry = `${root}src/cli/${command}.ts`
}
process.argv = [process.argv[0], entry, ...args]
await import(pathToFileURL(entry).href)
