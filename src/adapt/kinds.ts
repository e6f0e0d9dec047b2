import type { z } from 'zod'
import { JevError } from '../errors.ts'
import type { Adapter } from './adapter.ts'
import { type Mapping, mappedAdapter, type SourceCard, SourceDescriptor } from './descriptor.ts'

/**
 * The built-in source kinds, as data: a recipe source names one with
 * `"adapter"`, or gives its own `mapping` and `card` inline.
 */
const BUILT_IN = {
  // allenai/ai2_arc: answer keys are letters or, for some rows, "1"–"4"
  arc: {
    mapping: {
      id: { from: 'column', column: 'id', type: 'string' },
      question: 'question',
      options: { from: 'labelled', column: 'choices', text: 'text', label: 'label' },
      answer: { from: 'label', column: 'answerKey' },
    },
    card: {
      title: 'AI2 Reasoning Challenge (ARC)',
      licence: 'CC BY-SA 4.0',
      citation: 'Clark et al., 2018, "Think you have Solved Question Answering? Try ARC, the AI2 Reasoning Challenge"',
      languages: ['en'],
    },
  },
  // cais/mmlu: `answer` is a ClassLabel index into `choices`; no upstream id
  mmlu: {
    mapping: {
      // the subject is not content: MMLU files some questions under two subjects
      id: { from: 'content', fields: ['question', 'choices', 'answer'] },
      question: 'question',
      options: { from: 'list', column: 'choices' },
      answer: { from: 'index', column: 'answer' },
      subject: 'subject',
    },
    card: {
      title: 'MMLU',
      licence: 'MIT',
      citation: 'Hendrycks et al., 2021, "Measuring Massive Multitask Language Understanding"',
      languages: ['en'],
      idNote: 'MMLU question, choices and answer, not the subject',
    },
  },
  // sbintuitions/JCommonsenseQA: five fixed choice columns and a label index
  jcommonsenseqa: {
    mapping: {
      id: { from: 'column', column: 'q_id', type: 'integer' },
      question: 'question',
      options: { from: 'columns', columns: ['choice0', 'choice1', 'choice2', 'choice3', 'choice4'] },
      answer: { from: 'index', column: 'label' },
    },
    card: {
      title: 'JCommonsenseQA (JGLUE)',
      licence: 'CC BY-SA 4.0',
      citation: 'Kurihara et al., 2022, "JGLUE: Japanese General Language Understanding Evaluation"',
      languages: ['ja'],
    },
  },
  // google/boolq: a yes/no question over a passage; no upstream id
  boolq: {
    mapping: {
      id: { from: 'content', fields: ['question', 'answer', 'passage'] },
      question: 'question',
      context: 'passage',
      options: { from: 'fixed', options: ['yes', 'no'] },
      answer: { from: 'boolean', column: 'answer' },
    },
    card: {
      title: 'BoolQ',
      licence: 'CC BY-SA 3.0',
      citation: 'Clark et al., 2019, "BoolQ: Exploring the Surprising Difficulty of Natural Yes/No Questions"',
      languages: ['en'],
      idNote: 'BoolQ question, answer and passage',
      context: 'the BoolQ passage',
    },
  },
} satisfies Record<string, z.input<typeof SourceDescriptor>>

export const KIND_NAMES = ['arc', 'mmlu', 'jcommonsenseqa', 'boolq'] as const satisfies readonly (keyof typeof BUILT_IN)[]
export type KindName = (typeof KIND_NAMES)[number]

/** What the builder knows of a source: how to read its rows, and what the card and the checker say of it. */
export interface SourceKind {
  adapter: Adapter<unknown>
  card: SourceCard
  /** the options every row has, when the mapping fixes them */
  fixedOptions?: readonly string[]
}

export function kindFromDescriptor(d: SourceDescriptor): SourceKind {
  const o = d.mapping.options
  return { adapter: mappedAdapter(d.mapping) as Adapter<unknown>, card: d.card, ...(o.from === 'fixed' ? { fixedOptions: o.options } : {}) }
}

/**
 * The one registry. A shape no mapping covers gets a code adapter here, beside
 * the descriptors; the built-ins are parsed like a recipe's own, so a bad one fails at load.
 */
export const SOURCE_KINDS: Readonly<Record<KindName, SourceKind>> = Object.fromEntries(
  KIND_NAMES.map((k) => [k, kindFromDescriptor(SourceDescriptor.parse(BUILT_IN[k]))]),
) as Record<KindName, SourceKind>

/** The fields of a recipe source that pick its kind (the schema requires one way or the other). */
export interface KindRef {
  adapter?: KindName | undefined
  mapping?: Mapping | undefined
  card?: SourceCard | undefined
}

const inline = new WeakMap<object, SourceKind>()

/** A recipe source's kind: the named built-in, or its inline mapping and card. */
export function kindOf(spec: KindRef): SourceKind {
  if (spec.adapter !== undefined) return SOURCE_KINDS[spec.adapter]
  if (spec.mapping === undefined || spec.card === undefined)
    throw new JevError('RECIPE', 'a source needs "adapter", or "mapping" and "card"')
  let kind = inline.get(spec)
  if (!kind) inline.set(spec, (kind = kindFromDescriptor({ mapping: spec.mapping, card: spec.card })))
  return kind
}
