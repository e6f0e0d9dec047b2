/**
 * The sources' downloads, started ahead of their loading, in recipe order. A
 * source's rows are decoded and prepared on the main thread, which blocks the
 * event loop for as long: a download started before that runs in the waits
 * (the first source's, mostly), one started at its source's turn is waited for.
 */

/**
 * The lock's sizes of the sources fetched ahead and not yet loaded may add up
 * to this, beyond the next source (fetched ahead whatever its size). It bounds
 * the bytes prefetching holds, and the bandwidth it shares: each file's
 * deadline runs from its first request (16 MiB take ~30 s at 0.5 MB/s).
 */
export const PREFETCH_BYTES = 16 * 2 ** 20

export interface PrefetchOptions<T> {
  count: number
  /** source i's files in all, in bytes, when known (a lock's sizes); none is fetched ahead of one of unknown size but the next */
  sizeOf: (i: number) => number | undefined
  start: (i: number) => Promise<T>
  /** default PREFETCH_BYTES */
  budget?: number
}

/**
 * `take(i)`, for i = 0, 1, … in turn, gives source i's download and starts the
 * next source's if it has not begun (always one ahead, whatever its size), then
 * those after it while the sizes of the sources started and not yet taken fit
 * in the budget.
 */
export class Prefetcher<T> {
  private readonly started: (Promise<T> | undefined)[] = []
  private launched = 0
  private readonly budget: number

  constructor(private readonly options: PrefetchOptions<T>) {
    this.budget = options.budget ?? PREFETCH_BYTES
  }

  take(i: number): Promise<T> | undefined {
    if (i >= this.options.count) return undefined
    while (this.launched <= Math.min(i + 1, this.options.count - 1)) this.launch()
    let ahead = 0
    // one of unknown size held ahead may be any size: nothing more until it is taken
    for (let j = i + 1; j < this.launched; j++) ahead += this.options.sizeOf(j) ?? Number.POSITIVE_INFINITY
    while (this.launched < this.options.count) {
      const size = this.options.sizeOf(this.launched)
      if (size === undefined || ahead + size > this.budget) break
      ahead += size
      this.launch()
    }
    const got = this.started[i]
    this.started[i] = undefined // its files are the loading's to hold now, not this list's
    return got
  }

  private launch(): void {
    const i = this.launched++
    this.started[i] = this.options.start(i)
  }
}
