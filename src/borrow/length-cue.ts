/**
 * Amendment 1.2's length rule: among grown items of one option count n in a
 * split, "always the longest" should earn about 1/n. Items whose right answer
 * is their longest option and that can borrow something longer are dealt, in
 * keyed-hash order, to keep it the longest while the group's credit stays
 * within count/n; the others borrow a longer option. Items with nothing longer
 * to borrow grow only now and then (keepsLongest).
 */
import { keyedHash } from '../shape/rng.ts'
import { codePointLength, compareStrings } from '../util/canonical.ts'

/** What the audit's "longest" baseline credits an item with: 1/t where the right answer is one of the t longest options, 840ths (840 = lcm of 1..8, so it is exact). */
export function longestCredit(options: readonly string[], answer: number): number {
  const lengths = options.map(codePointLength)
  const max = Math.max(...lengths)
  return lengths[answer] === max ? 840 / lengths.filter((l) => l === max).length : 0
}

/**
 * Whether an item whose right answer is its longest option, and which has
 * nothing longer to borrow, may still grow (called with forcedLongest times
 * its smallest grown size): with chance 840·of / (n · credit), at most 1, by a
 * keyed 52-bit draw of the item's own, compared exactly. Such items spend the
 * length deal's budget without choice, so only a part of what 1/n allows grow
 * this way; the build deals the rest.
 */
export function keepsLongest(cue: bigint, n: number, [credit, of]: [number, number]): boolean {
  return credit === 0 || cue * BigInt(n * credit) < BigInt(840 * of) << 52n
}

export interface LengthItem {
  id: string
  identity: string
  n: number
  /** the longest baseline's credit on the item if it keeps its right answer the longest, in 840ths */
  credit: number
  /** whether it can borrow an option longer than its right answer instead */
  choice: boolean
}

/** The ids of the items with a choice that keep their right answer the longest. */
export function dealLongest(items: readonly LengthItem[], seed: number, split: string): Set<string> {
  const byN = new Map<number, LengthItem[]>()
  for (const it of items) {
    let list = byN.get(it.n)
    if (!list) byN.set(it.n, (list = []))
    list.push(it)
  }
  const kept = new Set<string>()
  for (const [n, list] of byN) {
    // 840 / n is an integer for n ≤ 8: the budget is exact
    const budget = (840 / n) * list.length
    let spent = list.filter((it) => !it.choice).reduce((sum, it) => sum + it.credit, 0)
    const choosers = list
      .filter((it) => it.choice)
      .map((it) => ({ it, k: keyedHash(seed, 'length-cue', `${split}\u0000${n}\u0000${it.identity}`) }))
      .sort((a, b) => compareStrings(a.k, b.k) || compareStrings(a.it.id, b.it.id))
    for (const { it } of choosers)
      if (spent + it.credit <= budget) {
        spent += it.credit
        kept.add(it.id)
      }
  }
  return kept
}
