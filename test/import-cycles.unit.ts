/** The layout rules of docs/architecture.md: stage folders, few top-level files, no import cycle between files. */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { test } from 'node:test'
import { ROOT } from './helpers/cli.ts'

const SRC = join(ROOT, 'src')
const files = readdirSync(SRC, { recursive: true })
  .map(String)
  .filter((f) => /\.(ts|mjs)$/.test(f))
  .map((f) => f.split('\\').join('/'))
  .sort()

/** Every relative module a file imports or re-exports, statically or by import() of a literal. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8')
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!)
  return specs.map((s) =>
    relative(SRC, resolve(SRC, dirname(file), s))
      .split('\\')
      .join('/'),
  )
}

test('src/: at most six files at the top, the rest in stage folders', () => {
  const top = files.filter((f) => !f.includes('/'))
  assert.ok(top.length <= 6, `top-level files: ${top.join(', ')}`)
})

/** Every cycle a depth-first walk of the graph meets, each as `a → b → … → a`. */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const state = new Map<string, 'open' | 'done'>()
  const cycles: string[] = []
  const visit = (f: string, path: string[]) => {
    state.set(f, 'open')
    for (const d of graph.get(f) ?? []) {
      if (state.get(d) === 'open') cycles.push([...path.slice(path.indexOf(d)), d].join(' → '))
      else if (!state.has(d)) visit(d, [...path, d])
    }
    state.set(f, 'done')
  }
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f, [f])
  return cycles
}

test('src/: no file imports itself through a chain of imports', () => {
  const graph = new Map(files.map((f) => [f, importsOf(f)]))
  for (const [f, deps] of graph) for (const d of deps) assert.ok(graph.has(d), `${f} imports ${d}, which is not in src/`)
  assert.ok([...graph.values()].flat().length > 200, 'the imports were read')
  assert.deepEqual(findCycles(graph), [])
})

test('the cycle check sees a cycle when there is one', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts', 'd.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', []],
  ])
  assert.deepEqual(findCycles(graph), ['a.ts → b.ts → c.ts → a.ts'])
})
