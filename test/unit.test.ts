/**
 * The `*.unit.ts` files, in one process. They touch no process state (environment, working folder, exit
 * status, signal handlers, child processes) and leave nothing running, so they can share one: a process
 * of their own each costs more than most of them do (docs/performance.md has the figures). Each file is
 * a suite of its own, so its top-level hooks and an error on import stay its own. One alone runs as any
 * test file does: `node --import tsx --import ./test/helpers/hermetic.ts --test test/x.unit.ts`.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'

// compiled (npm test) the files are .js beside this one, from source .ts
const ext = import.meta.url.endsWith('.js') ? '.unit.js' : '.unit.ts'
const here = fileURLToPath(new URL('.', import.meta.url))
const files = readdirSync(here, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith(ext))
  .sort()
if (files.length === 0) throw new Error(`no *${ext} file under ${here}`)
for (const file of files)
  describe(file, async () => {
    await import(pathToFileURL(join(here, file)).href)
  })
