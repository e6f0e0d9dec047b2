import { z } from 'zod'
import { type Adapter, contentId, contentIdOf, dataError, IntColumn, recordId } from './adapter.ts'

export const LANGUAGES = ['en', 'ja'] as const
export type Language = (typeof LANGUAGES)[number]

// a column name becomes a key of the row schema: no name Object.prototype has
const Column = z
  .string()
  .min(1)
  .refine((s) => !(s in Object.prototype), 'is a reserved name')

const Options = z.discriminatedUnion('from', [
  z.strictObject({ from: z.literal('list'), column: Column }).describe('one column holding the list of option texts'),
  z.strictObject({ from: z.literal('columns'), columns: z.array(Column).min(2).max(8) }).describe('one column per option, in order'),
  z
    .strictObject({ from: z.literal('labelled'), column: Column, text: Column, label: Column })
    .describe('a struct column of two parallel lists: the option texts and their labels'),
  z
    .strictObject({ from: z.literal('fixed'), options: z.array(z.string().min(1)).min(2).max(8) })
    .describe('the same options for every row'),
])

const Answer = z.discriminatedUnion('from', [
  z.strictObject({ from: z.literal('index'), column: Column }).describe('an integer index into the options'),
  z.strictObject({ from: z.literal('label'), column: Column }).describe('one of the labels of labelled options'),
  z.strictObject({ from: z.literal('boolean'), column: Column }).describe('true is the first of two options, false the second'),
])

const Id = z.discriminatedUnion('from', [
  z
    .strictObject({ from: z.literal('column'), column: Column, type: z.enum(['string', 'integer']) })
    .describe('an upstream id column (an integer one may be int32 or int64)'),
  z
    .strictObject({ from: z.literal('content'), fields: z.array(Column).min(1) })
    .describe('16 hex digits of sha256 over the canonical JSON of these mapped columns, for datasets without an id'),
])

/** How one upstream dataset's columns make a question. */
export const Mapping = z
  .strictObject({
    id: Id,
    question: Column,
    context: Column.optional().describe('a passage the question is about; without it the context is null'),
    options: Options,
    answer: Answer,
    subject: Column.optional().describe('the borrowing group within the source, for `"group": "subject"`'),
  })
  .superRefine((m, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message })
    if (m.answer.from === 'label' && m.options.from !== 'labelled') issue(['answer'], 'a label answer needs labelled options')
    if (m.answer.from === 'boolean' && (m.options.from !== 'fixed' || m.options.options.length !== 2))
      issue(['answer'], 'a boolean answer needs exactly two fixed options')
    const columns = roleColumns(m)
    columns.forEach((c, i) => {
      if (columns.indexOf(c) !== i) issue([], `column "${c}" is mapped twice`)
    })
    if (m.id.from === 'content')
      m.id.fields.forEach((f, i) => {
        if (!columns.includes(f)) issue(['id', 'fields', i], `"${f}" is not a mapped column`)
      })
  })
export type Mapping = z.infer<typeof Mapping>

/** What the dataset card says of a source: attribution, and what its ids and contexts are. */
export const SourceCard = z.strictObject({
  title: z.string().min(1),
  licence: z.string().min(1),
  citation: z.string().min(1),
  languages: z.array(z.enum(LANGUAGES)).min(1).describe("the card's language tags"),
  idNote: z.string().min(1).optional().describe('for a content id: which upstream fields the hash covers, for the record format table'),
  context: z.string().min(1).optional().describe('what the context is ("the BoolQ passage"), when the mapping has one'),
})
export type SourceCard = z.infer<typeof SourceCard>

/** Checks across a mapping and its card; paths are relative to the object holding both. */
export function descriptorIssues(mapping: Mapping, card: SourceCard): { path: string[]; message: string }[] {
  const out: { path: string[]; message: string }[] = []
  if ((mapping.context === undefined) !== (card.context === undefined))
    out.push({
      path: ['card', 'context'],
      message: mapping.context === undefined ? 'the mapping has no context to describe' : 'must say what the context is',
    })
  if ((mapping.id.from === 'content') !== (card.idNote !== undefined))
    out.push({
      path: ['card', 'idNote'],
      message: mapping.id.from === 'content' ? 'must say what the content id covers' : 'only a content id has a note',
    })
  return out
}

