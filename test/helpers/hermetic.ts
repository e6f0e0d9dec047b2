/**
 * Loaded into every test process (`npm test` passes `--import` for it): a home
 * folder of the process's own, so a command run in-process with an environment
 * of its own, or a child started with this one, finds its default caches (the
 * Hugging Face cache, the cache of prepared sources) there and never in the
 * user's ~/.cache, and no two test files share one by accident (the `*.unit.ts` files share
 * test/unit.test.ts's). Removed on exit.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const home = mkdtempSync(join(tmpdir(), 'jev-test-home-'))
process.env.HOME = home
for (const k of ['XDG_CACHE_HOME', 'HF_HOME', 'HF_HUB_CACHE', 'JEV_PREPARED_CACHE']) delete process.env[k]
process.on('exit', () => rmSync(home, { recursive: true, force: true }))
