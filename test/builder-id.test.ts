import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { srcHash } from '../bin/src-hash.mjs'
import { builderId } from '../src/prepared-cache/builder-id.ts'
import { canonicalJson } from '../src/util/canonical.ts'
import { sha256Hex } from '../src/util/hash.ts'
import { ROOT } from './helpers/cli.ts'

test("the builder's identity covers its code (src/'s hash, as dist's stamp holds it), its runtime dependencies' installed versions and the runtime's Unicode tables", async () => {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  const deps: Record<string, string | null> = {}
  for (const n of Object.keys(pkg.dependencies).sort())
    deps[n] = (JSON.parse(await readFile(join(ROOT, 'node_modules', n, 'package.json'), 'utf8')) as { version: string }).version
  assert.ok(deps.hyparquet && deps.zod, 'the decoder and the row parser are among them')
  const { node, v8, icu, unicode } = process.versions
  const expected = sha256Hex(
    canonicalJson({ code: srcHash(ROOT), deps, runtime: { node, v8, icu: icu ?? null, unicode: unicode ?? null } }),
  )
  assert.equal(await builderId(), expected)
  // another decoder version is another builder
  const other = sha256Hex(
    canonicalJson({
      code: srcHash(ROOT),
      deps: { ...deps, hyparquet: '0.0.0' },
      runtime: { node, v8, icu: icu ?? null, unicode: unicode ?? null },
    }),
  )
  assert.notEqual(other, expected)
})

test('run from src/ through tsx, the identity is the same: the hash of src/ as it is, which dist/.stamp holds when current', () => {
  // npm test runs this file compiled against dist/, which reads the stamp: the from-source branch needs a child of its own
  const script = `import { builderId } from ${JSON.stringify(pathToFileURL(join(ROOT, 'src/builder-id.ts')).href)}; process.stdout.write(String(await builderId()))`
  const r = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  })
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /^[0-9a-f]{64}$/)
  const { node, v8, icu, unicode } = process.versions
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  const deps = Object.fromEntries(
    Object.keys(pkg.dependencies)
      .sort()
      .map((n) => [n, (JSON.parse(readFileSync(join(ROOT, 'node_modules', n, 'package.json'), 'utf8')) as { version: string }).version]),
  )
  assert.equal(
    r.stdout,
    sha256Hex(canonicalJson({ code: srcHash(ROOT), deps, runtime: { node, v8, icu: icu ?? null, unicode: unicode ?? null } })),
  )
})
