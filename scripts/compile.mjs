// src/ → dist/, then the stamp bin/jev.mjs checks: the hash of src/ as tsc read
// it, so an edit made while it ran leaves dist/ marked stale.
import { spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compiledIsCurrent, srcHash, stampPath } from '../bin/src-hash.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
// --if-stale (npm test): nothing to do when dist/ is already current for src/
const ifStale = process.argv.includes('--if-stale')
if (ifStale && compiledIsCurrent(root)) process.exit(0)
const before = srcHash(root)
rmSync(stampPath(root), { force: true })
// from empty: a module deleted from src/ must not live on in dist/ under a current stamp
rmSync(join(root, 'dist'), { recursive: true, force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: ifStale ? 'pipe' : 'inherit' })
if (r.status !== 0) {
  // for npm test a type error is typecheck's to report: the CLIs then run from src/ through tsx
  if (ifStale) {
    process.stderr.write('compile: tsc failed (see npm run typecheck); the CLIs will run from src/ through tsx\n')
    process.exit(0)
  }
  process.exit(r.status ?? 1)
}
writeFileSync(stampPath(root), before)
