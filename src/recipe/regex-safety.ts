/**
 * A static check for regular expressions that can backtrack catastrophically (exponential
 * time in the input's length), for patterns a recipe gives. JavaScript's engine backtracks,
 * so a repeated part that can match the same text in more than one way — a quantifier inside
 * a quantifier, or overlapping alternatives under one — is refused before it ever runs.
 * Conservative: some safe patterns are refused too, and the message says how to rewrite them.
 */

/** The characters a part can start with: a few known ones, or too many to tell (`wide`). */
type First = { wide: true } | { wide: false; chars: Set<string> }

interface Node {
  /** can match the empty string */
  nullable: boolean
  first: First
  /** holds a quantifier with no upper bound over something non-empty */
  unbounded: boolean
}

/** From this upper bound on, a counted repetition repeats as `*` does for this check. */
const REPEATS = 10
const WIDE: First = { wide: true }
const none = (): First => ({ wide: false, chars: new Set() })

function union(a: First, b: First): First {
  if (a.wide || b.wide) return WIDE
  return { wide: false, chars: new Set([...a.chars, ...b.chars]) }
}
function overlaps(a: First, b: First): boolean {
  if (a.wide || b.wide) return true
  for (const c of a.chars) if (b.chars.has(c)) return true
  return false
}

class Risk extends Error {}

class Parser {
  private i = 0

  constructor(private readonly p: string) {}

  /** alternatives up to `)` or the end */
  alternation(): Node & { branches: Node[] } {
    const branches = [this.sequence()]
    while (this.p[this.i] === '|') {
      this.i++
      branches.push(this.sequence())
    }
    return {
      branches,
      nullable: branches.some((b) => b.nullable),
      first: branches.reduce((f, b) => union(f, b.first), none()),
      unbounded: branches.some((b) => b.unbounded),
    }
  }

  private sequence(): Node {
    let nullable = true
    let first = none()
    let unbounded = false
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const item = this.quantified()
      if (nullable) first = union(first, item.first)
      nullable &&= item.nullable
      unbounded ||= item.unbounded
    }
    return { nullable, first, unbounded }
  }

  private quantified(): Node {
    const atom = this.atom()
    const q = this.quantifier()
    if (!q) return atom
    const repeats = q.max === Infinity || q.max >= REPEATS
    if (repeats && atom.unbounded)
      throw new Risk('a repeated part holds another unbounded repetition (e.g. (a+)+); repeat one of them only')
    if (repeats && 'branches' in atom) {
      const bs = atom.branches as Node[]
      if (bs.length > 1 && bs.some((b) => b.nullable))
        throw new Risk('a repeated alternation has a branch that can match nothing; make the branches non-empty')
      for (let a = 0; a < bs.length; a++)
        for (let b = a + 1; b < bs.length; b++)
          if (overlaps(bs[a]!.first, bs[b]!.first))
            throw new Risk('a repeated alternation has branches that can start alike (e.g. (a|ab)+); make them start differently')
    }
    return {
      nullable: atom.nullable || q.min === 0,
      first: atom.first,
      unbounded: atom.unbounded || (q.max === Infinity && !atom.nullable),
    }
  }

  private quantifier(): { min: number; max: number } | null {
    const c = this.p[this.i]
    let q: { min: number; max: number } | null = null
    if (c === '*') q = { min: 0, max: Infinity }
    else if (c === '+') q = { min: 1, max: Infinity }
    else if (c === '?') q = { min: 0, max: 1 }
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i))
      if (m) {
        q = { min: Number(m[1]), max: m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]) }
        this.i += m[0].length - 1
      }
    }
    if (!q) return null
    this.i++
    if (this.p[this.i] === '?') this.i++ // lazy: the same for backtracking
    return q
  }

  private atom(): Node & { branches?: Node[] } {
    const c = this.p[this.i]!
    if (c === '(') {
      this.i++
      let look = false
      if (this.p[this.i] === '?') {
        const m = /^\?(:|=|!|<=|<!|<[^>]*>)/.exec(this.p.slice(this.i))
        this.i += m ? m[0].length : 1
        look = m !== null && ['=', '!', '<=', '<!'].includes(m[1]!)
      }
      const inner = this.alternation()
      this.i++ // ')'
      // a lookaround matches no text of its own; what it holds is still checked
      return look ? { nullable: true, first: none(), unbounded: false } : inner
    }
    if (c === '^' || c === '$') {
      this.i++
      return { nullable: true, first: none(), unbounded: false }
    }
    if (c === '[') return this.charClass()
    if (c === '\\') return this.escape()
    this.i += c.codePointAt(0)! > 0xffff ? 2 : 1
    return { nullable: false, first: c === '.' ? WIDE : { wide: false, chars: new Set([c]) }, unbounded: false }
  }

  private escape(): Node {
    const rest = this.p.slice(this.i + 1)
    const m = /^(?:[pP]\{[^}]*\}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|c[a-zA-Z]|k<[^>]*>|\d+|.)/su.exec(rest)
    const e = m ? m[0] : ''
    this.i += 1 + e.length
    if (e === 'b' || e === 'B') return { nullable: true, first: none(), unbounded: false }
    // a back-reference may match nothing or anything
    if (/^(?:[1-9]\d*|k<)/.test(e)) return { nullable: true, first: WIDE, unbounded: false }
    if (e.length === 1 && !/[dDwWsSpP]/.test(e)) {
      const ch = ({ n: '\n', r: '\r', t: '\t', f: '\f', v: '\v', 0: '\0' } as Record<string, string>)[e] ?? e
      return { nullable: false, first: { wide: false, chars: new Set([ch]) }, unbounded: false }
    }
    return { nullable: false, first: WIDE, unbounded: false }
  }

  /** `[…]`: its own few characters when plain, else too many to tell. */
  private charClass(): Node {
    let j = this.i + 1
    let body = ''
    if (this.p[j] === ']') body += this.p[j++]
    while (j < this.p.length && this.p[j] !== ']') {
      if (this.p[j] === '\\') body += this.p[j++]
      body += this.p[j++]
    }
    this.i = j + 1
    const plain = !body.startsWith('^') && !/[\\-]/.test(body)
    return { nullable: false, first: plain ? { wide: false, chars: new Set(body) } : WIDE, unbounded: false }
  }
}

/** Why `pattern` (a valid `u`-flag regular expression) can backtrack catastrophically, or null when it cannot. */
export function backtrackingRisk(pattern: string): string | null {
  try {
    new Parser(pattern).alternation()
    return null
  } catch (e) {
    if (e instanceof Risk) return e.message
    throw e
  }
}
