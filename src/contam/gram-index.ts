/**
 * The items' texts and n-grams as numbers: each unit is numbered once, each gram hashed from its units'
 * numbers (integer arithmetic only) and confirmed unit by unit, so two grams that hash alike are never
 * confused. No gram's string is made: a match's is cut from the training text.
 */
export class GramIndex {
  /** unit → its number */
  private readonly numbers = new Map<string, number>()
  /** the items' units, by number, one item after another */
  private units = new Int32Array(1 << 12)
  private size = 0
  /** per item: where its units start in `units`, and how many are its question's */
  private itemStart = new Int32Array(1 << 8)
  private itemQuestion = new Int32Array(1 << 8)
  private items = 0
  /** per gram occurrence, in the order added: where its units start, its item, its hash */
  private at = new Int32Array(1 << 12)
  private item = new Int32Array(1 << 12)
  private hash = new Int32Array(1 << 12)
  private grams = 0
  /** the occurrences by hash bucket (a counting sort, so each bucket keeps the order added), made on the first look-up */
  private buckets: { first: Int32Array; order: Int32Array; mask: number } | null = null

  /** `hashOf`: a gram's hash from its units' numbers (a test may give a poor one: only speed depends on it) */
  constructor(
    private readonly n: number,
    private readonly hashOf: (units: Int32Array, at: number, n: number) => number = hashAt,
  ) {}

  get empty(): boolean {
    return this.grams === 0
  }

  /**
   * Adds an item: its units, the first `question` of them its question's, and its grams that start
   * before `starts`. Gives the item's number (0, 1, … in the order added). No item may come after a look-up.
   */
  add(units: readonly string[], question: number, starts: number): number {
    if (this.buckets) throw new Error('GramIndex: an item added after a look-up')
    const base = this.size
    this.size += units.length
    if (this.size > this.units.length) this.units = grown(this.units, this.size)
    for (let i = 0; i < units.length; i++) {
      let k = this.numbers.get(units[i]!)
      if (k === undefined) this.numbers.set(units[i]!, (k = this.numbers.size))
      this.units[base + i] = k
    }
    const item = this.items++
    if (item >= this.itemStart.length) {
      this.itemStart = grown(this.itemStart, item + 1)
      this.itemQuestion = grown(this.itemQuestion, item + 1)
    }
    this.itemStart[item] = base
    this.itemQuestion[item] = question
    const o = this.grams
    this.grams += starts
    if (this.grams > this.at.length) {
      this.at = grown(this.at, this.grams)
      this.item = grown(this.item, this.grams)
      this.hash = grown(this.hash, this.grams)
    }
    for (let i = 0; i < starts; i++) {
      this.at[o + i] = base + i
      this.item[o + i] = item
      this.hash[o + i] = this.hashOf(this.units, base + i, this.n)
    }
    return item
  }

  /** A text's units by number; −1 for a unit no item has. */
  numbered(units: readonly string[]): Int32Array {
    const out = new Int32Array(units.length)
    for (let i = 0; i < units.length; i++) out[i] = this.numbers.get(units[i]!) ?? -1
    return out
  }

  /** The items with the gram of these numbered units from `at` on, each once, in the order they were added. */
  itemsWith(units: Int32Array, at: number): number[] {
    const { first, order, mask } = (this.buckets ??= this.bucketed())
    const h = this.hashOf(units, at, this.n)
    const out: number[] = []
    for (let b = first[h & mask]!, end = first[(h & mask) + 1]!; b < end; b++) {
      const o = order[b]!
      const item = this.item[o]!
      // an item's occurrences of a gram are next to each other, since its grams are added together
      if (this.hash[o] === h && out.at(-1) !== item && this.same(this.at[o]!, units, at, this.n)) out.push(item)
    }
    return out
  }

  /** Whether an item's question is these numbered units. */
  questionIs(item: number, units: Int32Array, length: number): boolean {
    return this.itemQuestion[item] === length && this.same(this.itemStart[item]!, units, 0, length)
  }

  /** An item's question, by number. */
  question(item: number): Int32Array {
    const start = this.itemStart[item]!
    return this.units.subarray(start, start + this.itemQuestion[item]!)
  }

  private same(start: number, units: Int32Array, at: number, length: number): boolean {
    for (let k = 0; k < length; k++) if (this.units[start + k] !== units[at + k]) return false
    return true
  }

  private bucketed(): { first: Int32Array; order: Int32Array; mask: number } {
    // two to four occurrences a bucket: the counts and the sort stay in the processor's cache, and a look-up checks a few hashes
    let bits = 4
    while (4 << bits < this.grams) bits++
    const mask = (1 << bits) - 1
    const first = new Int32Array(mask + 2)
    for (let o = 0; o < this.grams; o++) first[(this.hash[o]! & mask) + 1] = first[(this.hash[o]! & mask) + 1]! + 1
    for (let b = 0; b <= mask; b++) first[b + 1] = first[b + 1]! + first[b]!
    const next = first.slice(0, mask + 1)
    const order = new Int32Array(this.grams)
    for (let o = 0; o < this.grams; o++) {
      const b = this.hash[o]! & mask
      order[next[b]!] = o
      next[b] = next[b]! + 1
    }
    return { first, order, mask }
  }
}

function grown(a: Int32Array, need: number): Int32Array<ArrayBuffer> {
  let size = a.length * 2
  while (size < need) size *= 2
  const b = new Int32Array(size)
  b.set(a)
  return b
}

/** A 32-bit hash of n unit numbers from `at` on. */
export function hashAt(units: Int32Array, at: number, n: number): number {
  let h = n
  for (let k = 0; k < n; k++) {
    h = Math.imul(h ^ units[at + k]!, 0x5bd1e995)
    h ^= h >>> 15
  }
  h = Math.imul(h ^ (h >>> 13), 0x27d4eb2d)
  return h ^ (h >>> 16)
}
