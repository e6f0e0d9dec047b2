/**
 * How many terminal columns text takes, so that a progress line can be cut to fit one: a line that
 * wraps leaves a stray row the next redraw does not erase. East Asian wide and fullwidth characters
 * (CJK, kana, Hangul, fullwidth forms) and emoji take two, combining marks, format characters and
 * controls none, the rest one — what `wcwidth` and terminals estimate, per code point.
 */

// code-point ranges of two columns (Unicode's East Asian Width W and F, and the emoji blocks), in order
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
]

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]$/u

/** The columns one code point takes: 0, 1 or 2. */
export function codePointColumns(cp: number): number {
  if (cp >= 0x20 && cp < 0x7f) return 1
  for (const [lo, hi] of WIDE) {
    if (cp < lo) break
    if (cp <= hi) return 2
  }
  return ZERO_WIDTH.test(String.fromCodePoint(cp)) ? 0 : 1
}

/** The columns `s` takes on a terminal. */
export function columns(s: string): number {
  let n = 0
  for (const ch of s) n += codePointColumns(ch.codePointAt(0)!)
  return n
}

/**
 * `s` when it fits in `width` columns; otherwise as many whole code points as fit in `width` − 1
 * and "…" (never half of a surrogate pair, never a wide character across the edge).
 */
export function fitColumns(s: string, width: number): string {
  if (s.length <= width && /^[\x20-\x7e]*$/.test(s)) return s
  if (columns(s) <= width) return s
  let n = 0
  let end = 0
  for (const ch of s) {
    const w = codePointColumns(ch.codePointAt(0)!)
    if (n + w > width - 1) break
    n += w
    end += ch.length
  }
  return `${s.slice(0, end)}…`
}
