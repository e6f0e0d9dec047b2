/**
 * Preloaded into a child (`--import`), it stops the process at one file-system call, so a test can
 * SIGKILL it at that exact point, or act while it waits:
 * JEV_TEST_PAUSE=`<rename|rm|readFile>|<regex on the first path>|<before|after>[|<n>[|<resume file>]]`.
 * It stops at the n-th matching call (default the first) and prints `paused <path>` to stderr; with a
 * resume file it goes on once that file exists (and stops no more), else it stays stopped until killed.
 * Node's own fs is wrapped, not the builder's code.
 */
import { existsSync } from 'node:fs'
import fsp from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'

const spec = process.env.JEV_TEST_PAUSE
if (spec) {
  const [fn, pattern, when, nth = '1', resume] = spec.split('|') as [
    'rename' | 'rm' | 'readFile',
    string,
    'before' | 'after',
    string?,
    string?,
  ]
  const re = new RegExp(pattern)
  const orig = fsp[fn] as (...a: unknown[]) => Promise<unknown>
  let seen = 0
  const halt = (path: string): Promise<void> => {
    process.stderr.write(`paused ${path}\n`)
    if (resume === undefined) {
      setInterval(() => {}, 1 << 30) // kept alive until killed
      return new Promise<never>(() => {})
    }
    return new Promise<void>((ok) => {
      const poll = () => (existsSync(resume) ? ok() : setTimeout(poll, 10))
      poll()
    })
  }
  ;(fsp as Record<string, unknown>)[fn] = async (...args: unknown[]) => {
    const path = String(args[0])
    if (!re.test(path) || ++seen !== Number(nth)) return orig(...args)
    if (when === 'before') {
      await halt(path)
      return orig(...args)
    }
    const result = await orig(...args)
    await halt(path)
    return result
  }
  syncBuiltinESMExports()
}
