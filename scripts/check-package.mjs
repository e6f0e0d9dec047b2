// The package as a user gets it: `npm pack`, installed into a new project in a temp folder, then
// a strict TypeScript consumer type-checked, the README's library example run, and `npx jev
// build-dataset` run from that project; both builds must equal out/ byte for byte.
// node scripts/check-package.mjs [--mirror DIR]   (without a mirror only the tarball and the types are checked)
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

const root = resolve(import.meta.dirname, '..')
const { values } = parseArgs({ options: { mirror: { type: 'string' } } })
const mirror = values.mirror ? resolve(values.mirror) : undefined
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
const fail = (message) => {
  process.stderr.write(`check-package: ${message}\n`)
  process.exit(1)
}

const tmp = mkdtempSync(join(tmpdir(), 'jev-package-'))
try {
  // the tarball: what a user installs, and nothing that is only for developing the builder
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tmp], root))
  const files = packed.files.map((f) => f.path)
  const stray = files.filter((f) => /^(test|bench|scripts|out|src|\.ci|\.github)\//.test(f) || /fixtures|\.test\.|tsbuildinfo/.test(f))
  if (stray.length) fail(`the tarball holds files a user does not run: ${stray.slice(0, 10).join(', ')}`)
  for (const want of [
    'dist/index.js',
    'dist/index.d.ts',
    'dist/cli/main.js',
    'recipes/jev-bench.json',
    'recipes/jev-bench.lock.json',
    'prompts/screen.md',
    'prompts/recheck.md',
    'prompts/judge.md',
    'README.md',
    'LICENSE',
  ])
    if (!files.includes(want)) fail(`the tarball lacks ${want}`)
  console.log(`tarball: ${packed.filename}, ${files.length} files, ${(packed.size / 1024).toFixed(0)} kB`)

  // a new project that installs it, with the TypeScript the builder is checked with
  const app = join(tmp, 'app')
  execFileSync('mkdir', ['-p', app])
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  const dev = pkg.devDependencies
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', join(tmp, packed.filename), `typescript@${dev.typescript}`, `@types/node@${dev['@types/node']}`],
    app,
  )

  // a strict consumer of the documented API
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        types: ['node'],
      },
    }),
  )
  writeFileSync(
    join(app, 'consumer.ts'),
    `import { type BuildOptions, type BuildRun, buildDataset, checkDataset, isJevError, verifyDataset } from '${pkg.name}'
const options: BuildOptions = { mirror: 'hub-mirror', out: 'out' }
const run: BuildRun = await buildDataset(options)
const checked: { dir: string; problems: string[] } = await checkDataset({ dir: run.out })
const verified = await verifyDataset({ out: run.out, mirror: 'hub-mirror' })
const same: boolean = verified.result.identical
try {
  await buildDataset({ out: 'out' })
} catch (e) {
  if (isJevError(e)) console.log(e.code, e.message)
}
console.log(checked.problems.length, same)
`,
  )
  run(join(app, 'node_modules/.bin/tsc'), ['-p', '.'], app)
  console.log('a strict TypeScript consumer type-checks')

  if (!mirror) {
    console.log('no --mirror: the builds from the installed package were not run')
  } else {
    // the README's library example, as written there (between the library-example markers), run from the new project
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const example = /<!-- library-example -->\s*```js\n([\s\S]*?)```/.exec(readme)?.[1]
    if (!example) fail('README.md has no ```js block after <!-- library-example -->')
    writeFileSync(join(app, 'example.mjs'), example.replaceAll('../shared/hub-mirror', mirror))
    run(process.execPath, ['example.mjs'], app)
    run('npx', ['--no-install', 'jev', 'build-dataset', '--mirror', mirror, '--out', 'out-cli', '--quiet'], app)
    for (const out of ['out', 'out-cli']) {
      const made = readdirSync(join(app, out)).sort()
      const want = readdirSync(join(root, 'out')).sort()
      if (made.join() !== want.join()) fail(`${out}/ holds ${made.join(', ')}, not ${want.join(', ')}`)
      for (const f of want)
        if (!readFileSync(join(app, out, f)).equals(readFileSync(join(root, 'out', f)))) fail(`${out}/${f} differs from out/${f}`)
    }
    console.log("the README's library example and `npx jev build-dataset`, run from the new project, built out/ byte for byte")
  }
  if (existsSync(join(app, 'node_modules', pkg.name, 'test'))) fail('the installed package holds test/')
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
