import { z } from 'zod'
import { type Adapter, contentId, dataError, IntColumn } from './adapter.ts'

const MmluRow = z.object({
  question: z.string(),
  subject: z.string().min(1),
  choices: z.array(z.string()).min(1),
  answer: IntColumn,
})
type MmluRow = z.infer<typeof MmluRow>

/** cais/mmlu: `answer` is a ClassLabel index into `choices`; no upstream id. */
export const mmlu: Adapter<MmluRow> = {
  idFrom: 'content',
  columns: ['question', 'subject', 'choices', 'answer'],
  row: MmluRow,
  toQuestion(row, at) {
    if (row.answer < 0n || row.answer >= BigInt(row.choices.length))
      throw dataError(at, 'answer', `index ${row.answer} is outside the ${row.choices.length} choices`)
    return {
      // the subject is not content: MMLU files some questions under two subjects
      id: contentId(at.source, { question: row.question, choices: row.choices, answer: row.answer }),
      subject: row.subject,
      question: row.question,
      context: null,
      options: row.choices,
      answer: Number(row.answer),
    }
  },
}
