/**
 * A structural check of croissant.json, as the Croissant 1.0 spec and its reference validator
 * (mlcroissant) require: the dataset's required properties, each FileObject's checksum against
 * the file, each field's data type and source, and the keys. Every problem names its JSON path.
 */

import { createHash } from 'node:crypto'
import { CROISSANT_CONFORMS_TO, CROISSANT_CONTEXT, CROISSANT_FILE } from '../emit/croissant.ts'
import { recordLines } from '../emit/manifest.ts'
import { DATA_FILES } from '../emit/outputs.ts'
import { sha256Hex } from '../util/hash.ts'

/** The atomic data types mlcroissant maps to a value type. */
const DATA_TYPES = new Set(
  ['Boolean', 'Date', 'DateTime', 'Float', 'Integer', 'Text', 'Time', 'URL'].flatMap((t) => [`sc:${t}`, `https://schema.org/${t}`]),
)
const CR_TYPES = ['Float16', 'Float32', 'Float64', 'Int8', 'Int16', 'Int32', 'Int64', 'UInt8', 'UInt16', 'UInt32', 'UInt64']
for (const t of CR_TYPES) for (const p of ['cr:', 'http://mlcommons.org/croissant/']) DATA_TYPES.add(`${p}${t}`)

/** The properties the spec lists as required of every Croissant dataset, and those this builder always writes. */
const REQUIRED_TEXT = ['name', 'description', 'url', 'datePublished', 'version', 'citeAs'] as const
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim() !== ''
/** A property of cardinality MANY may be one value or a list. */
const many = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v])
const refId = (v: unknown): string | null => (isObject(v) && typeof v['@id'] === 'string' ? v['@id'] : null)
const typeIs = (v: unknown, short: string, long: string) => many(v).some((t) => t === short || t === long)

/** A data file's parsed records, or null when it is missing or not JSON lines. */
export type RecordsOf = (path: string) => Json[] | null

/** Reads the records of the data files from their bytes, once each. */
export function recordsReader(file: (path: string) => Uint8Array | null | undefined): RecordsOf {
  const memo = new Map<string, Json[] | null>()
  return (path) => {
    if (!memo.has(path)) {
      const bytes = file(path)
      let records: Json[] | null = null
      if (bytes)
        try {
          records = recordLines(Buffer.from(bytes).toString('utf8')).map((l) => JSON.parse(l) as Json)
        } catch {
          records = null
        }
      memo.set(path, records)
    }
    return memo.get(path)!
  }
}

/**
 * Problems of croissant.json's text, each `croissant.json: $.path: message`. `file(path)` gives the
 * bytes of a file of the folder (null when missing); only the data files may be a FileObject's content.
 */
