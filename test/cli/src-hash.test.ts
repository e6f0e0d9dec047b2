import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { bundleDir, bundleInputs, bundleIsCurrent, compiledIsCurrent, srcHash, stampPath } from '../../bin/src-hash.mjs'
import { ROOT } from '../helpers/cli.ts'

let root: string

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'jev-src-hash-'))
  await mkdir(join(root, 'src/cli'), { recursive: true })
  await mkdir(join(root, 'dist'))
  await writeFile(join(root, 'src/a.ts'), 'export const a = 1\n')
  await writeFile(join(root, 'src/cli/b.ts'), 'export const b = 2\n')
})

after(async () => {
  await rm(root, { recursive: true, force: true })
})

test('dist/ runs only when its stamp holds the hash of src/ as it is now, whatever the file times', async () => {
  assert.equal(compiledIsCurrent(root), false, 'no stamp: not compiled')
  await writeFile(stampPath(root), srcHash(root))
  assert.equal(compiledIsCurrent(root), true)

  // an edit dated before the compile (an archive, a copy that keeps times) is still an edit
  const file = join(root, 'src/a.ts')
  const { atime, mtime } = await stat(file)
  await writeFile(file, 'export const a = 3\n')
  await utimes(file, atime, new Date(mtime.getTime() - 86_400_000))
  assert.equal(compiledIsCurrent(root), false, 'a backdated edit makes dist/ stale')
  await writeFile(file, 'export const a = 1\n')
  assert.equal(compiledIsCurrent(root), true, 'the same content again: current')

  // a touched but unchanged file is not a change
  await utimes(file, new Date(), new Date(Date.now() + 86_400_000))
  assert.equal(compiledIsCurrent(root), true, 'a newer time alone does not make dist/ stale')

  // a moved file is a change
  await rename(join(root, 'src/cli/b.ts'), join(root, 'src/b.ts'))
  assert.equal(compiledIsCurrent(root), false, 'a moved file makes dist/ stale')
})

test('a bundle runs only when its stamp holds the hash of src/, it was made as it would be now, and the packages it holds are the versions installed', async () => {
  const pkg = join(root, 'node_modules/somepkg')
  await mkdir(pkg, { recursive: true })
  await writeFile(join(pkg, 'package.json'), '{"version":"1.2.3"}')
  const dir = bundleDir(root)
  await mkdir(dir, { recursive: true })
  assert.equal(bundleIsCurrent(root), false, 'no stamp: not bundled')
  const record = () => writeFile(join(dir, 'inputs.json'), JSON.stringify(bundleInputs(root, ['node_modules/somepkg'])))
  await record()
  await writeFile(join(dir, '.stamp'), srcHash(root))
  assert.equal(bundleIsCurrent(root), true)

  // how it is made, or any install, makes it stale
  await mkdir(join(root, 'scripts'), { recursive: true })
  await writeFile(join(root, 'scripts/compile.mjs'), '// another way to bundle\n')
  assert.equal(bundleIsCurrent(root), false, 'the compile script changed')
  await record()
  assert.equal(bundleIsCurrent(root), true)
  await writeFile(join(root, 'node_modules/.package-lock.json'), '{"packages":{}}')
  assert.equal(bundleIsCurrent(root), false, 'npm installed something')
  await record()
  assert.equal(bundleIsCurrent(root), true)

  await writeFile(join(pkg, 'package.json'), '{"version":"1.2.4"}')
  assert.equal(bundleIsCurrent(root), false, 'another version of a bundled package installed: stale')
  await writeFile(join(pkg, 'package.json'), '{"version":"1.2.3"}')
  assert.equal(bundleIsCurrent(root), true)
  await rm(pkg, { recursive: true })
  assert.equal(bundleIsCurrent(root), false, 'a bundled package no longer installed: stale')
  await mkdir(pkg, { recursive: true })
  await writeFile(join(pkg, 'package.json'), '{"version":"1.2.3"}')

  await writeFile(join(root, 'src/cli/b.ts'), 'export const b = 3\n')
  assert.equal(bundleIsCurrent(root), false, 'an edit to src/ makes the bundle stale')
  await writeFile(join(dir, 'inputs.json'), 'not json')
  await writeFile(join(dir, '.stamp'), srcHash(root))
  assert.equal(bundleIsCurrent(root), false, 'an unreadable record of its packages: stale')
})

test('bin/jev.mjs runs a command from bundle/ when it is current, else dist/ when current, else src/ through tsx', async () => {
  // a project of one command, with bin/ and node_modules/ (tsx) from this one
  const proj = await mkdtemp(join(tmpdir(), 'jev-entry-'))
  try {
    await mkdir(join(proj, 'bin'))
    for (const f of ['jev.mjs', 'src-hash.mjs']) await copyFile(join(ROOT, 'bin', f), join(proj, 'bin', f))
    await symlink(join(ROOT, 'node_modules'), join(proj, 'node_modules'))
    const say = (from: string) => `process.stdout.write(${JSON.stringify(from)} + ' ' + process.argv.slice(2).join(' '))\n`
    for (const [dir, file, from] of [
      ['src/cli', 'hello.ts', 'src'],
      ['dist/cli', 'hello.js', 'dist'],
      ['bundle', 'hello.js', 'bundle'],
    ] as const) {
      await mkdir(join(proj, dir), { recursive: true })
      await writeFile(join(proj, dir, file), say(from))
    }
    const hash = srcHash(proj)
    await writeFile(stampPath(proj), hash)
    await writeFile(join(bundleDir(proj), '.stamp'), hash)
    const record = () => writeFile(join(bundleDir(proj), 'inputs.json'), JSON.stringify(bundleInputs(proj, ['node_modules/tsx'])))
    await record()
    const run = () => {
      const r = spawnSync(process.execPath, [join(proj, 'bin/jev.mjs'), 'hello', '--x', '1'], { encoding: 'utf8', timeout: 60_000 })
      assert.equal(r.status, 0, r.stderr)
      return r.stdout
    }
    assert.equal(run(), 'bundle --x 1')
    await writeFile(
      join(bundleDir(proj), 'inputs.json'),
      JSON.stringify({ ...bundleInputs(proj, ['node_modules/tsx']), packages: { 'node_modules/tsx': '0.0.0' } }),
    )
    assert.equal(run(), 'dist --x 1', 'a bundle of other package versions is not run')
    await record()
    await writeFile(join(proj, 'src/cli/hello.ts'), say('src, edited'))
    assert.equal(run(), 'src, edited --x 1', 'an edit to src/ makes both stale')
  } finally {
    await rm(proj, { recursive: true, force: true })
  }
})

test("this project's bundle is current after npm test's compile (else every CLI test would quietly run dist/)", (t) => {
  if (!compiledIsCurrent(ROOT)) {
    t.skip('dist/ is not compiled (a type error): the tests run from src/ through tsx')
    return
  }
  assert.equal(bundleIsCurrent(ROOT), true)
})
