// src/ → dist/, then the CLIs bundled from dist/ into bundle/, each with the
// stamp bin/jev.mjs checks: the hash of src/ as tsc read it, so an edit made
// while it ran leaves them marked stale.
import { spawnSync } from 'node:child_process'
import { readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundleDir, bundleInputs, bundleIsCurrent, compiledIsCurrent, srcHash, stampPath } from '../bin/src-hash.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
// --if-stale (npm test): nothing to do when dist/ and bundle/ are already current for src/
const ifStale = process.argv.includes('--if-stale')
if (ifStale && compiledIsCurrent(root) && bundleIsCurrent(root)) process.exit(0)
const before = srcHash(root)
// the stamps first: a CLI started meanwhile must not run files being removed
rmSync(join(bundleDir(root), '.stamp'), { force: true })
rmSync(stampPath(root), { force: true })
// from empty: a module deleted from src/ must not live on in dist/ or bundle/ under a current stamp
rmSync(join(root, 'dist'), { recursive: true, force: true })
rmSync(bundleDir(root), { recursive: true, force: true })
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
try {
  await bundle()
} catch (e) {
  // dist/ is compiled and stamped: the CLIs run from it, only slower to start
  process.stderr.write(`compile: bundling failed, so the CLIs will run from dist/: ${e instanceof Error ? e.message : e}\n`)
  if (!ifStale) process.exit(1)
}

/**
 * Each CLI (and the decode worker it starts) as one file of its own code and a
 * few chunks shared with the others: a process then loads ~30 files instead of
 * ~150 modules, and none of the code it never runs (zod's 64 locales). Made
 * from dist/, so that the CLIs run what the tests test, compiled by tsc; its
 * source maps lead through dist/'s back to src/. Flat: every file is in
 * bundle/, so the worker's URL (`./parquet-worker.js`, relative to whichever
 * file the decoder's code lands in) names the worker's entry.
 */
async function bundle() {
  const { build } = await import('esbuild')
  const commands = readdirSync(join(root, 'src/cli'))
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
    .map((f) => f.slice(0, -3))
    .sort()
  const entries = [...commands.map((c) => `dist/cli/${c}.js`), 'dist/parquet-worker.js']
  const out = bundleDir(root)
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: entries,
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    sourcemap: 'linked',
    // bin/'s modules stay where they are (builder-id.ts loads src-hash.mjs only when run from src/, and with it tsx)
    external: ['../bin/*'],
    // the CommonJS packages bundled (yaml, on node) require node's modules: an ES module has no `require` of its own
    banner: {
      js: "import { createRequire as __jevCreateRequire } from 'node:module'; const require = __jevCreateRequire(import.meta.url);",
    },
    metafile: true,
    logLevel: 'warning',
  })
  // a command runs when its module's import.meta.url is the file node was started with (src/cli/run.ts's isMain):
  // its code must be in its own entry's file, not in a chunk another command shares
  for (const c of commands) {
    const file = metafile.outputs[`bundle/${c}.js`]
    if (!file?.inputs[`dist/cli/${c}.js`]?.bytesInOutput)
      throw new Error(`bundle/${c}.js does not hold dist/cli/${c}.js's code (another command imports it?)`)
  }
  // only dist/ and installed packages: anything else (a linked package, a file of bin/) would go unchecked by bundleIsCurrent
  const strays = Object.keys(metafile.inputs).filter((p) => !p.startsWith('dist/') && !p.startsWith('node_modules/'))
  if (strays.length > 0) throw new Error(`the bundle would hold code from outside dist/ and node_modules/: ${strays.join(', ')}`)
  const packages = [
    ...new Set(Object.keys(metafile.inputs).flatMap((p) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(p)?.[1] ?? [])),
  ].sort()
  writeFileSync(join(out, 'inputs.json'), `${JSON.stringify(bundleInputs(root, packages), null, 2)}\n`)
  writeFileSync(join(out, '.stamp'), before)
}
