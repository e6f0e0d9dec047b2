import { z } from 'zod'
import { type Adapter, dataError, IntColumn, recordId } from './adapter.ts'

const JcqaRow = z.object({
  q_id: IntColumn,
  question: z.string(),
  choice0: z.string(),
  choice1: z.string(),
  choice2: z.string(),
  choice3: z.string(),
  choice4: z.string(),
  label: IntColumn,
})
type JcqaRow = z.infer<typeof JcqaRow>

/** sbintuitions/JCommonsenseQA: five fixed choice columns and a label index. */
export const jcommonsenseqa: Adapter<JcqaRow> = {
  idFrom: 'column',
  columns: ['q_id', 'question', 'choice0', 'choice1', 'choice2', 'choice3', 'choice4', 'label'],
  row: JcqaRow,
  toQuestion(row, at) {
    const options = [row.choice0, row.choice1, row.choice2, row.choice3, row.choice4]
    if (row.label < 0n || row.label >= BigInt(options.length))
      throw dataError(at, 'label', `index ${row.label} is outside the ${options.length} choices`)
    return {
      id: recordId(at.source, String(row.q_id)),
      subject: null,
      question: row.question,
      context: null,
      options,
      answer: Number(row.label),
    }
  },
}
