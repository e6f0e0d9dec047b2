/**
 * Preloaded into a child (`--import`), it stops the process for good at one file-system call,
 * so a test can SIGKILL it at that exact point: JEV_TEST_PAUSE=`<rename|rm>|<regex on the first path>|<before|after>`.
 * Node's own fs is wrapped, not the builder's code; on the pause it prints `paused <path>` to stderr.
 */
import fsp from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'

const spec = process.env.JEV_TEST_PAUSE
if (spec) {
  const [fn, pattern, when] = spec.split('|') as ['rename' | 'rm', string, 'before' | 'after']
  const re = new RegExp(pattern)
  const orig = fsp[fn] as (...a: unknown[]) => Promise<void>
  const halt = (path: string): Promise<never> => {
    process.stderr.write(`paused ${path}\n`)
    setInterval(() => {}, 1 << 30) // kept alive until killed
    return new Promise<never>(() => {})
  }
  ;(fsp as Record<string, unknown>)[fn] = async (...args: unknown[]) => {
    const path = String(args[0])
    if (!re.test(path)) return orig(...args)
    if (when === 'before') return halt(path)
    await orig(...args)
    return halt(path)
  }
  syncBuiltinESMExports()
}
