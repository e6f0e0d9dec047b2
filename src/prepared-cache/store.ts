/**
 * A prepared source packed for the cache (src/prepared-cache/cache.ts): every candidate's texts in one UTF-8
 * buffer with offsets, its small fields in typed arrays over a table of repeated strings, and the sides
 * and lenders as index arrays. Read back, each candidate is an object that decodes a text on first read:
 * a warm build reads the texts of the few hundred questions it selects, not of the tens of thousands it
 * holds, so deserialising and collecting the entry costs a fraction of what the candidates' objects did.
 * The normalised texts are not stored: they are `normalize` of the stored ones, worked out where read.
 */

import type { Candidate } from '../prepare/eligibility.ts'
import type { PreparedSource } from '../prepare/prepare.ts'
import type { Split } from '../recipe/schema.ts'
import { normalize } from '../util/canonical.ts'

/** The part of a prepared source an entry holds (the spec comes from the recipe). */
export type PreparedParts = Omit<PreparedSource, 'spec'>

export interface PackedSource {
  /** strings many candidates share (source, subject, upstream split, file), by index */
  table: string[]
  /** per candidate: its source, subject (-1: none), split and file, as table indexes */
  refs: Int32Array
  /** per candidate: its answer, row, and flags (1: a context, 2: a context key) */
  nums: Int32Array
  /** per candidate, its first slot; then the end */
  firstSlot: Uint32Array
  /** per slot, its first byte in `texts`; then the end */
  slotAt: Uint32Array
  /** the slots of a candidate: id, identity, text key, context key, question, context, then its options */
  texts: Uint8Array
  sides: Record<Split, Int32Array>
  lenders: Record<Split, Int32Array>
  drops: PreparedSource['drops']
  excludedHits: string[]
}

const FIXED_SLOTS = 6
const HAS_CONTEXT = 1
const HAS_CONTEXT_KEY = 2

/** UTF-8 keeps a string only when it is well-formed UTF-16 (no lone surrogate); Node 20 has the method, ES2022's types do not */
const wellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed()
const isInt32 = (n: number) => n === (n | 0)

/**
 * The packed form, or null when the candidates hold what it cannot give back exactly (a lone surrogate,
 * which UTF-8 turns into U+FFFD, or a number outside int32): then the source is not cached, and a hit can
 * never differ from a miss.
 */
export function packPrepared(p: PreparedParts): PackedSource | null {
  const at = new Map<Candidate, number>()
  const all: Candidate[] = []
  for (const list of [p.lenders.test, p.lenders.val, p.sides.test, p.sides.val])
    for (const c of list) if (!at.has(c)) at.set(c, all.push(c) - 1)
  const table: string[] = []
  const tableAt = new Map<string, number>()
  const ref = (s: string) => {
    let k = tableAt.get(s)
    if (k === undefined) tableAt.set(s, (k = table.push(s) - 1))
    return k
  }
  const refs = new Int32Array(all.length * 4)
  const nums = new Int32Array(all.length * 3)
  const firstSlot = new Uint32Array(all.length + 1)
  const slots: string[] = []
  for (const [i, c] of all.entries()) {
    refs[i * 4] = ref(c.source)
    refs[i * 4 + 1] = c.subject === null ? -1 : ref(c.subject)
    refs[i * 4 + 2] = ref(c.upstreamSplit)
    refs[i * 4 + 3] = ref(c.file)
    if (!isInt32(c.answer) || !isInt32(c.row)) return null
    nums[i * 3] = c.answer
    nums[i * 3 + 1] = c.row
    nums[i * 3 + 2] = (c.context === null ? 0 : HAS_CONTEXT) | (c.contextKey === undefined ? 0 : HAS_CONTEXT_KEY)
    firstSlot[i] = slots.length
    slots.push(c.id, c.identity, c.textKey, c.contextKey ?? '', c.question, c.context ?? '')
    for (const o of c.options) slots.push(o)
  }
  firstSlot[all.length] = slots.length
  const slotAt = new Uint32Array(slots.length + 1)
  let bytes = 0
  for (const [k, s] of slots.entries()) {
    if (!wellFormed(s)) return null
    slotAt[k] = bytes
    bytes += Buffer.byteLength(s)
  }
  slotAt[slots.length] = bytes
  const texts = Buffer.allocUnsafe(bytes)
  for (const [k, s] of slots.entries()) texts.write(s, slotAt[k]!)
  const indexes = (list: readonly Candidate[]) => Int32Array.from(list, (c) => at.get(c)!)
  return {
    table,
    refs,
    nums,
    firstSlot,
    slotAt,
    texts,
    sides: { test: indexes(p.sides.test), val: indexes(p.sides.val) },
    lenders: { test: indexes(p.lenders.test), val: indexes(p.lenders.val) },
    drops: p.drops,
    excludedHits: [...p.excludedHits],
  }
}

