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
  const norm = normalize(text)
  if (language === 'ja') return Array.from(norm.replace(NOT_JAPANESE_TEXT, ''))
  return norm
    .replace(ASCII_PUNCTUATION, '')
    .split(' ')
    .filter((w) => w !== '')
}

/** How a gram's units are joined into its key. */
export const JOIN: Record<Language, string> = { en: ' ', ja: '' }

/**
 * A question followed by its context, cut into units, and how many n-grams of it start in the question:
 * only those count, so a gram wholly inside a context (BoolQ's public web passages) is never a match.
 */
export function cut(question: string, context: string | null, language: Language, n: number): { all: string[]; starts: number } {
  const q = units(question, language)
  const all = context === null ? q : [...q, ...units(context, language)]
  return { all, starts: Math.max(0, Math.min(q.length, all.length - n + 1)) }
}

/** Question and right answer cut as the n-grams are, so that punctuation and spacing do not tell them apart. */
export function answerKey(question: string, answer: string, language: Language): string {
  return `${units(question, language).join(JOIN[language])}\u0000${units(answer, language).join(JOIN[language])}`
}