export const SourceDescriptor = z.strictObject({ mapping: Mapping, card: SourceCard }).superRefine((d, ctx) => {
  for (const i of descriptorIssues(d.mapping, d.card)) ctx.addIssue({ code: 'custom', ...i })
})
export type SourceDescriptor = z.infer<typeof SourceDescriptor>

type Row = Record<string, unknown>

/** What a column must hold. */
type Rule = z.ZodType
const STRING: Rule = z.string()
const NON_EMPTY: Rule = z.string().min(1)
const STRING_LIST = z.array(z.string()).min(1)
const INTEGER: Rule = IntColumn
const BOOLEAN: Rule = z.boolean()
/** a struct of two lists; zod drops its other keys */
const labelled = (text: string, label: string): Rule => z.object({ [text]: STRING_LIST, [label]: STRING_LIST })

/**
 * Every column the mapping reads, with its rule, in the order they are checked and parsed. Bound by mappedAdapter's
 * content ids from the raw row: every column must parse to a value whose canonical JSON is the raw value's (no trim,
 * coerce, default or transform), or published ids change silently.
 */
function columnRules(m: Mapping): [string, Rule][] {
  const o = m.options
  return [
    ...(m.id.from === 'column' ? [[m.id.column, m.id.type === 'integer' ? INTEGER : NON_EMPTY] as [string, Rule]] : []),
    [m.question, STRING],
    ...(m.context === undefined ? [] : [[m.context, STRING] as [string, Rule]]),
    ...(o.from === 'list'
      ? [[o.column, STRING_LIST as Rule] as [string, Rule]]
      : o.from === 'labelled'
        ? [[o.column, labelled(o.text, o.label)] as [string, Rule]]
        : o.from === 'columns'
          ? o.columns.map((c): [string, Rule] => [c, STRING])
          : []),
    [m.answer.column, m.answer.from === 'index' ? INTEGER : m.answer.from === 'label' ? NON_EMPTY : BOOLEAN],
    ...(m.subject === undefined ? [] : [[m.subject, NON_EMPTY] as [string, Rule]]),
  ]
}

function roleColumns(m: Mapping): string[] {
  return columnRules(m).map(([c]) => c)
}

function rowSchema(rules: readonly [string, Rule][]): z.ZodType<Row> {
  return z.object(Object.fromEntries(rules)) as z.ZodType<Row>
}

/** The one generic adapter: a mapping interpreted row by row. */
export function mappedAdapter(m: Mapping): Adapter<Row> {
  const o = m.options
  const a = m.answer
  // A content id from the raw row's parts: every column parses to a value whose canonical JSON is the raw
  // one's (an int32 and the bigint it becomes write alike) but a struct, whose other keys the schema drops.
  const fromRaw = m.id.from === 'content' && !(o.from === 'labelled' && m.id.fields.includes(o.column))
  const rules = columnRules(m)
  return {
    idFrom: m.id.from,
    columns: rules.map(([c]) => c),
    row: rowSchema(rules),
    toQuestion(row, at, canonical) {
      let options: string[]
      let labels: string[] = []
      if (o.from === 'list') options = row[o.column] as string[]
      else if (o.from === 'columns') options = o.columns.map((c) => row[c] as string)
      else if (o.from === 'fixed') options = [...o.options]
      else {
        const struct = row[o.column] as Record<string, string[]>
        options = struct[o.text]!
        labels = struct[o.label]!
        if (options.length !== labels.length) throw dataError(at, o.column, `${options.length} texts but ${labels.length} labels`)
      }
      let answer: number
      if (a.from === 'index') {
        const v = row[a.column] as bigint
        if (v < 0n || v >= BigInt(options.length)) throw dataError(at, a.column, `index ${v} is outside the ${options.length} choices`)
        answer = Number(v)
      } else if (a.from === 'label') {
        const key = row[a.column] as string
        answer = labels.indexOf(key)
        if (answer < 0) throw dataError(at, a.column, `"${key}" is not one of the labels ${labels.join(', ')}`)
      } else answer = row[a.column] ? 0 : 1
      const id =
        m.id.from === 'column'
          ? recordId(at.source, String(row[m.id.column]))
          : fromRaw && canonical
            ? contentIdOf(at.source, canonical.of(m.id.fields))
            : contentId(at.source, Object.fromEntries(m.id.fields.map((f) => [f, row[f]])))
      return {
        id,
        subject: m.subject === undefined ? null : (row[m.subject] as string),
        question: row[m.question] as string,
        context: m.context === undefined ? null : (row[m.context] as string),
        options,
        answer,
      }
    },
  }
}