/** The prepared source again, its candidates shared between sides and lenders as they were. */
export function unpackPrepared(s: PackedSource): PreparedParts {
  const texts = Buffer.from(s.texts.buffer, s.texts.byteOffset, s.texts.byteLength)
  const all = Array.from({ length: s.firstSlot.length - 1 }, (_, i) => new StoredCandidate(s, texts, i))
  const of = (list: Int32Array) => Array.from(list, (i) => all[i]!)
  return {
    sides: { test: of(s.sides.test), val: of(s.sides.val) },
    lenders: { test: of(s.lenders.test), val: of(s.lenders.val) },
    drops: s.drops,
    excludedHits: new Set(s.excludedHits),
  }
}

/** A candidate read from a packed source: each text decoded (and normalised) on first read, then kept. */
class StoredCandidate implements Candidate {
  #id?: string
  #identity?: string
  #textKey?: string
  /** null: none */
  #contextKey?: string | null
  #question?: string
  #context?: string | null
  #options?: string[]
  #normQuestion?: string
  #normOptions?: string[]

  constructor(
    private readonly s: PackedSource,
    private readonly texts: Buffer,
    private readonly i: number,
  ) {}

  private slot(k: number): string {
    const at = this.s.firstSlot[this.i]! + k
    return this.texts.toString('utf8', this.s.slotAt[at]!, this.s.slotAt[at + 1]!)
  }

  private flag(f: number): boolean {
    return (this.s.nums[this.i * 3 + 2]! & f) !== 0
  }

  get source(): string {
    return this.s.table[this.s.refs[this.i * 4]!]!
  }
  get subject(): string | null {
    const k = this.s.refs[this.i * 4 + 1]!
    return k < 0 ? null : this.s.table[k]!
  }
  get upstreamSplit(): string {
    return this.s.table[this.s.refs[this.i * 4 + 2]!]!
  }
  get file(): string {
    return this.s.table[this.s.refs[this.i * 4 + 3]!]!
  }
  get answer(): number {
    return this.s.nums[this.i * 3]!
  }
  get row(): number {
    return this.s.nums[this.i * 3 + 1]!
  }
  get id(): string {
    return (this.#id ??= this.slot(0))
  }
  get identity(): string {
    return (this.#identity ??= this.slot(1))
  }
  get textKey(): string {
    return (this.#textKey ??= this.slot(2))
  }
  get contextKey(): string | undefined {
    if (this.#contextKey === undefined) this.#contextKey = this.flag(HAS_CONTEXT_KEY) ? this.slot(3) : null
    return this.#contextKey ?? undefined
  }
  get question(): string {
    return (this.#question ??= this.slot(4))
  }
  get context(): string | null {
    if (this.#context === undefined) this.#context = this.flag(HAS_CONTEXT) ? this.slot(5) : null
    return this.#context
  }
  get options(): string[] {
    if (this.#options === undefined) {
      const n = this.s.firstSlot[this.i + 1]! - this.s.firstSlot[this.i]! - FIXED_SLOTS
      this.#options = Array.from({ length: n }, (_, k) => this.slot(FIXED_SLOTS + k))
    }
    return this.#options
  }
  get normQuestion(): string {
    return (this.#normQuestion ??= normalize(this.question))
  }
  get normOptions(): string[] {
    if (this.#normOptions === undefined) {
      const norm = this.options.map(normalize)
      // as toCandidate does: where nothing changes, one array serves both
      this.#normOptions = norm.every((n, k) => n === this.options[k]) ? this.options : norm
    }
    return this.#normOptions
  }
}
