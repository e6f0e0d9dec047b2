import { z } from 'zod'
import { type Adapter, contentId } from './adapter.ts'

const BoolqRow = z.object({
  question: z.string(),
  answer: z.boolean(),
  passage: z.string(),
})
type BoolqRow = z.infer<typeof BoolqRow>

/** google/boolq: a yes/no question over a passage; no upstream id. */
export const boolq: Adapter<BoolqRow> = {
  idFrom: 'content',
  columns: ['question', 'answer', 'passage'],
  row: BoolqRow,
  toQuestion(row, at) {
    return {
      id: contentId(at.source, { question: row.question, answer: row.answer, passage: row.passage }),
      subject: null,
      question: row.question,
      context: row.passage,
      options: ['yes', 'no'],
      answer: row.answer ? 0 : 1,
    }
  },
}
