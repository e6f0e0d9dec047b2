/**
 * Typed arrays handed back for reuse. V8 answers every 64 MB of new array
 * memory with a collection of the whole heap (an "external memory pressure"
 * mark-compact), whether the arrays before it are dead or not. The lending
 * builds an index per group and lets it go before the next, so at scale its
 * arrays alone called one every few groups, over a heap of millions of
 * candidates (docs/performance.md, "Wave 6"). An array taken from here is a
 * view of a buffer handed back before, of its class or the one above, when
 * one is free; only buffers the pool made are ever taken back.
 */

type Typed = Int8Array | Uint8Array | Int32Array | Uint32Array | Float64Array
type Make<T extends Typed> = {
  new (length: number): T
  new (buffer: ArrayBuffer, offset: number, length: number): T
  readonly BYTES_PER_ELEMENT: number
}

/** The smallest size class, log2 of its bytes: smaller arrays cost next to nothing, and are not pooled */
const MIN_CLASS = 12

/** The size class of `bytes`: log2 of the power of two that holds it */
function classOf(bytes: number): number {
  return 32 - Math.clz32(bytes - 1)
}

export class ArrayPool {
  /** free buffers by size class */
  private readonly free = new Map<number, ArrayBuffer[]>()
  /** every buffer now free: one handed back twice is taken once */
  private readonly isFree = new WeakSet<ArrayBuffer>()
  /** the buffers this pool made: nothing else is taken back (a Node Buffer's shared slab, a caller's own array) */
  private readonly made = new WeakSet<ArrayBuffer>()
  private freeBytes = 0
  /** the largest class held: a few big buffers would hold the budget for sizes rarely asked again */
  private readonly maxClass: number

  /** `budget`: the most bytes held free; past it, or past an eighth of it for one buffer, arrays are left to the collector */
  constructor(private readonly budget: number) {
    if (!(budget >= 0 && budget <= 2 ** 31)) throw new RangeError(`an array pool's budget is 0 to 2 GB, not ${budget}`)
    this.maxClass = Math.floor(Math.log2(budget / 8))
  }

  /** A zero-filled array of `n` elements: a view of a buffer handed back before, or a new array. */
  take<T extends Typed>(make: Make<T>, n: number): T {
    const cls = classOf(n * make.BYTES_PER_ELEMENT)
    // one that could never come back is made to its size
    if (cls < MIN_CLASS || cls > this.maxClass) return new make(n)
    // the class that fits, or the one above: a buffer twice the size beats a new one
    const buffer = this.free.get(cls)?.pop() ?? this.free.get(cls + 1)?.pop()
    if (buffer === undefined) {
      const fresh = new ArrayBuffer(2 ** cls)
      this.made.add(fresh)
      return new make(fresh, 0, n)
    }
    this.isFree.delete(buffer)
    this.freeBytes -= buffer.byteLength
    const view = new make(buffer, 0, n)
    view.fill(0)
    return view
  }

  /** Hands arrays back. Nothing may read or write them, or any view of their buffers, after. */
  give(...arrays: readonly (Typed | null | undefined)[]): void {
    for (const a of arrays) {
      if (!a) continue
      const buffer = a.buffer as ArrayBuffer
      // only buffers made here, each once, within the budget
      if (!this.made.has(buffer) || this.isFree.has(buffer)) continue
      const size = buffer.byteLength
      if (this.freeBytes + size > this.budget) continue
      const cls = classOf(size)
      let list = this.free.get(cls)
      if (!list) this.free.set(cls, (list = []))
      list.push(buffer)
      this.isFree.add(buffer)
      this.freeBytes += size
    }
  }

  /** bytes held free */
  get held(): number {
    return this.freeBytes
  }
}

/**
 * The lending's pool: arrays of up to 2 MB, enough for several indexes of
 * groups the size of an MMLU subject's side (under 1 MB an array at ×100),
 * the many a build lets go of one after another. The few groups of ARC's size
 * are each another size, and a pool of their arrays would only hold memory.
 */
export const lendingArrays = new ArrayPool(16 << 20)
