import { z } from 'zod'
import { type Adapter, dataError, recordId } from './adapter.ts'

const ArcRow = z.object({
  id: z.string().min(1),
  question: z.string(),
  choices: z.object({ text: z.array(z.string()).min(1), label: z.array(z.string()).min(1) }),
  answerKey: z.string().min(1),
})
type ArcRow = z.infer<typeof ArcRow>

/** allenai/ai2_arc: answer keys are letters or, for some rows, "1"–"4". */
export const arc: Adapter<ArcRow> = {
  idFrom: 'column',
  columns: ['id', 'question', 'choices', 'answerKey'],
  row: ArcRow,
  toQuestion(row, at) {
    const { text, label } = row.choices
    if (text.length !== label.length)
      throw dataError(at, 'choices', `${text.length} texts but ${label.length} labels`)
    const answer = label.indexOf(row.answerKey)
    if (answer < 0) throw dataError(at, 'answerKey', `"${row.answerKey}" is not one of the labels ${label.join(', ')}`)
    return { id: recordId(at.source, row.id), subject: null, question: row.question, context: null, options: text, answer }
  },
}
