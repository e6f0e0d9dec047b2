/**
 * A static check for regular expressions that can backtrack catastrophically, for patterns a
 * recipe gives. JavaScript's engine backtracks, so text a pattern can match in more than one way
 * costs time: exponential in the input's length for a quantifier inside a quantifier or overlapping
 * alternatives under one, and a power of it for unbounded repetitions in a row that can match the
 * same characters (`.*.*`, `(.*){3}`). Both are refused before the pattern ever runs.
 * Conservative: some safe patterns are refused too, and the message says how to rewrite them.
 */

type Range = readonly [number, number]
/** Code points as closed ranges, or all but them (`not`); `any` when too many to tell (a back-reference, say). */
type Chars = { any: true } | { any: false; not: boolean; ranges: readonly Range[] }

interface Node {
  /** can match the empty string */
  nullable: boolean
  /** the characters it can start with */
  first: Chars
  /** every character it can match */
  chars: Chars
  /** holds a quantifier with no upper bound over something non-empty */
  unbounded: boolean
  /** holds a quantifier with a choice of counts (`?`, `{1,3}`, `*`) over something non-empty: copies of it differ in length */
  varies: boolean
  /** the characters its unbounded repetitions can match, null when it has none */
  loose: Chars | null
  /** the characters an unbounded repetition still open at its end can match (nothing mandatory after it that it cannot match) */
  trail: Chars | null
}

/** From this upper bound on, a counted repetition repeats as `*` does for this check. */
const REPEATS = 10
const ANY: Chars = { any: true }
const NONE: Chars = { any: false, not: false, ranges: [] }
const char = (c: number): Chars => ({ any: false, not: false, ranges: [[c, c]] })
const chars = (...ranges: Range[]): Chars => ({ any: false, not: false, ranges })
const allBut = (c: Chars): Chars => (c.any || c.not ? ANY : { any: false, not: true, ranges: c.ranges })

const DIGIT = chars([0x30, 0x39])
const WORD = chars([0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a])
/** `\s` with the u flag: ECMAScript's white space and line terminators. */
const SPACE = chars(
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
)
/** `.` with the u flag: anything but a line terminator. */
const DOT = allBut(chars([0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]))
const CLASS_ESCAPES: Record<string, Chars> = { d: DIGIT, w: WORD, s: SPACE, D: allBut(DIGIT), W: allBut(WORD), S: allBut(SPACE) }
const CONTROL_ESCAPES: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, f: 0x0c, v: 0x0b, 0: 0 }

/** Conservative: a union with an `allBut` set can match too many to tell. */
function union(a: Chars, b: Chars): Chars {
  if (empty(a)) return b
  if (empty(b)) return a
  if (a.any || b.any || a.not || b.not) return ANY
  return chars(...a.ranges, ...b.ranges)
}
const unionOrNull = (a: Chars | null, b: Chars | null): Chars | null => (a && b ? union(a, b) : (a ?? b))
const empty = (a: Chars) => !a.any && !a.not && a.ranges.length === 0
function overlaps(a: Chars, b: Chars): boolean {
  if (empty(a) || empty(b)) return false
  if (a.any || b.any || (a.not && b.not)) return true
  if (a.not) return !covers(a.ranges, b.ranges)
  if (b.not) return !covers(b.ranges, a.ranges)
  return a.ranges.some(([lo, hi]) => b.ranges.some(([l, h]) => lo <= h && l <= hi))
}
/** Whether every code point of `inner` is in `outer`. */
function covers(outer: readonly Range[], inner: readonly Range[]): boolean {
  const sorted = [...outer].sort((x, y) => x[0] - y[0])
  return inner.every(([lo, hi]) => {
    let next = lo
    for (const [l, h] of sorted) if (l <= next && h >= next) next = h + 1
    return next > hi
  })
}

const MATCHES_NOTHING: Node = { nullable: true, first: NONE, chars: NONE, unbounded: false, varies: false, loose: null, trail: null }
const one = (c: Chars): Node => ({ nullable: false, first: c, chars: c, unbounded: false, varies: false, loose: null, trail: null })

class Risk extends Error {}

/**
 * Unbounded repetitions in a row that can match the same characters, with nothing mandatory between them
 * that the first cannot match: each way of sharing the text between them is tried, a power of its length.
 */
const IN_A_ROW =
  'unbounded repetitions in a row can match the same text (e.g. .*.* or (.*){3}); put a character the first cannot match between them, or keep one of them'

/**
 * Folds one more part onto what is open before it (`pending`): the part shuts it when it must match a
 * character first that the open repetition cannot; otherwise its own repetitions must not overlap it.
 */
