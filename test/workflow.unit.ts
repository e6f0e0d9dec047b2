/** .github/workflows/verify.yml cannot run here: parsed as YAML, its commands and cache are checked against the project. */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { parse } from 'yaml'
import { resolveCacheDir } from '../src/fetch/hub.ts'
import { ROOT } from './helpers/cli.ts'

interface Step {
  uses?: string
  run?: string
  with?: Record<string, unknown>
}
const workflow = parse(await readFile(join(ROOT, '.github/workflows/verify.yml'), 'utf8')) as {
  on: unknown
  jobs: Record<string, { env?: Record<string, string>; steps: Step[] }>
}
const scripts = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
const job = workflow.jobs.verify!
const runs = job.steps.map((s) => s.run).filter((r): r is string => typeof r === 'string')

/** Every npm command of a `run:` block: `npm ci`, `npm test` or `npm run NAME`. */
function npmCommands(script: string): string[] {
  return [...script.matchAll(/\bnpm\s+(ci|test|run\s+[\w:-]+|[\w-]+)/g)].map((m) => m[1]!.replace(/\s+/g, ' '))
}

test('verify.yml: npm ci, then the tests, then verify-dataset; every npm script it runs exists in package.json', () => {
  const commands = runs.flatMap(npmCommands)
  assert.deepEqual(commands.slice(0, 3), ['ci', 'test', 'run verify-dataset'])
  for (const c of commands) {
    if (c === 'ci') continue
    const name = c === 'test' ? 'test' : c.replace(/^run /, '')
    assert.ok(c === 'test' || c.startsWith('run '), `npm ${c}: only npm ci, npm test and npm run are used`)
    assert.ok(name in scripts, `npm ${c}: package.json has no script "${name}"`)
  }
})

test('verify.yml: the Hugging Face cache is restored before verifying and keyed by the lock hash, in the folder the builder reads', () => {
  const i = job.steps.findIndex((s) => s.uses?.startsWith('actions/cache@'))
  const v = job.steps.findIndex((s) => s.run !== undefined && npmCommands(s.run).includes('run verify-dataset'))
  assert.ok(i >= 0 && v > i, 'actions/cache (restore now, save after the job) comes before verify-dataset')
  const cache = job.steps[i]!.with!
  const lock = /hashFiles\('([^']+)'\)/.exec(String(cache.key))?.[1]
  assert.equal(lock, 'recipes/jev-bench.lock.json')
  assert.ok(existsSync(join(ROOT, lock)), 'the key hashes a file that exists (hashFiles of nothing is empty)')
  const home = '/home/runner'
  const expand = (p: string) => p.replace(/^~(?=\/|$)/, home)
  assert.equal(resolveCacheDir(job.env ?? {}, home), expand(String(cache.path)), "the cached folder is the builder's cache")
})
