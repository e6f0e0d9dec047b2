// src/ → dist/, then the stamp bin/jev.mjs checks: the hash of src/ as tsc read
// it, so an edit made while it ran leaves dist/ marked stale.
import { spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { srcHash, stampPath } from '../bin/src-hash.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const before = srcHash(root)
rmSync(stampPath(root), { force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
if (r.status !== 0) process.exit(r.status ?? 1)
writeFileSync(stampPath(root), before)
