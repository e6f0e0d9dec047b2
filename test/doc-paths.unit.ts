import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { test } from 'node:test'
import { PACKAGE_ROOT } from '../src/version.ts'

// A path into this repository, as prose and comments name it: "src/build.ts", "scripts/check-package.mjs", "docs/judging.md".
// A file (with its extension) or a folder (with its slash); "test/val" is a pair of splits, not a path.
const PATH =
  /(?<![\w./-])(?:src|scripts|bench|test|docs|recipes)\/(?:[\w.@-]+\/)*(?:[\w@-]+\.(?:ts|mjs|js|json|md|sh|gz|sha256)\b|(?=[\s`'")\],;:]|$))/g
// a path from the naming file's folder, as comments and links name a neighbour: "./helpers/cli.ts", "../src/build.ts" here
const RELATIVE = /(?<![\w./-])\.\.?\/(?:\.\.\/)*(?:[\w.@-]+\/)*[\w@-]+\.(?:ts|mjs|js|json|md|sh)\b/g
// placeholders and globs name no one file
const PLACEHOLDER = /[*<>{}]|VERSION|NAME|COMMAND|FILE|\bX\b|\bx\.|\.\.\./

/** Paths named on purpose though gone: history, or text a published card must keep byte for byte. */
const GONE_ON_PURPOSE: Record<string, string[]> = {
  // 1.3.0's card (out/README.md) says its judged rounds were scored by this script, as they were
  'src/emit/judged.ts': ['scripts/judge.ts'],
  // how the 1.3.0 rounds were made, before the commands replaced the scripts
  'docs/judging.md': ['scripts/judge.ts', 'scripts/screen.ts'],
}
GONE_ON_PURPOSE['test/doc-paths.unit.ts'] = Object.values(GONE_ON_PURPOSE).flat()

/** Files whose text is read: the user's and developer's docs, and the code's comments. */
function documents(): string[] {
  const out = ['README.md']
  const walk = (dir: string) => {
    for (const name of readdirSync(join(PACKAGE_ROOT, dir)).sort()) {
      const path = `${dir}/${name}`
      if (statSync(join(PACKAGE_ROOT, path)).isDirectory()) {
        // docs/judging/<round>/ keeps each judged round's sheets as they were made: a record, not a guide
        if (path !== 'docs/judging' && path !== 'test/fixtures') walk(path)
      } else if (/\.(md|ts|mjs|sh)$/.test(name)) out.push(path)
    }
  }
  for (const dir of ['docs', 'src', 'scripts', 'bench', 'test']) walk(dir)
  out.push('.ci/run')
  return out
}

test('every repository path the README, docs/ and comments name exists', () => {
  const missing: string[] = []
  for (const doc of documents()) {
    const text = readFileSync(join(PACKAGE_ROOT, doc), 'utf8')
    text.split('\n').forEach((line, i) => {
      for (const m of line.matchAll(PATH)) {
        const path = m[0].replace(/[.]+$/, '')
        if (PLACEHOLDER.test(path) || PLACEHOLDER.test(line.slice(m.index + m[0].length, m.index + m[0].length + 1))) continue
        // a path made at run time or in a build folder is not a file of the repository
        if (/^(test|docs)\/.*\.(js|jsonl)$/.test(path)) continue
        if (GONE_ON_PURPOSE[doc]?.includes(path) || /\/my-/.test(path)) continue
        if (!existsSync(join(PACKAGE_ROOT, path))) missing.push(`${doc}:${i + 1}: ${path}`)
      }
      // in prose and comments only (code builds its relative paths for other folders); a command's path is from the root
      if (!doc.endsWith('.md') && !/^\s*(\/\/|\/?\*|#)/.test(line)) return
      for (const m of line.matchAll(RELATIVE)) {
        if (PLACEHOLDER.test(m[0])) continue
        const found = [dirname(doc), '.'].some((from) => existsSync(join(PACKAGE_ROOT, from, m[0])))
        if (!found) missing.push(`${doc}:${i + 1}: ${m[0]}`)
      }
    })
  }
  assert.deepEqual(missing, [], `paths that do not exist:\n${missing.join('\n')}`)
})

test('the scan reads the files it should', () => {
  const docs = documents()
  for (const must of ['README.md', 'docs/architecture.md', 'docs/performance.md', 'src/errors.ts'])
    assert.ok(docs.includes(must), `${must} is scanned`)
  assert.ok(!docs.some((d) => d.startsWith('docs/judging/')), 'judged rounds are records')
  assert.ok(relative(PACKAGE_ROOT, join(PACKAGE_ROOT, 'src')) === 'src')
})
