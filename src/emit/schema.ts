/** The schemas of what a build writes: a record, the "Changes from" figures, how its files name the recipe and builder. */
import { z } from 'zod'

export const Hex64 = z.string().regex(/^[0-9a-f]{64}$/)
/** How the lock and the manifest name the recipe and the builder they came from. */
export const RecipeRef = z.strictObject({ name: z.string(), version: z.string(), hash: Hex64 })
export const BuilderRef = z.strictObject({ name: z.string(), version: z.string() })

/** One line of test.jsonl / val.jsonl; key order is the output order. */
export const DataRecord = z
  .strictObject({
    id: z.string().min(1),
    source: z.string().min(1),
    question: z.string(),
    context: z.string().nullable(),
    choices: z.array(z.string()).min(2).max(8),
    answer_idx: z.int().nonnegative(),
    n_choices: z.int().min(2).max(8),
  })
  .refine((r) => r.answer_idx < r.choices.length, { message: 'answer_idx out of range', path: ['answer_idx'] })
  .refine((r) => r.n_choices === r.choices.length, { message: 'n_choices is not choices.length', path: ['n_choices'] })
export type DataRecord = z.infer<typeof DataRecord>

/** Per source, how a build's records relate to the previous version's (src/check/compare.ts counts them). */
export const SourceChanges = z.strictObject({
  kept: z.int().describe('same id in the same split, the same record byte for byte'),
  optionsChanged: z.int().describe('same id in the same split, other choices or answer position'),
  replaced: z.int().describe('records of this build whose question was not in that split before'),
})
export type SourceChanges = z.infer<typeof SourceChanges>
