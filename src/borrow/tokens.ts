/**
 * Tokens for lexical similarity (Amendment 1.1): lower-cased NFKC words for
 * Latin-script text, character bigrams for Japanese, whichever a run of text
 * is written in; term ids over a vocabulary.
 */

enum Kind {
  Other,
  Word,
  Japanese,
}

// kana (with the long-vowel and iteration marks, not the middle dot), kanji and 々〆〇: code-point ranges, so the test is a compare
function isJapanese(cp: number): boolean {
  if (cp < 0x3005) return false
  if (cp <= 0x3007) return true
  if (cp >= 0x3041 && cp <= 0x30ff) return cp !== 0x30a0 && cp !== 0x30fb && (cp <= 0x3096 || cp >= 0x309d)
  return (
    (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x2ffff)
  )
}

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u
const otherKinds = new Map<number, Kind>()

function charKind(cp: number): Kind {
  // normalised text is lower-cased: ASCII letters and digits are the common case
  if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39)) return Kind.Word
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? Kind.Word : Kind.Other
  if (isJapanese(cp)) return Kind.Japanese
  let k = otherKinds.get(cp)
  if (k === undefined) otherKinds.set(cp, (k = LETTER_OR_DIGIT.test(String.fromCodePoint(cp)) ? Kind.Word : Kind.Other))
  return k
}

/** 1 for the ASCII letters and digits */
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, c) =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) ? 1 : 0,
)

/**
 * Appends the term ids of a normalised text's tokens to `sink`: words, and
 * character bigrams inside Japanese runs, in one pass over the code units.
 */
export function addTokens(text: string, vocab: Vocabulary, sink: Sink): void {
  const len = text.length
  let i = 0
  while (i < len) {
    let c = text.charCodeAt(i)
    let kind: Kind
    let w = 1
    if (c < 0x80) kind = ASCII_WORD[c]! ? Kind.Word : Kind.Other
    else {
      const cp = text.codePointAt(i)!
      if (cp > 0xffff) w = 2
      kind = charKind(cp)
    }
    if (kind === Kind.Other) {
      i += w
      continue
    }
    const from = i
    if (kind === Kind.Word) {
      for (;;) {
        i += w
        if (i >= len) break
        c = text.charCodeAt(i)
        w = 1
        if (c < 0x80) {
          if (ASCII_WORD[c] === 0) break
        } else {
          const cp = text.codePointAt(i)!
          if (cp > 0xffff) w = 2
          if (charKind(cp) !== Kind.Word) break
        }
      }
      sink.push(vocab.idOf(text, from, i))
      continue
    }
    // a Japanese run: its bigrams, or the lone character
    let prev = i
    i += w
    let pairs = 0
    while (i < len) {
      const cp = text.codePointAt(i)!
      if (!isJapanese(cp)) break
      const next = i + (cp > 0xffff ? 2 : 1)
      sink.push(vocab.idOf(text, prev, next))
      pairs++
      prev = i
      i = next
    }
    if (pairs === 0) sink.push(vocab.idOf(text, from, i))
  }
}

/** A growable buffer of term ids. */
export class Sink {
  buf = new Int32Array(256)
  n = 0

  push(id: number): void {
    if (this.n === this.buf.length) {
      const bigger = new Int32Array(this.n * 2)
      bigger.set(this.buf)
      this.buf = bigger
    }
    this.buf[this.n++] = id
  }
}

/** Term ids of normalised texts, over one vocabulary: equal tokens get equal ids. */
export class Tokenizer {
  private readonly vocab = new Vocabulary()
  private readonly sink = new Sink()

  /** the term ids of `norm`'s tokens, in order */
  ids(norm: string): Int32Array {
    this.sink.n = 0
    addTokens(norm, this.vocab, this.sink)
    return this.sink.buf.slice(0, this.sink.n)
  }

  word(id: number): string {
    return this.vocab.words[id]!
  }

  /** how many distinct terms it has seen */
  get size(): number {
    return this.vocab.size
  }
}

/** The tokens of a normalised text, in order: what the index counts. */
export function tokens(norm: string): string[] {
  const t = new Tokenizer()
  return Array.from(t.ids(norm), (id) => t.word(id))
}

/** Term ids of words: equal words get equal ids, in order of first appearance. */
export class Vocabulary {
  private readonly ids = new Map<string, number>()
  readonly words: string[] = []

  /** the id of the token text[from, to) */
  idOf(text: string, from: number, to: number): number {
    const word = text.slice(from, to)
    let id = this.ids.get(word)
    if (id === undefined) {
      id = this.words.length
      this.ids.set(word, id)
      this.words.push(word)
    }
    return id
  }

  get size(): number {
    return this.words.length
  }
}