function follow(pending: Chars | null, next: Node): Chars | null {
  const shuts = pending !== null && !next.nullable && !overlaps(pending, next.first)
  if (pending && !shuts && next.loose && overlaps(pending, next.loose)) throw new Risk(IN_A_ROW)
  return shuts ? next.trail : unionOrNull(pending, next.trail)
}

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
      first: branches.reduce((f, b) => union(f, b.first), NONE),
      chars: branches.reduce((f, b) => union(f, b.chars), NONE),
      unbounded: branches.some((b) => b.unbounded),
      varies: branches.some((b) => b.varies),
      loose: branches.reduce<Chars | null>((f, b) => unionOrNull(f, b.loose), null),
      trail: branches.reduce<Chars | null>((f, b) => unionOrNull(f, b.trail), null),
    }
  }

  private sequence(): Node {
    const node: Node = { ...MATCHES_NOTHING }
    let pending: Chars | null = null
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const item = this.quantified()
      if (node.nullable) node.first = union(node.first, item.first)
      node.nullable &&= item.nullable
      node.chars = union(node.chars, item.chars)
      node.unbounded ||= item.unbounded
      node.varies ||= item.varies
      node.loose = unionOrNull(node.loose, item.loose)
      pending = follow(pending, item)
    }
    node.trail = pending
    return node
  }

  private quantified(): Node {
    const atom = this.atom()
    const q = this.quantifier()
    if (!q) return atom
    const repeats = q.max === Infinity || q.max >= REPEATS
    if (repeats && atom.unbounded)
      throw new Risk('a repeated part holds another unbounded repetition (e.g. (a+)+); repeat one of them only')
    // each copy's length a choice: the text splits into copies in many ways, as with (a|aa)+
    if (repeats && atom.varies)
      throw new Risk('a repeated part holds an optional or counted part (e.g. (a?b)+ or (a{0,3}b)*); give each copy one length')
    if (repeats && 'branches' in atom) {
      const bs = atom.branches as Node[]
      if (bs.length > 1 && bs.some((b) => b.nullable))
        throw new Risk('a repeated alternation has a branch that can match nothing; make the branches non-empty')
      for (let a = 0; a < bs.length; a++)
        for (let b = a + 1; b < bs.length; b++)
          if (overlaps(bs[a]!.first, bs[b]!.first))
            throw new Risk('a repeated alternation has branches that can start alike (e.g. (a|ab)+); make them start differently')
    }
    // a few copies in a row: what one leaves open must not run into the next one's repetitions
    if (!repeats && q.max >= 2) follow(atom.trail, atom)
    const loops = repeats && !empty(atom.chars)
    return {
      nullable: atom.nullable || q.min === 0,
      first: atom.first,
      chars: atom.chars,
      unbounded: atom.unbounded || (q.max === Infinity && !atom.nullable),
      varies: atom.varies || (q.min < q.max && !empty(atom.chars)),
      loose: loops ? union(atom.chars, atom.loose ?? NONE) : atom.loose,
      trail: loops ? atom.chars : atom.trail,
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
      return look ? { ...MATCHES_NOTHING } : inner
    }
    if (c === '^' || c === '$') {
      this.i++
      return { ...MATCHES_NOTHING }
    }
    if (c === '[') return this.charClass()
    if (c === '\\') return this.escape()
    const cp = this.p.codePointAt(this.i)!
    this.i += cp > 0xffff ? 2 : 1
    return one(c === '.' ? DOT : char(cp))
  }

  private escape(): Node {
    const e = ESCAPE.exec(this.p.slice(this.i + 1))?.[0] ?? ''
    this.i += 1 + e.length
    if (e === 'b' || e === 'B') return { ...MATCHES_NOTHING }
    // a back-reference may match nothing or anything, but in one way only
    if (/^(?:[1-9]\d*|k<)/.test(e)) return { ...MATCHES_NOTHING, first: ANY, chars: ANY }
    return one(escapeChars(e))
  }

  /** `[…]`: its characters, ranges and class escapes; a negated class can match too many to tell. */
  private charClass(): Node {
    let j = this.i + 1
    const negated = this.p[j] === '^'
    if (negated) j++
    // single characters (cp) or class escapes; an unescaped '-' between two single characters makes a range
    const members: { cp: number | null; chars: Chars; dash: boolean }[] = []
    while (j < this.p.length && this.p[j] !== ']') {
      if (this.p[j] === '\\') {
        const e = ESCAPE.exec(this.p.slice(j + 1))?.[0] ?? ''
        j += 1 + e.length
        const chars = e === 'b' ? char(8) : escapeChars(e)
        const single = !chars.any && chars.ranges.length === 1 && chars.ranges[0]![0] === chars.ranges[0]![1]
        members.push({ cp: single ? chars.ranges[0]![0] : null, chars, dash: false })
      } else {
        const cp = this.p.codePointAt(j)!
        j += cp > 0xffff ? 2 : 1
        members.push({ cp, chars: char(cp), dash: cp === 0x2d })
      }
    }
    this.i = j + 1
    let set = NONE
    for (let k = 0; k < members.length; k++) {
      const [a, dash, b] = [members[k]!, members[k + 1], members[k + 2]]
      if (a.cp !== null && dash?.dash && b?.cp != null) {
        set = union(set, chars([a.cp, b.cp]))
        k += 2
      } else set = union(set, a.chars)
    }
    return one(negated ? allBut(set) : set)
  }
}

/** An escape's text after the backslash. */
const ESCAPE = /^(?:[pP]\{[^}]*\}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|c[a-zA-Z]|k<[^>]*>|\d+|.)/su

/** The characters `\e` stands for (outside or inside a class). */
function escapeChars(e: string): Chars {
  const cls = CLASS_ESCAPES[e]
  if (cls) return cls
  if (/^[pP]/.test(e) || e === '') return ANY
  if (e.length === 1) return char(CONTROL_ESCAPES[e] ?? e.codePointAt(0)!)
  if (e[0] === 'u' || e[0] === 'x') return char(Number.parseInt(e.replace(/^[ux]\{?|\}$/g, ''), 16))
  if (e[0] === 'c') return char(e.charCodeAt(1) % 32)
  return ANY
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
