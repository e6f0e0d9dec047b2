/**
 * The `*.unit.ts` files, in one process. They test code that touches no process state (environment, working
 * folder, exit status, signals, child processes, servers), so they can share one: a process of their own each
 * costs more than most of them do (docs/performance.md has the figures). One alone runs as any test file does:
 * `node --import tsx --import ./test/helpers/hermetic.ts --test test/x.unit.ts`.
 */
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

// compiled (npm test) the files are .js beside this one, from source .ts
const ext = import.meta.url.endsWith('.js') ? '.unit.js' : '.unit.ts'
const here = fileURLToPath(new URL('.', import.meta.url))
for (const file of readdirSync(here, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith(ext))
  .sort())
  await import(new URL(file, import.meta.url).href)
