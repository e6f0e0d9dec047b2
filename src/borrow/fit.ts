/**
 * Whether a borrowed option is of the same kind as an item's own options (a
 * number in a unit they have; never one that refers to the others, "None of
 * the above", "I only"), how far its length is from theirs, and whether it is
 * too close to the right answer. Its form is left to the reviewers' screen.
 */
import { codePointLength } from '../util/canonical.ts'
import { unitOf } from './option-kinds.ts'

// words that say nothing of an option's topic; an option's topic word is what several of them share
const STOP = new Set(
  'the a an and or of to in on at by for with from into as is are was were be been being it its this that these those their there they them he she his her not no than then which what who how when where why all some any each more most less least only also can could would should will may might must do does did has have had'.split(
    ' ',
  ),
)

// "None of the above", "All of these", "Both A and B", "I and II only", "Neither", "以上のすべて", "どれでもない"
const REFERENTIAL = [
  /^(none|all|both|neither|either)\b/i,
  /\b(of the above|of these|of those|of them|the above)\b/i,
  /^(i|ii|iii|iv|v)(\s*(,|and|or|only|&)\s*(i|ii|iii|iv|v)?)+\.?$/i,
  /^(only )?(i|ii|iii|iv)( only)?\.?$/i,
  /^[a-h] (and|or|&) [a-h]\b/i,
  /^(statement|option|answer|choice)s? /i,
  /すべて|全て|どれも|どれでも|いずれも|以上|両方/,
]

/** An option that only makes sense beside the others it names or counts. */
export function isReferential(text: string): boolean {
  const t = text.trim()
  return REFERENTIAL.some((re) => re.test(t))
}

const LATIN_WORD = /[\p{Script=Latin}\p{N}][\p{Script=Latin}\p{N}'’-]*/gu

function words(text: string): string[] {
  return (text.toLowerCase().match(LATIN_WORD) ?? []).map((w) => w.replace(/['’]s$/, ''))
}

/**
 * The kind test for one item: a candidate may stand among its own options
 * unless it refers to others, or the own options are all numbers and it is
 * not one in a unit they have.
 */
export function sameKind(own: readonly string[]): (text: string) => boolean {
  const units = own.map(unitOf)
  const numeric = units.every((u) => u !== null)
  const ownUnits = new Set(units)
  return (text) => !isReferential(text) && (!numeric || ownUnits.has(unitOf(text)))
}

/**
 * How far a candidate's length is from the item's own options', as a
 * quantised penalty: 0 inside their range, growing with the log-ratio
 * outside it (integers, so a ranking never hangs on a last bit).
 */
export function lengthPenalty(own: readonly string[]): (text: string) => number {
  const lengths = own.map((o) => codePointLength(o.trim()))
  const lo = Math.min(...lengths)
  const hi = Math.max(...lengths)
  return (text) => {
    const n = codePointLength(text.trim())
    const ratio = n < lo ? lo / Math.max(1, n) : n > hi ? n / hi : 1
    return Math.round(Math.log2(ratio) * 1024)
  }
}

const JAPANESE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]/u

function stem(w: string): string {
  return w.length > 4 && w.endsWith('ies')
    ? `${w.slice(0, -3)}y`
    : w.length > 3 && w.endsWith('s') && !w.endsWith('ss')
      ? w.slice(0, -1)
      : w
}

function bigrams(text: string): Set<string> {
  const cps = [...text].filter((ch) => JAPANESE.test(ch))
  const out = new Set<string>()
  for (let i = 0; i + 1 < cps.length; i++) out.add(cps[i]! + cps[i + 1]!)
  return out
}

/**
 * Whether a candidate is too close to the item's right answer to be surely
 * wrong: it shares a content word with it (plural or not: "volcanic
 * eruption" beside "volcanic eruptions"), or, in Japanese, a pair of
 * characters, or one holds the other (腹 and 腹部).
 */
export function nearAnswer(right: string): (text: string) => boolean {
  const rightWords = new Set(
    words(right)
      .filter((w) => w.length >= 3 && !STOP.has(w))
      .map(stem),
  )
  const rightBare = [...right.trim()].filter((ch) => JAPANESE.test(ch)).join('')
  const rightPairs = bigrams(right)
  return (text) => {
    if (words(text).some((w) => rightWords.has(stem(w)))) return true
    const bare = [...text.trim()].filter((ch) => JAPANESE.test(ch)).join('')
    if (bare !== '' && rightBare !== '' && (bare.includes(rightBare) || rightBare.includes(bare))) return true
    for (const p of bigrams(text)) if (rightPairs.has(p)) return true
    return false
  }
}
