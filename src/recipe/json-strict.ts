/**
 * What JSON.parse accepts but a hand-written file (a recipe, a lock) must not hold: a key given
 * twice in one object, where the later value would win unseen, and nesting deeper than any such
 * file needs, which recursive checks downstream would overflow the stack on. Iterative.
 */
import { lineColumn } from './json-syntax.ts'

/** Recipes and locks nest 7 levels at most; far more is a broken or hostile file. */
export const MAX_JSON_DEPTH = 64

export type JsonStrictProblem =
  | { kind: 'duplicate'; key: string; path: (string | number)[]; line: number; column: number; firstLine: number }
  | { kind: 'depth'; depth: number; limit: number; path: (string | number)[]; line: number; column: number }

interface Open {
  object: boolean
  /** each key seen so far, and the line it was on */
  keys: Map<string, number>
  /** the key or index being read, as a path segment */
  at: string | number
}

/** The first duplicate key or too-deep nesting in `text`, which must be valid JSON (JSON.parse accepted it); null when there is none. */
export function findJsonStrictProblem(text: string, maxDepth = MAX_JSON_DEPTH): JsonStrictProblem | null {
  const stack: Open[] = []
  let line = 1
  let expectKey = false
  // past maxDepth only the depth is counted, to name how deep it goes
  let depth = 0
  let tooDeep: Extract<JsonStrictProblem, { kind: 'depth' }> | null = null
  for (let i = 0; i < text.length; ) {
    const c = text[i]!
    if (c === '\n') line++
    if (c === '{' || c === '[') {
      depth++
      if (depth > maxDepth) {
        tooDeep ??= { kind: 'depth', depth, limit: maxDepth, path: stack.map((o) => o.at), ...lineColumn(text, i) }
        tooDeep.depth = Math.max(tooDeep.depth, depth)
      } else stack.push({ object: c === '{', keys: new Map(), at: c === '{' ? '' : 0 })
      expectKey = c === '{'
      i++
      continue
    }
    const top = depth > maxDepth ? undefined : stack.at(-1)
    if (c === '}' || c === ']') {
      if (depth-- <= maxDepth) stack.pop()
      i++
    } else if (c === ',') {
      if (top?.object) expectKey = true
      else if (top) top.at = (top.at as number) + 1
      i++
    } else if (c === '"') {
      let end = i + 1
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1
      end++
      if (expectKey && top && !tooDeep) {
        const key = JSON.parse(text.slice(i, end)) as string
        const seen = top.keys.get(key)
        top.at = key
        if (seen !== undefined) return { kind: 'duplicate', key, path: stack.map((o) => o.at), firstLine: seen, ...lineColumn(text, i) }
        top.keys.set(key, line)
      }
      expectKey = false
      i = end
    } else i++
  }
  return tooDeep
}

/** `$.a.0.b`, as recipe problems name a place. */
export const jsonPath = (path: readonly (string | number)[]) => (path.length ? `$.${path.join('.')}` : '$')

/** The problem in words, naming the place: "the key "seed" is given twice ($.seed, line 9; first on line 4)". */
export function describeJsonStrictProblem(p: JsonStrictProblem): string {
  if (p.kind === 'duplicate')
    return `the key ${JSON.stringify(p.key)} is given twice (${jsonPath(p.path)}, line ${p.line}; first on line ${p.firstLine}): JSON keeps the later value silently`
  return `it nests ${p.depth} levels deep, more than the ${p.limit} allowed (the first level too many is at line ${p.line}, column ${p.column})`
}
