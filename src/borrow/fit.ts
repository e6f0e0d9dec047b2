/**
 * Amendment 1.2's test of whether a borrowed option is of the same kind as an
 * item's own options, read off their form alone: the word they start with,
 * how many words, the topic word they share, the script a Japanese word is
 * written in and whether it is a predicate, the unit of a number; and options
 * that refer to the others ("None of the above", "I only") are never lent.
 */
import { codePointLength } from '../util/canonical.ts'
import { unitOf } from './option-kinds.ts'

const ARTICLES = new Set(['the', 'a', 'an'])

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
const HAS_LATIN = /\p{Script=Latin}/u
const KATAKANA = /^[\p{Script=Katakana}ー・\s]+$/u
const HIRAGANA = /^[\p{Script=Hiragana}ー\s]+$/u
const HAN = /\p{Script=Han}/u
// a Japanese option that ends in hiragana reads as a verb or adjective (持つ, 白い, 開く); a noun written in hiragana
// (さこつ) reads so too, which only makes the rule stricter where most own options are nouns
const PREDICATE_END = /\p{Script=Hiragana}$/u

function words(text: string): string[] {
  return (text.toLowerCase().match(LATIN_WORD) ?? []).map((w) => w.replace(/['’]s$/, ''))
}

function script(text: string): string {
  const t = text.trim()
  if (HAS_LATIN.test(t)) return 'latin'
  if (KATAKANA.test(t)) return 'katakana'
  if (HIRAGANA.test(t)) return 'hiragana'
  return HAN.test(t) ? 'kanji' : 'other'
}

function isPredicate(text: string): boolean {
  const t = text.trim()
  return !KATAKANA.test(t) && PREDICATE_END.test(t)
}

/**
 * The kind test for one item: whether a candidate option could stand among
 * its own options without being told apart by form. Rules that need a
 * pattern the own options share apply only when they share it. Without
 * `byForm`, only units and references to other options are read.
 */
export function sameKind(own: readonly string[], byForm = true): (text: string) => boolean {
  const ownWords = own.map(words)
  const latin = own.every((o) => HAS_LATIN.test(o))
  // the word most own options start with, when three quarters of them do ("to …", "The …", "During …")
  const leads = new Map<string, number>()
  for (const w of ownWords) if (w[0] !== undefined) leads.set(w[0], (leads.get(w[0]) ?? 0) + 1)
  let lead: string | null = null
  for (const [w, n] of leads) if (n >= Math.ceil((own.length * 3) / 4)) lead = w
  const anyArticle = ownWords.some((w) => ARTICLES.has(w[0] ?? ''))
  const counts = ownWords.map((w) => w.length)
  const fewest = Math.min(...counts)
  const most = Math.max(...counts)
  // topic words: a content word that half the own options (two at least) share ("delegates", "volvox", "plants")
  const df = new Map<string, number>()
  for (const w of ownWords) for (const x of new Set(w)) if (x.length >= 4 && !STOP.has(x)) df.set(x, (df.get(x) ?? 0) + 1)
  const topics = [...df].filter(([, n]) => n >= Math.max(2, Math.ceil(own.length / 2))).map(([w]) => w)
  const scripts = new Set(own.map(script))
  // predicates among nouns: allowed where at least two own options are predicates, required where all but one are
  const predicateCount = own.filter(isPredicate).length
  const predicates = new Set(predicateCount >= own.length - 1 ? [true] : predicateCount >= 2 ? [true, false] : [false])
  const units = own.map(unitOf)
  const numeric = units.every((u) => u !== null)
  const ownUnits = new Set(units)
  return (text) => {
    if (isReferential(text)) return false
    if (numeric) return ownUnits.has(unitOf(text))
    if (!byForm) return true
    if (!scripts.has(script(text))) return false
    if (!latin) return predicates.has(isPredicate(text))
    const w = words(text)
    if (lead !== null && w[0] !== lead) return false
    if (!anyArticle && ARTICLES.has(w[0] ?? '')) return false
    if (w.length < fewest - 1 || w.length > most + (most <= 3 ? 1 : Math.ceil(most / 3))) return false
    if (topics.length > 0 && !topics.some((t) => w.includes(t))) return false
    return true
  }
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
