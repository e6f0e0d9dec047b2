/**
 * Typed arrays handed back for reuse. V8 answers every 64 MB of new array
 * memory with a collection of the whole heap (an "external memory pressure"
 * mark-compact), whether the arrays before it are dead or not. The lending
 * builds an index per group and lets it go before the next, so at scale its
 * arrays alone called one every few groups, over a heap of millions of
 * candidates: at ×100, 36 of them, ~59 s of a 387 s build (docs/performance.md).
 * Arrays taken from here come from buffers an earlier index gave back.
 */

type Typed = Int8Array | Uint8Array | Int32Array | Uint32Array | Float64Array
type Make<T extends Typed> = { new (buffer: ArrayBuffer, offset: number, length: number): T; readonly BYTES_PER_ELEMENT: number }

/** Buffers below this are not pooled: V8 keeps the smallest in the heap, and the rest cost next to nothing */
const MIN_BYTES = 1 << 12

/** The size class of `bytes`: the power of two that holds it */
function classOf(bytes: number): number {
  return Math.max(12, 32 - Math.clz32(bytes - 1))
}

export class ArrayPool {
  /** free buffers by size class (log2 of their bytes) */
  private readonly free = new Map<number, ArrayBuffer[]>()
  /** every buffer now free: one handed back twice is taken once */
  private readonly isFree = new WeakSet<ArrayBuffer>()
  private freeBytes = 0

  /**
   * `budget`: the most bytes held free; past it, what is handed back is left to the collector, as is any
   * buffer over an eighth of it (a few big ones would hold the budget for arrays of a size rarely asked again)
   */
  constructor(private readonly budget: number) {}

  /** A zero-filled array of `n` elements: a view of a buffer handed back before, or of a new one. */
  take<T extends Typed>(make: Make<T>, n: number): T {
    const bytes = n * make.BYTES_PER_ELEMENT
    if (bytes < MIN_BYTES) return new make(new ArrayBuffer(bytes), 0, n)
    const cls = classOf(bytes)
    // the class that fits, or the one above: a buffer twice the size beats a new one
    for (const c of [cls, cls + 1]) {
      const buffer = this.free.get(c)?.pop()
      if (buffer === undefined) continue
      this.isFree.delete(buffer)
      this.freeBytes -= buffer.byteLength
      const view = new make(buffer, 0, n)
      view.fill(0)
      return view
    }
    return new make(new ArrayBuffer(2 ** cls), 0, n)
  }

  /** Hands arrays back. Nothing may read or write them, or any view of their buffers, after. */
  give(...arrays: readonly (Typed | null | undefined)[]): void {
    for (const a of arrays) {
      if (!a) continue
      const buffer = a.buffer as ArrayBuffer
      const size = buffer.byteLength
      // only whole buffers of a class's size, each once
      if (size < MIN_BYTES || size !== 2 ** classOf(size) || this.isFree.has(buffer)) continue
      if (size > this.budget / 8 || this.freeBytes + size > this.budget) continue
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
