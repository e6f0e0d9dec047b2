import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parquetMetadata, parquetSchema } from 'hyparquet'
import { parquetWriteBuffer } from 'hyparquet-writer'
import type { RecipeInput } from '../src/recipe/schema.ts'
import { type Rng, randInt, rngFor } from '../src/shape/rng.ts'

/** Real row counts of the upstream splits jev-bench reads. */
const REAL_ROWS = {
  arcChallenge: { test: 1172, validation: 299 },
  arcEasy: { test: 2376, validation: 570 },
  mmlu: { test: 14042, validation: 1531 },
  jcqa: 1119,
  boolq: 3270,
}

/**
 * How the synthetic words are drawn. `zipf` (the default): the r-th most common
 * of a vocabulary that grows with the rows drawn with weight 1/r, the shape
 * of the real questions' words (docs/performance.md, "Wave 2"); `uniform`:
 * uniformly from 4,000, as the bench drew them before, a worst case for the
 * lending's search (every term equally rare).
 */
export type Vocabulary = 'zipf' | 'uniform'

const UNIFORM_WORDS = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}`)

/** Real ARC: 8,019 distinct words in 133 k tokens; MMLU 34 k in 1.05 M (vocabulary ∝ tokens^0.7, Heaps' law) */
const ZIPF_BASE = 40000
const ZIPF_EXPONENT = 1

type Draw = (rng: Rng) => string

export function wordsOf(vocabulary: Vocabulary, scale: number): Draw {
  if (vocabulary === 'uniform') return (rng) => UNIFORM_WORDS[randInt(rng, UNIFORM_WORDS.length)]!
  const size = Math.round(ZIPF_BASE * scale ** 0.7)
  const cdf = new Float64Array(size)
  let sum = 0
  for (let r = 0; r < size; r++) cdf[r] = sum += (r + 1) ** -ZIPF_EXPONENT
  const names: string[] = []
  return (rng) => {
    // inverse of the cumulative weights, by bisection; 2^32 steps are plenty for a few hundred thousand words
    const u = (rng.uint32() / 2 ** 32) * sum
    let lo = 0
    let hi = size - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cdf[mid]! <= u) lo = mid + 1
      else hi = mid
    }
    return (names[lo] ??= `w${lo.toString(36)}`)
  }
}

let draw: Draw = wordsOf('uniform', 1)

function words(rng: Rng, min: number, max: number): string {
  const n = min + randInt(rng, max - min + 1)
  return Array.from({ length: n }, () => draw(rng)).join(' ')
}

type Row = Record<string, unknown>

function schemaOf(fixture: string) {
  const buf = readFileSync(fixture)
  return parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer).schema
}

function write(root: string, repo: string, path: string, rows: Row[]): void {
  const schema = schemaOf(join('test/fixtures/hub/datasets', repo, path))
  const names = parquetSchema({ schema } as Parameters<typeof parquetSchema>[0]).children.map((c) => c.element.name)
  const buf = parquetWriteBuffer({ columnData: names.map((name) => ({ name, data: rows.map((r) => r[name]) })), schema, codec: 'SNAPPY' })
  const out = join(root, 'datasets', repo, path)
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, new Uint8Array(buf))
}

function arcRows(rng: Rng, n: number, prefix: string): Row[] {
  return Array.from({ length: n }, (_, i) => {
    const k = 3 + randInt(rng, 3)
    const label = 'ABCDE'.slice(0, k).split('')
    return {
      id: `${prefix}_${i}`,
      question: words(rng, 8, 30),
      choices: { text: label.map(() => words(rng, 1, 6)), label },
      answerKey: label[randInt(rng, k)],
    }
  })
}

function mmluRows(rng: Rng, n: number, subjects: number): Row[] {
  return Array.from({ length: n }, () => ({
    question: words(rng, 6, 40),
    subject: `subject_${randInt(rng, subjects)}`,
    choices: Array.from({ length: 4 }, () => words(rng, 1, 8)),
    answer: BigInt(randInt(rng, 4)),
  }))
}

/**
 * Writes Hub-layout sources shaped like jev-bench's, at `scale` times the real
 * row counts, and returns a recipe asking for `scale` times the real counts.
 * Seeded, so every run measures the same input; `uniform` writes the same
 * files as the bench did before it had a choice.
 */
export function writeSynthetic(root: string, scale: number, base: RecipeInput, vocabulary: Vocabulary = 'zipf'): RecipeInput {
  const rng = rngFor(1234, 'bench-synth', String(scale))
  draw = wordsOf(vocabulary, scale)
  const s = (n: number) => Math.round(n * scale)
  const subjects = 57 * Math.ceil(Math.sqrt(scale))
  write(root, 'allenai/ai2_arc', 'ARC-Challenge/test-00000-of-00001.parquet', arcRows(rng, s(REAL_ROWS.arcChallenge.test), 'ct'))
  write(
    root,
    'allenai/ai2_arc',
    'ARC-Challenge/validation-00000-of-00001.parquet',
    arcRows(rng, s(REAL_ROWS.arcChallenge.validation), 'cv'),
  )
  write(root, 'allenai/ai2_arc', 'ARC-Easy/test-00000-of-00001.parquet', arcRows(rng, s(REAL_ROWS.arcEasy.test), 'et'))
  write(root, 'allenai/ai2_arc', 'ARC-Easy/validation-00000-of-00001.parquet', arcRows(rng, s(REAL_ROWS.arcEasy.validation), 'ev'))
  write(root, 'cais/mmlu', 'all/test-00000-of-00001.parquet', mmluRows(rng, s(REAL_ROWS.mmlu.test), subjects))
  write(root, 'cais/mmlu', 'all/validation-00000-of-00001.parquet', mmluRows(rng, s(REAL_ROWS.mmlu.validation), subjects))
  write(
    root,
    'sbintuitions/JCommonsenseQA',
    'data/validation-00000-of-00001.parquet',
    Array.from({ length: s(REAL_ROWS.jcqa) }, (_, i) => ({
      q_id: BigInt(i),
      question: words(rng, 5, 20),
      choice0: words(rng, 1, 3),
      choice1: words(rng, 1, 3),
      choice2: words(rng, 1, 3),
      choice3: words(rng, 1, 3),
      choice4: words(rng, 1, 3),
      label: BigInt(randInt(rng, 5)),
    })),
  )
  // BoolQ-like: long passages, as upstream (about 100 words each)
  write(
    root,
    'google/boolq',
    'data/validation-00000-of-00001.parquet',
    Array.from({ length: s(REAL_ROWS.boolq) }, () => ({
      question: words(rng, 5, 12),
      answer: randInt(rng, 2) === 0,
      passage: words(rng, 60, 160),
    })),
  )
  const quota = (q: Record<string, number>) => Object.fromEntries(Object.entries(q).map(([k, v]) => [k, s(v)]))
  const recipe = structuredClone(base)
  recipe.name = `${base.name}-x${scale}`
  recipe.quotas = { test: quota(base.quotas.test) as never, val: quota(base.quotas.val) as never }
  for (const src of recipe.sources) {
    src.test.count = s(src.test.count)
    src.val.count = s(src.val.count)
  }
  // rounding can leave the quota sums off by a few: settle the difference on 4 options
  for (const split of ['test', 'val'] as const) {
    const q = recipe.quotas[split] as Record<string, number>
    const want = recipe.sources.reduce((a, x) => a + x[split].count, 0)
    const have = Object.values(q).reduce((a, v) => a + v, 0)
    q['4'] = q['4']! + want - have
  }
  delete recipe.$schema
  // what the synthetic sources have no files for: a previous version to compare with, training splits, judged rates,
  // and reviewers' marks (they name the real items)
  delete recipe.changesFrom
  delete recipe.contamination
  delete recipe.judged
  const plausible = (recipe.distractors?.borrow as { plausible?: { related?: unknown; screened?: unknown } })?.plausible
  delete plausible?.related
  delete plausible?.screened
  return recipe
}
