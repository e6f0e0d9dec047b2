/**
 * The items' n-grams as numbers: each unit is numbered once, each gram hashed from its units' numbers
 * (integer arithmetic only) and confirmed unit by unit, so two grams that hash alike are never confused.
 * No gram's string is made unless a training row shares it.
 */
export class GramIndex {
  /** unit → its number */
  private readonly numbers = new Map<string, number>()
  /** the items' units, by number, one item after another */
  private units = new Int32Array(1024)
  private size = 0
  /** open addressing by hash: gram + 1 in each used slot */
  private slots = new Int32Array(1 << 12)
  /** per gram: where its units start in `units`, its hash, its first and last item */
  private start = new Int32Array(1024)
  private hash = new Int32Array(1024)
  private first = new Int32Array(1024)
  private last = new Int32Array(1024)
  private grams = 0
  /** per gram with more than one item: the others, in the order they were added */
  private readonly more = new Map<number, number[]>()

  /** `hash`: a gram's hash from its units' numbers (a test may give a poor one: only speed depends on it) */
  constructor(
    private readonly n: number,
    private readonly hashOf: (units: Int32Array, at: number, n: number) => number = hashAt,
  ) {}

  get empty(): boolean {
    return this.grams === 0
  }

  /** Indexes the grams of one item's units that start before `starts`. */
  add(item: number, units: readonly string[], starts: number): void {
    const base = this.size
    const end = base + units.length
    if (end > this.units.length) this.units = grown(this.units, end)
    for (let i = 0; i < units.length; i++) {
      let k = this.numbers.get(units[i]!)
      if (k === undefined) this.numbers.set(units[i]!, (k = this.numbers.size))
      this.units[base + i] = k
    }
    this.size = end
    for (let i = 0; i < starts; i++) {
      const at = base + i
      const h = this.hashOf(this.units, at, this.n)
      const g = this.find(this.units, at, h)
      if (g < 0) this.append(at, h, item)
      else if (this.last[g] !== item) {
        // an item's grams are added together, so one it already has is its last
        let list = this.more.get(g)
        if (!list) this.more.set(g, (list = []))
        list.push(item)
        this.last[g] = item
      }
    }
  }

  /** A text's units by number; −1 for a unit no item has. */
  numbered(units: readonly string[]): Int32Array {
    const out = new Int32Array(units.length)
    for (let i = 0; i < units.length; i++) out[i] = this.numbers.get(units[i]!) ?? -1
    return out
  }

  /** The gram of these numbered units from `at` on, or −1 when no item has it. */
  gramAt(units: Int32Array, at: number): number {
    return this.find(units, at, this.hashOf(units, at, this.n))
  }

  /** The items of a gram, in the order they were added. */
  itemsOf(gram: number): readonly number[] {
    const more = this.more.get(gram)
    return more ? [this.first[gram]!, ...more] : [this.first[gram]!]
  }

  private find(units: Int32Array, at: number, h: number): number {
    const mask = this.slots.length - 1
    for (let s = h & mask; this.slots[s] !== 0; s = (s + 1) & mask) {
      const g = this.slots[s]! - 1
      if (this.hash[g] === h && this.same(g, units, at)) return g
    }
    return -1
  }

  private same(g: number, units: Int32Array, at: number): boolean {
    const s = this.start[g]!
    for (let k = 0; k < this.n; k++) if (this.units[s + k] !== units[at + k]) return false
    return true
  }

  private append(at: number, h: number, item: number): void {
    const g = this.grams++
    if (g >= this.start.length) {
      this.start = grown(this.start, g + 1)
      this.hash = grown(this.hash, g + 1)
      this.first = grown(this.first, g + 1)
      this.last = grown(this.last, g + 1)
    }
    this.start[g] = at
    this.hash[g] = h
    this.first[g] = item
    this.last[g] = item
    // at most half full
    if (2 * this.grams > this.slots.length) this.rehash()
    else this.place(g)
  }

  private place(g: number): void {
    const mask = this.slots.length - 1
    let s = this.hash[g]! & mask
    while (this.slots[s] !== 0) s = (s + 1) & mask
    this.slots[s] = g + 1
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2)
    for (let g = 0; g < this.grams; g++) this.place(g)
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