export function checkCroissant(text: string, file: (path: string) => Uint8Array | null | undefined): string[] {
  const problems: string[] = []
  const at = (path: string, message: string) => problems.push(`${CROISSANT_FILE}: ${path}: ${message}`)
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (e) {
    return [`${CROISSANT_FILE}: not JSON (${(e as Error).message})`]
  }
  if (!isObject(doc)) return [`${CROISSANT_FILE}: $: must be a JSON object`]

  const context = doc['@context']
  if (!isObject(context)) at('$["@context"]', 'missing; it must be the Croissant 1.0 JSON-LD context')
  else
    for (const [term, value] of Object.entries(CROISSANT_CONTEXT))
      if (JSON.stringify(context[term]) !== JSON.stringify(value))
        at(`$["@context"].${term}`, `must be ${JSON.stringify(value)} (the Croissant 1.0 context), is ${JSON.stringify(context[term])}`)
  if (!typeIs(doc['@type'], 'sc:Dataset', 'https://schema.org/Dataset'))
    at('$["@type"]', `must be "sc:Dataset", is ${JSON.stringify(doc['@type'])}`)
  if (doc.conformsTo !== CROISSANT_CONFORMS_TO)
    at('$.conformsTo', `must be "${CROISSANT_CONFORMS_TO}", is ${JSON.stringify(doc.conformsTo)}`)
  for (const p of REQUIRED_TEXT)
    if (!nonEmpty(doc[p])) at(`$.${p}`, doc[p] === undefined ? 'required, missing' : 'must be a non-empty string')
  if (nonEmpty(doc.datePublished) && !ISO_DATE.test(doc.datePublished)) at('$.datePublished', 'must be an ISO 8601 date or date-time')
  const licenses = many(doc.license)
  if (licenses.length === 0) at('$.license', 'required, missing')
  licenses.forEach((l, i) => {
    if (!nonEmpty(l) && !(isObject(l) && (nonEmpty(l.url) || nonEmpty(l.name))))
      at(`$.license${Array.isArray(doc.license) ? `[${i}]` : ''}`, 'must be a URL or a CreativeWork')
  })
  const creators = many(doc.creator)
  if (creators.length === 0) at('$.creator', 'required, missing')
  creators.forEach((c, i) => {
    const path = `$.creator${Array.isArray(doc.creator) ? `[${i}]` : ''}`
    if (!isObject(c) || !nonEmpty(c.name)) at(path, 'must be a Person or Organization with a name')
    else if (
      !typeIs(c['@type'], 'sc:Person', 'https://schema.org/Person') &&
      !typeIs(c['@type'], 'sc:Organization', 'https://schema.org/Organization')
    )
      at(`${path}["@type"]`, 'must be "sc:Person" or "sc:Organization"')
  })

  // every node's @id is unique: references resolve by it
  const ids = new Map<string, string>()
  const claim = (id: unknown, path: string): id is string => {
    if (!nonEmpty(id)) {
      at(`${path}["@id"]`, 'required, missing')
      return false
    }
    const other = ids.get(id)
    if (other) at(`${path}["@id"]`, `"${id}" is also the @id of ${other}`)
    ids.set(id, path)
    return true
  }

  /** FileObject @id → its content's path in the folder */
  const fileObjects = new Map<string, string>()
  const distribution = many(doc.distribution)
  if (distribution.length === 0) at('$.distribution', 'required: a FileObject per data file')
  for (const [i, d] of distribution.entries()) {
    const path = `$.distribution[${i}]`
    if (!isObject(d)) {
      at(path, 'must be an object')
      continue
    }
    const id = d['@id']
    if (!claim(id, path)) continue
    if (typeIs(d['@type'], 'cr:FileSet', 'http://mlcommons.org/croissant/FileSet')) {
      at(`${path}["@type"]`, 'a FileSet is not expected here: every data file is a FileObject')
      continue
    }
    if (!typeIs(d['@type'], 'cr:FileObject', 'http://mlcommons.org/croissant/FileObject')) {
      at(`${path}["@type"]`, `must be "cr:FileObject", is ${JSON.stringify(d['@type'])}`)
      continue
    }
    if (!nonEmpty(d.encodingFormat)) at(`${path}.encodingFormat`, 'required, missing')
    if (!nonEmpty(d.contentUrl)) {
      at(`${path}.contentUrl`, 'required, missing')
      continue
    }
    const name = d.contentUrl
    if (!DATA_FILES.includes(name)) {
      at(`${path}.contentUrl`, `"${name}" is not a data file of the folder (${DATA_FILES.join(', ')})`)
      continue
    }
    const bytes = file(name)
    if (!bytes) {
      at(`${path}.contentUrl`, `"${name}" is missing`)
      continue
    }
    fileObjects.set(id, name)
    if (d.sha256 === undefined && d.md5 === undefined) at(path, 'needs "sha256" or "md5"')
    if (d.sha256 !== undefined && d.sha256 !== sha256Hex(bytes))
      at(`${path}.sha256`, `${JSON.stringify(d.sha256)} is not the sha256 of ${name} (${sha256Hex(bytes)})`)
    if (d.md5 !== undefined && d.md5 !== createHash('md5').update(bytes).digest('hex'))
      at(`${path}.md5`, `${JSON.stringify(d.md5)} is not the md5 of ${name}`)
  }
  for (const name of DATA_FILES)
    if (file(name) && ![...fileObjects.values()].includes(name)) at('$.distribution', `no FileObject for the data file ${name}`)

  const records = recordsReader(file)
  const recordSets = many(doc.recordSet)
  if (recordSets.length === 0) at('$.recordSet', 'required: a RecordSet per split')
  const fieldIds = new Set<string>()
  const references: [string, string][] = []
  for (const [i, rs] of recordSets.entries()) {
    const path = `$.recordSet[${i}]`
    if (!isObject(rs)) {
      at(path, 'must be an object')
      continue
    }
    if (!claim(rs['@id'], path)) continue
    if (!typeIs(rs['@type'], 'cr:RecordSet', 'http://mlcommons.org/croissant/RecordSet'))
      at(`${path}["@type"]`, `must be "cr:RecordSet", is ${JSON.stringify(rs['@type'])}`)
    const fields = many(rs.field)
    if (fields.length === 0) at(`${path}.field`, 'required: one Field per record field')
    const own = new Set<string>()
    for (const [j, f] of fields.entries()) {
      const fpath = `${path}.field[${j}]`
      if (!isObject(f)) {
        at(fpath, 'must be an object')
        continue
      }
      if (!claim(f['@id'], fpath)) continue
      own.add(f['@id'] as string)
      fieldIds.add(f['@id'] as string)
      if (!typeIs(f['@type'], 'cr:Field', 'http://mlcommons.org/croissant/Field'))
        at(`${fpath}["@type"]`, `must be "cr:Field", is ${JSON.stringify(f['@type'])}`)
      const types = many(f.dataType)
      const atomic = types.filter((t) => typeof t === 'string' && DATA_TYPES.has(t))
      if (atomic.length === 0)
        at(`${fpath}.dataType`, `must name a data type such as "sc:Text" or "sc:Integer", is ${JSON.stringify(f.dataType)}`)
      if (f.repeated !== undefined && typeof f.repeated !== 'boolean') at(`${fpath}.repeated`, 'must be true or false')
      for (const r of many(f.references)) {
        const target = refId(r)
        if (target) references.push([target, `${fpath}.references`])
        else at(`${fpath}.references`, 'must be {"@id": <a field>}')
      }
      const source = f.source
      if (!isObject(source)) {
        at(`${fpath}.source`, 'required: {"fileObject": …, "extract": {"column": …}}')
        continue
      }
      const kinds = (['fileObject', 'fileSet', 'recordSet'] as const).filter((k) => source[k] !== undefined)
      if (kinds.length !== 1) {
        at(`${fpath}.source`, 'must name exactly one of fileObject, fileSet or recordSet')
        continue
      }
      const kind = kinds[0]!
      const target = refId(source[kind])
      if (kind !== 'fileObject') {
        at(`${fpath}.source.${kind}`, 'must be a fileObject: the data files are JSON lines')
        continue
      }
      if (!target) {
        at(`${fpath}.source.fileObject`, 'must be {"@id": <a FileObject>}')
        continue
      }
      const name = fileObjects.get(target)
      if (!name) {
        at(`${fpath}.source.fileObject["@id"]`, `"${target}" is not a FileObject of the distribution`)
        continue
      }
      const column = isObject(source.extract) ? source.extract.column : undefined
      if (!nonEmpty(column)) {
        at(`${fpath}.source.extract.column`, 'required, missing')
        continue
      }
      const rows = records(name)
      if (!rows) {
        at(`${fpath}.source.fileObject`, `${name} is not JSON lines`)
        continue
      }
      const bad = rows.findIndex((row) => !Object.hasOwn(row, column))
      if (bad >= 0) {
        at(`${fpath}.source.extract.column`, `"${column}" is not a column of ${name} (line ${bad + 1} has no such key)`)
        continue
      }
      // the values must be what the field says: a list when repeated, of its data type
      const repeated = f.repeated === true
      const integer = atomic.some((t) => /Integer$|Int\d+$/.test(t as string))
      const text = atomic.some((t) => /Text$|URL$/.test(t as string))
      const wrong = rows.findIndex((row) => {
        const v = row[column]
        if (Array.isArray(v) !== repeated) return true
        return (repeated ? (v as unknown[]) : [v]).some(
          (x) => x !== null && ((integer && !Number.isInteger(x)) || (text && typeof x !== 'string')),
        )
      })
      if (wrong >= 0)
        at(
          `${fpath}`,
          `${name} line ${wrong + 1}: "${column}" is not ${repeated ? 'a list' : 'one value'} of ${atomic.join(', ')}${repeated ? '' : ' (set "repeated" for a list)'}`,
        )
    }
    const keys = many(rs.key)
    keys.forEach((k, j) => {
      const id = refId(k) ?? (typeof k === 'string' ? k : null)
      const kpath = `${path}.key${Array.isArray(rs.key) ? `[${j}]` : ''}`
      if (!id || !own.has(id)) at(kpath, `${JSON.stringify(k)} is not a field of this RecordSet`)
    })
  }
  for (const [target, path] of references) if (!fieldIds.has(target)) at(path, `"${target}" is not a field of any RecordSet`)
  return problems
}
