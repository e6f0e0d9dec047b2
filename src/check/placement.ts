import { numberClass, unitOf } from '../borrow/option-kinds.ts'
import { credit } from '../emit/audit.ts'
import type { ProvenanceLine } from '../emit/provenance.ts'
import type { DataRecord } from '../emit/schema.ts'
import { type Recipe, SPLITS, type Split } from '../recipe/schema.ts'
import { codePointLength, compareStrings, normalize } from '../util/canonical.ts'

/**
 * The rules of Amendment 1.2 that the files prove, each checked only where the
 * recipe asks for it: answer positions dealt evenly, both sides' answer shares
 * equal, no length to exploit on grown items, units that agree among numbers.
 */
export function checkPlacement(records: Record<Split, readonly DataRecord[]>, lines: readonly ProvenanceLine[], recipe: Recipe): string[] {
  const origins = new Map(lines.map((p) => [`${p.split}\u0000${p.id}`, p.choices]))
  const borrowedOf = (split: Split, r: DataRecord) => (origins.get(`${split}\u0000${r.id}`) ?? []).map((c) => c.from === 'borrowed')
  return [
    ...(recipe.placement === 'dealt' ? dealtPositions(records, recipe) : []),
    ...balancedSides(records, recipe),
    ...(recipe.checks?.longestOnGrown !== undefined ? longestOnGrown(records, borrowedOf, recipe.checks.longestOnGrown) : []),
    ...(recipe.checks?.unitsAgree ? unitsOfBorrowed(records, borrowedOf) : []),
  ]
}

/** Per split, shuffled source and option count, the right answer's position counts differ by at most one. */
function dealtPositions(records: Record<Split, readonly DataRecord[]>, recipe: Recipe): string[] {
  const shuffled = new Set(recipe.sources.filter((s) => s.shuffle).map((s) => s.name))
  const problems: string[] = []
  for (const split of SPLITS) {
    const groups = new Map<string, number[]>()
    for (const r of records[split]) {
      if (!shuffled.has(r.source)) continue
      const key = `${r.source} at ${r.n_choices} options`
      let counts = groups.get(key)
      if (!counts) groups.set(key, (counts = Array(r.n_choices).fill(0)))
      counts[r.answer_idx]!++
    }
    for (const key of [...groups.keys()].sort(compareStrings)) {
      const counts = groups.get(key)!
      if (Math.max(...counts) - Math.min(...counts) > 1)
        problems.push(
          `${split}: ${key}: the right answer sits ${counts.join('/')} times at positions A–${'ABCDEFGH'[counts.length - 1]}, counts more than one apart (the recipe deals positions)`,
        )
    }
  }
  return problems
}

/** Where a source's sides are balanced by answer, each answer's share of test and of val differ by at most one item of the smaller split. */
function balancedSides(records: Record<Split, readonly DataRecord[]>, recipe: Recipe): string[] {
  const problems: string[] = []
  for (const s of recipe.sources) {
    if (s.balanceSides !== 'answer' || s.test.from !== s.val.from) continue
    const tally = SPLITS.map((split) => {
      const mine = records[split].filter((r) => r.source === s.name)
      const by = new Map<string, number>()
      for (const r of mine) {
        const a = normalize(r.choices[r.answer_idx] ?? '')
        by.set(a, (by.get(a) ?? 0) + 1)
      }
      return { split, n: mine.length, by }
    })
    const [t, v] = tally as [(typeof tally)[0], (typeof tally)[0]]
    if (t.n === 0 || v.n === 0) continue
    const answers = [...new Set([...t.by.keys(), ...v.by.keys()])].sort(compareStrings)
    for (const a of answers) {
      const ct = t.by.get(a) ?? 0
      const cv = v.by.get(a) ?? 0
      if (Math.abs(ct / t.n - cv / v.n) > 1 / Math.min(t.n, v.n) + 1e-9)
        problems.push(
          `${s.name}: "${a}" is the answer of ${ct} of ${t.n} test items (${pct(ct / t.n)}) and ${cv} of ${v.n} val items (${pct(cv / v.n)}), more than one item apart (the recipe balances sides by answer)`,
        )
    }
  }
  return problems
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`
const fixed3 = (x: number) => x.toFixed(3)

/**
 * "Always the longest option" (ties share the credit) on grown items scores no more than their chance
 * floor plus `margin`, and at each n no more than on the not-grown items of that n, in every split.
 */
function longestOnGrown(
  records: Record<Split, readonly DataRecord[]>,
  borrowedOf: (split: Split, r: DataRecord) => boolean[],
  margin: number,
): string[] {
  const problems: string[] = []
  for (const split of SPLITS) {
    const byN = new Map<number, { grown: number[]; not: number[] }>()
    let floor = 0
    let longest = 0
    let grown = 0
    for (const r of records[split]) {
      const score = credit(r.choices.map(codePointLength), r.answer_idx)
      const isGrown = borrowedOf(split, r).some((b) => b)
      let at = byN.get(r.n_choices)
      if (!at) byN.set(r.n_choices, (at = { grown: [], not: [] }))
      ;(isGrown ? at.grown : at.not).push(score)
      if (!isGrown) continue
      grown++
      floor += 1 / r.n_choices
      longest += score
    }
    if (grown === 0) continue
    if (longest / grown > floor / grown + margin + 1e-9)
      problems.push(
        `${split}: on the ${grown} grown items "always the longest option" scores ${fixed3(longest / grown)}, above their chance floor ${fixed3(floor / grown)} plus ${margin}`,
      )
    const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length
    for (const n of [...byN.keys()].sort((a, b) => a - b)) {
      const { grown: g, not } = byN.get(n)!
      if (g.length && not.length && mean(g) > mean(not) + 1e-9)
        problems.push(
          `${split}: at ${n} options "always the longest option" scores ${fixed3(mean(g))} on the ${g.length} grown items, above ${fixed3(mean(not))} on the ${not.length} not grown`,
        )
    }
  }
  return problems
}

/** In a grown item whose options are all numbers, every borrowed option is in a unit one of its own options has (unitsAgree's units). */
function unitsOfBorrowed(records: Record<Split, readonly DataRecord[]>, borrowedOf: (split: Split, r: DataRecord) => boolean[]): string[] {
  const problems: string[] = []
  for (const split of SPLITS)
    for (const r of records[split]) {
      const borrowed = borrowedOf(split, r)
      if (!borrowed.some((b) => b) || numberClass(r.choices) !== 'numbers') continue
      const own = new Set(r.choices.filter((_, i) => !borrowed[i]).map(unitOf))
      const foreign = r.choices.filter((c, i) => borrowed[i] && !own.has(unitOf(c)))
      if (foreign.length)
        problems.push(
          `${split} ${r.id}: borrowed ${foreign.map((c) => JSON.stringify(c)).join(', ')} in another unit than the item's own options (${r.choices
            .filter((_, i) => !borrowed[i])
            .map((c) => JSON.stringify(c))
            .join(', ')})`,
        )
    }
  return problems
}
