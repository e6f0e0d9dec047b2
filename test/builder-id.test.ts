import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { builderId } from '../src/prepared-cache/builder-id.ts'
import { canonicalJson } from '../src/util/canonical.ts'
import { sha256Hex } from '../src/util/hash.ts'
import { ROOT } from './helpers/cli.ts'

const runtime = () => {
  const { node, v8, icu, unicode } = process.versions
  return { node, v8, icu: icu ?? null, unicode: unicode ?? null }
}

test("the builder's identity covers its code (src/'s files), its runtime dependencies' installed versions and the runtime's Unicode tables", async () => {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  const deps: Record<string, string | null> = {}
  for (const n of Object.keys(pkg.dependencies).sort())
    deps[n] = (JSON.parse(await readFile(join(ROOT, 'node_modules', n, 'package.json'), 'utf8')) as { version: string }).version
  assert.ok(deps.hyparquet && deps.zod, 'the decoder and the row parser are among them')
  // the code this test process loaded: src/, or its compiled copy in .test-build/
  const src = fileURLToPath(new URL('../src', import.meta.url))
  const files = (await readdir(src, { recursive: true })).filter((f) => /\.(ts|js|mjs)$/.test(f)).sort()
  const h = createHash('sha256')
  for (const f of files)
    h.update(`${f}\0`)
      .update(await readFile(join(src, f)))
      .update('\0')
  assert.equal(await builderId(), sha256Hex(canonicalJson({ code: h.digest('hex'), deps, runtime: runtime() })))
})

test('compiled, the identity changes with any file of the code and with a dependency version', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-builder-id-'))
  try {
    const pkg = join(tmp, 'pkg')
    await cp(join(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true })
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'x', type: 'module', dependencies: { hyparquet: '1.0.0' } }))
    const dep = join(pkg, 'node_modules', 'hyparquet')
    await mkdir(dep, { recursive: true })
    const setVersion = (v: string) => writeFile(join(dep, 'package.json'), JSON.stringify({ name: 'hyparquet', version: v }))
    const id = () => {
      const url = pathToFileURL(join(pkg, 'dist/prepared-cache/builder-id.js')).href
      const script = `import { builderId } from ${JSON.stringify(url)}; process.stdout.write(String(await builderId()))`
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 })
      assert.equal(r.status, 0, r.stderr)
      assert.match(r.stdout, /^[0-9a-f]{64}$/)
      return r.stdout
    }
    await setVersion('1.0.0')
    const first = id()
    assert.equal(id(), first, 'the same code and packages: the same identity')
    await appendFile(join(pkg, 'dist/build.js'), '\n// changed\n')
    const edited = id()
    assert.notEqual(edited, first, 'an edit to a compiled file')
    await setVersion('1.0.1')
    assert.notEqual(id(), edited, 'another version of a dependency')
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
})
