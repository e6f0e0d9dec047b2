// npm test: the test files as plain JavaScript, against the compiled dist/.
//
// Under tsx every test process (one per file) pays ~0.3 s of CPU for the loader
// before its first test, and more per module it loads; on 2 cores, over ~90
// files, that was a third of the suite. So, when dist/ is current for src/
// (scripts/compile.mjs --if-stale has just made it so), each test/**/*.ts is
// transpiled alone (no type check: that is `npm run typecheck`'s) into
// .test-build/, one level below the root as test/ is, so every path a test
// works out from its own location (the root, README.md, test/fixtures) stays
// the same; only its imports of src/*.ts are pointed at dist/*.js, the code the
// CLIs run. When dist/ could not be compiled, the tests run from test/ through
// tsx as before. `npm test -- test/x.test.ts` runs that file alone; flags (--test-name-pattern=…) go to node --test.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, posix, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compiledIsCurrent } from '../bin/src-hash.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const TEST = join(root, 'test')
const BUILD = join(root, '.test-build')
const SRC = join(root, 'src')
const DIST = join(root, 'dist')
const extra = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'))

function filesUnder(dir, keep) {
  const out = []
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    // Dirent.parentPath is Node ≥ 20.12; .path before it
    if (e.isFile() && keep(e.name)) out.push(join(e.parentPath ?? e.path, e.name))
  }
  return out.sort()
}

/** A relative specifier of `from` (a file under test/) that names a src/*.ts, as the path from its .test-build/ twin to dist/*.js. */
function retarget(spec, from) {
  if (!/^\.\.?\//.test(spec) || !spec.endsWith('.ts')) return spec
  const target = resolve(dirname(from), spec)
  const twin = join(BUILD, relative(TEST, from))
  if (target.startsWith(SRC + sep)) {
    // dist/ may still hold the twin of a module deleted from src/: a test must not pass against it
    if (!existsSync(target)) throw new Error(`${relative(root, from)} imports ${spec}, which is not in src/`)
    const compiled = join(DIST, relative(SRC, target)).replace(/\.ts$/, '.js')
    const rel = relative(dirname(twin), compiled).split(sep).join(posix.sep)
    return rel.startsWith('.') ? rel : `./${rel}`
  }
  // a module of test/ has its twin in .test-build/; one elsewhere (bench/, scripts/) has none
  if (!target.startsWith(TEST + sep))
    throw new Error(`${relative(root, from)} imports ${spec}: only src/ and test/ modules have a compiled twin`)
  return `${spec.slice(0, -3)}.js`
}

async function transpileAll() {
  const ts = (await import('typescript')).default
  const options = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, isolatedModules: true }
  // import/export … from '…' and import('…') with a literal, the only forms the tests use
  const rewrite = (file) => (ctx) => (sf) => {
    const lit = (node) => ts.factory.createStringLiteral(retarget(node.text, file))
    const visit = (node) => {
      if (
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
        node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        return ts.isImportDeclaration(node)
          ? ts.factory.updateImportDeclaration(node, node.modifiers, node.importClause, lit(node.moduleSpecifier), node.attributes)
          : ts.factory.updateExportDeclaration(
              node,
              node.modifiers,
              node.isTypeOnly,
              node.exportClause,
              lit(node.moduleSpecifier),
              node.attributes,
            )
      }
      if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        return ts.factory.updateCallExpression(node, node.expression, node.typeArguments, [
          lit(node.arguments[0]),
          ...node.arguments.slice(1),
        ])
      }
      return ts.visitEachChild(node, visit, ctx)
    }
    return ts.visitNode(sf, visit)
  }
  // each output is keyed by its source's hash (and this script's), so an unchanged file is not transpiled again
  const self = createHash('sha256')
    .update(ts.version)
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest('hex')
    .slice(0, 16)
  const wanted = new Set()
  for (const file of filesUnder(TEST, (n) => n.endsWith('.ts'))) {
    if (relative(TEST, file).split(sep)[0] === 'fixtures') continue
    const text = readFileSync(file, 'utf8')
    const key = `// ${self}:${createHash('sha256').update(text).digest('hex')}\n`
    const dest = join(BUILD, relative(TEST, file)).replace(/\.ts$/, '.js')
    wanted.add(dest)
    let old = ''
    try {
      old = readFileSync(dest, 'utf8')
    } catch {}
    if (old.startsWith(key)) continue
    const out = ts.transpileModule(text, { compilerOptions: options, fileName: file, transformers: { before: [rewrite(file)] } })
    mkdirSync(dirname(dest), { recursive: true })
    const tmp = `${dest}.${process.pid}.tmp`
    writeFileSync(tmp, key + out.outputText)
    renameSync(tmp, dest)
  }
  // what no test file makes any more; a temp file only once it is old, since another npm test may be writing it
  const stale = (f) => !f.endsWith('.tmp') || Date.now() - statSync(f).mtimeMs > 60_000
  for (const file of filesUnder(BUILD, () => true)) if (!wanted.has(file) && stale(file)) rmSync(file, { force: true })
}

// test files named on the command line (test/x.test.ts) run alone; every other argument goes to node --test, in order
const isFile = (a) => !a.startsWith('-') && a.endsWith('.test.ts')
const flags = extra.filter((a) => !isFile(a))
const named = extra.filter(isFile).map((a) => relative(root, resolve(a)))
const run = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status ?? 1
let args
if (compiledIsCurrent(root)) {
  await transpileAll()
  const twin = (f) => join('.test-build', relative('test', f)).replace(/\.ts$/, '.js')
  const files = named.length ? named.map(twin) : filesUnder(BUILD, (n) => n.endsWith('.test.js')).map((f) => relative(root, f))
  args = ['--import', './.test-build/helpers/hermetic.js', '--test', '--test-concurrency=3', ...flags, ...files]
} else {
  process.stderr.write('test: dist/ is not current for src/ (see npm run compile); running the tests from test/ through tsx\n')
  const files = named.length ? named : filesUnder(TEST, (n) => n.endsWith('.test.ts')).map((f) => relative(root, f))
  args = ['--import', 'tsx', '--import', './test/helpers/hermetic.ts', '--test', '--test-concurrency=3', ...flags, ...files]
}
process.exit(run(args))
