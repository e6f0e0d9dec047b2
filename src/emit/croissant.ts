/**
 * croissant.json: the dataset described in Croissant 1.0 JSON-LD (mlcommons.org/croissant), from the
 * recipe's `publication` and the split files' bytes. Nothing in it depends on when it was built.
 */

import { kindOf } from '../adapt/kinds.ts'
import { LANGUAGES, type Publication, type Recipe, SPLITS, type Split } from '../recipe/schema.ts'
import { sha256Hex } from '../util/hash.ts'
import { CONFIG_OUTPUTS, type OutputContent, outputBytes } from './outputs.ts'

export const CROISSANT_FILE = 'croissant.json'
export const CROISSANT_CONFORMS_TO = 'http://mlcommons.org/croissant/1.0'
export const JSONLINES = 'application/jsonlines'

/** The Croissant 1.0 spec's JSON-LD context (its Appendix 1), verbatim. */
export const CROISSANT_CONTEXT = {
  '@language': 'en',
  '@vocab': 'https://schema.org/',
  sc: 'https://schema.org/',
  cr: 'http://mlcommons.org/croissant/',
  rai: 'http://mlcommons.org/croissant/RAI/',
  dct: 'http://purl.org/dc/terms/',
  citeAs: 'cr:citeAs',
  column: 'cr:column',
  conformsTo: 'dct:conformsTo',
  data: { '@id': 'cr:data', '@type': '@json' },
  dataType: { '@id': 'cr:dataType', '@type': '@vocab' },
  examples: { '@id': 'cr:examples', '@type': '@json' },
  extract: 'cr:extract',
  field: 'cr:field',
  fileProperty: 'cr:fileProperty',
  fileObject: 'cr:fileObject',
  fileSet: 'cr:fileSet',
  format: 'cr:format',
  includes: 'cr:includes',
  isLiveDataset: 'cr:isLiveDataset',
  jsonPath: 'cr:jsonPath',
  key: 'cr:key',
  md5: 'cr:md5',
  parentField: 'cr:parentField',
  path: 'cr:path',
  recordSet: 'cr:recordSet',
  references: 'cr:references',
  regex: 'cr:regex',
  repeated: 'cr:repeated',
  replace: 'cr:replace',
  separator: 'cr:separator',
  source: 'cr:source',
  subField: 'cr:subField',
  transform: 'cr:transform',
} as const

/** One record field (the spec's "Record format", in its key order) as Croissant types it. */
export interface RecordFieldType {
  name: string
  dataType: 'sc:Text' | 'sc:Integer'
  repeated: boolean
  description: string
}

export const RECORD_FIELDS: readonly RecordFieldType[] = [
  {
    name: 'id',
    dataType: 'sc:Text',
    repeated: false,
    description: 'stable identifier, prefixed with the source; unique across both splits',
  },
  { name: 'source', dataType: 'sc:Text', repeated: false, description: 'the upstream dataset the question comes from' },
  { name: 'question', dataType: 'sc:Text', repeated: false, description: 'the upstream question text, verbatim' },
  {
    name: 'context',
    dataType: 'sc:Text',
    repeated: false,
    description: 'the passage the question is about (BoolQ); null for other sources',
  },
  {
    name: 'choices',
    dataType: 'sc:Text',
    repeated: true,
    description: '2 to 8 option texts, in the order the model sees them (labels A, B, …)',
  },
  { name: 'answer_idx', dataType: 'sc:Integer', repeated: false, description: 'index into choices of the right option' },
  { name: 'n_choices', dataType: 'sc:Integer', repeated: false, description: 'the number of choices' },
]

/** The record field used as each record set's key. */
export const RECORD_KEY = 'id'

export interface CroissantInput {
  recipe: Recipe & { publication: Publication }
  /** the split files' content, as written */
  files: Record<Split, OutputContent>
}

const splitFile = (split: Split) => CONFIG_OUTPUTS.find((o) => o.split === split)!.name

/** The JSON-LD object; `croissantJson` writes it. */
export function buildCroissant({ recipe, files }: CroissantInput): Record<string, unknown> {
  const p = recipe.publication
  const languages = LANGUAGES.filter((l) => recipe.sources.some((s) => kindOf(s).card.languages.includes(l)))
  return {
    '@context': CROISSANT_CONTEXT,
    '@type': 'sc:Dataset',
    name: recipe.name,
    description: p.description,
    conformsTo: CROISSANT_CONFORMS_TO,
    license: p.license,
    url: p.url,
    creator: p.creator.map((c) => ({ '@type': `sc:${c.type}`, name: c.name, ...(c.url ? { url: c.url } : {}) })),
    datePublished: p.datePublished,
    version: recipe.version,
    citeAs: p.citeAs,
    inLanguage: languages,
    isBasedOn: [...new Set(recipe.sources.map((s) => `https://huggingface.co/datasets/${s.repo}`))],
    distribution: SPLITS.map((split) => {
      const name = splitFile(split)
      return {
        '@type': 'cr:FileObject',
        '@id': name,
        name,
        description: `the ${split} split, one JSON record per line`,
        contentUrl: name,
        encodingFormat: JSONLINES,
        sha256: sha256Hex(outputBytes(files[split])),
      }
    }),
    recordSet: SPLITS.map((split) => ({
      '@type': 'cr:RecordSet',
      '@id': split,
      name: split,
      description: `the records of ${splitFile(split)}`,
      key: { '@id': `${split}/${RECORD_KEY}` },
      field: RECORD_FIELDS.map((f) => ({
        '@type': 'cr:Field',
        '@id': `${split}/${f.name}`,
        name: f.name,
        description: f.description,
        dataType: f.dataType,
        ...(f.repeated ? { repeated: true } : {}),
        source: { fileObject: { '@id': splitFile(split) }, extract: { column: f.name } },
      })),
    })),
  }
}

export function croissantJson(input: CroissantInput): string {
  return `${JSON.stringify(buildCroissant(input), null, 2)}\n`
}

/** The recipe asks for croissant.json when it carries a `publication`. */
export const makesCroissant = (recipe: Recipe): recipe is Recipe & { publication: Publication } => recipe.publication !== undefined
