import type { Language } from '../recipe/schema.ts'
import { normalize } from '../util/canonical.ts'

// Python's string.punctuation, which lm-evaluation-harness's decontamination strips before splitting on white space
const ASCII_PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g
// Japanese text has no word spaces: characters are compared with white space, punctuation and symbols left out
const NOT_JAPANESE_TEXT = /[\s\p{P}\p{S}]/gu

/**
 * The units a text is cut into after the builder's normalisation (NFKC, white space collapsed,
 * lower-cased): English words as lm-evaluation-harness cuts them, Japanese characters.
 */
export function units(text: string, language: Language): string[] {
  return normUnits(normalize(text), language)
}

/**
 * The units of a text already normalised, or only its first `limit`. Normalised text has no white
 * space but single U+0020 and no punctuation that spans one, so English words can be taken one at a time.
 */
export function normUnits(norm: string, language: Language, limit = Number.POSITIVE_INFINITY): string[] {
  if (language === 'ja') {
    const kept = norm.replace(NOT_JAPANESE_TEXT, '')
    if (limit >= kept.length) return Array.from(kept)
    const out: string[] = []
    for (const ch of kept) {
      if (out.length >= limit) break
      out.push(ch)
    }
    return out
  }
  if (limit === Number.POSITIVE_INFINITY)
    return norm
      .replace(ASCII_PUNCTUATION, '')
      .split(' ')
      .filter((w) => w !== '')
  const out: string[] = []
  for (let at = 0; at <= norm.length && out.length < limit; ) {
    const space = norm.indexOf(' ', at)
    const end = space < 0 ? norm.length : space
    const word = norm.slice(at, end).replace(ASCII_PUNCTUATION, '')
    if (word !== '') out.push(word)
    at = end + 1
  }
  return out
}

/** How a gram's units are joined into its key. */
export const JOIN: Record<Language, string> = { en: ' ', ja: '' }

export interface Cut {
  all: string[]
  /** how many of `all` are the question's */
  question: number
  starts: number
}

/**
 * A question followed by its context, normalised, cut into units, and how many n-grams of it start in the
 * question: only those count, so a gram wholly inside a context (BoolQ's public web passages) is never a match.
 * Of the context only the first n − 1 units can be in such a gram, so a long passage is not cut any further.
 */
export function cutNorm(question: string, context: string | null, language: Language, n: number): Cut {
  const q = normUnits(question, language)
  const all = context === null ? q : [...q, ...normUnits(context, language, n - 1)]
  return { all, question: q.length, starts: Math.max(0, Math.min(q.length, all.length - n + 1)) }
}
