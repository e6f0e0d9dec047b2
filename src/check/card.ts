/**
 * Checks a dataset card's YAML front matter the way the Hub reads it, before
 * anything is uploaded: plain YAML, known licence / task / size values, and
 * `configs` / `dataset_info` agreeing with the files actually being published.
 */
import { isAlias, isCollection, isPair, isScalar, type Node, parseDocument } from 'yaml'
import { HUB_LICENSES, HUB_SIZE_CATEGORIES, HUB_TASK_CATEGORIES, HUB_TASK_IDS, sizeCategoryFor } from '../emit/card/hub-metadata.ts'

export interface DataFileFacts {
  path: string
  bytes: number
  rows: number
  /** the keys of its records, in order */
  keys: string[]
}

/** The front matter as text, or null when the card has none. */
export function frontMatter(card: string): string | null {
  if (!card.startsWith('---\n')) return null
  const end = card.indexOf('\n---\n', 3)
  return end < 0 ? null : card.slice(4, end + 1)
}

/** Explicit tags, anchors and aliases make YAML that only some parsers read the same way. */
function notPlain(node: unknown, at: string, out: string[]): void {
  if (isAlias(node)) return void out.push(`${at}: uses an alias (*${node.source}); write the value out`)
  if (!isScalar(node) && !isCollection(node)) return
  const n = node as Node
  if (n.tag) out.push(`${at}: has an explicit tag ${n.tag}`)
  if (n.anchor) out.push(`${at}: has an anchor &${n.anchor}`)
  if (!isCollection(node)) return
  node.items.forEach((item, i) => {
    if (isPair(item)) notPlain(item.value, `${at === '' ? '' : `${at}.`}${isScalar(item.key) ? String(item.key.value) : '?'}`, out)
    else notPlain(item, `${at}[${i}]`, out)
  })
}

/** The front matter as a mapping, or null with the reasons it is not one; not-plain YAML is listed but still read. */
function readFrontMatter(fm: string): { meta: Record<string, unknown> | null; problems: string[] } {
  const doc = parseDocument(fm, { schema: 'core', uniqueKeys: true, prettyErrors: false })
  const problems = [...doc.errors, ...doc.warnings].map((e) => `README.md front matter: not plain YAML: ${e.message}`)
  if (problems.length) return { meta: null, problems }
  const plain: string[] = []
  notPlain(doc.contents, '', plain)
  problems.push(...plain.map((p) => `README.md front matter: ${p.replace(/^: /, '(top): ')}`))
  const meta = doc.toJS() as unknown
  if (!meta || typeof meta !== 'object' || Array.isArray(meta))
    return { meta: null, problems: [...problems, 'README.md front matter: is not a mapping of fields'] }
  return { meta: meta as Record<string, unknown>, problems }
}

/**
 * Every problem with the card's front matter, each naming its field; empty when
 * the Hub would accept it and it describes `dataFiles` (the data files being
 * uploaded) exactly.
 */
export function checkCardMetadata(card: string, dataFiles: readonly DataFileFacts[]): string[] {
  const fm = frontMatter(card)
  if (fm === null) return ['README.md: no YAML front matter (a first line "---" and a closing "---")']
  const { meta, problems } = readFrontMatter(fm)
  return meta ? [...problems, ...checkFields(meta, dataFiles).map((p) => `README.md: ${p}`)] : problems
}

/**
 * What can be said of a card alone, with no data files to compare (the local
 * Hub's `POST /api/validate-yaml`): errors for front matter the Hub refuses (not
 * plain YAML, values not from its lists), warnings for a card without front
 * matter or without a field a dataset card needs.
 */
export function checkCardYaml(card: string): { errors: string[]; warnings: string[] } {
  const fm = frontMatter(card)
  if (fm === null) return { errors: [], warnings: ['README.md: empty or missing yaml metadata in repo card'] }
  const { meta, problems } = readFrontMatter(fm)
  if (!meta) return { errors: problems, warnings: [] }
  const errors: string[] = []
  checkListedFields(meta, errors, false)
  for (const s of asList(meta.size_categories) ?? [])
    if (!HUB_SIZE_CATEGORIES.includes(s as never))
      errors.push(`size_categories: ${show(s)} is not one of the Hub's size categories (${HUB_SIZE_CATEGORIES.join(', ')})`)
  const all: string[] = []
  checkListedFields(meta, all, true)
  return {
    errors: [...problems, ...errors.map((e) => `README.md: ${e}`)],
    warnings: all.filter((e) => !errors.includes(e)).map((e) => `README.md: ${e}`),
  }
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const asList = (v: unknown): unknown[] | null => (v === undefined || v === null ? null : Array.isArray(v) ? v : [v])
const show = (v: unknown) => JSON.stringify(v)
const sum = (xs: readonly DataFileFacts[], k: 'rows' | 'bytes') => xs.reduce((a, f) => a + f[k], 0)
const VALUE_DTYPE =
  /^(null|bool|u?int(8|16|32|64)|float(16|32|64)|(large_)?string|(large_)?binary|date(32|64)|(time32|time64|timestamp|duration)\[.+\]|decimal(128|256)\(\d+, ?-?\d+\))$/

/** Fields whose values come from the Hub's lists; a missing one is a problem only when `required`. */
function checkListedFields(m: Obj, p: string[], required: boolean): void {
  if (typeof m.pretty_name !== 'string' || m.pretty_name.trim() === '') {
    if (required || m.pretty_name !== undefined) p.push('pretty_name: missing or empty')
  }
  const inList = (field: string, allowed: readonly string[], what: string, needed: boolean) => {
    const values = asList(m[field])
    if (!values?.length) return void (needed && p.push(`${field}: missing`))
    for (const v of values)
      if (typeof v !== 'string' || !allowed.includes(v)) p.push(`${field}: ${show(v)} is not one of the Hub's ${what}`)
  }
  inList('license', HUB_LICENSES, 'licence ids (e.g. cc-by-sa-4.0, mit, other)', required)
  inList('task_categories', HUB_TASK_CATEGORIES, 'task categories', required)
  inList('task_ids', HUB_TASK_IDS, 'task ids', false)
  const languages = asList(m.language)
  if (!languages?.length) {
    if (required) p.push('language: missing')
  } else
    for (const l of languages)
      if (typeof l !== 'string' || !/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(l)) p.push(`language: ${show(l)} is not an ISO 639 code`)
}

function checkFields(m: Obj, files: readonly DataFileFacts[]): string[] {
  const p: string[] = []
  checkListedFields(m, p, true)

  const total = sum(files, 'rows')
  const want = sizeCategoryFor(total)
  const sizes = asList(m.size_categories)
  if (!sizes?.length) p.push(`size_categories: missing; for ${total} rows it is ${want}`)
  else if (sizes.length !== 1) p.push(`size_categories: ${sizes.length} values; one dataset has one size (${want} for ${total} rows)`)
  else if (!HUB_SIZE_CATEGORIES.includes(sizes[0] as never))
    p.push(`size_categories: ${show(sizes[0])} is not one of the Hub's size categories (${HUB_SIZE_CATEGORIES.join(', ')})`)
  else if (sizes[0] !== want) p.push(`size_categories: ${sizes[0]} does not fit ${total} rows; that is ${want}`)

  const splits = checkConfigs(m.configs, files, p)
  if (splits) checkDatasetInfo(m.dataset_info, splits.name, splits.files, files, p)
  return p
}

/** The default config's split → data files, after checking every config names exactly the uploaded data files. */
function checkConfigs(
  configs: unknown,
  files: readonly DataFileFacts[],
  p: string[],
): { name: string; files: Map<string, DataFileFacts[]> } | null {
  if (!Array.isArray(configs) || configs.length === 0) {
    p.push('configs: missing; it must name the data files')
    return null
  }
  const byPath = new Map(files.map((f) => [f.path, f]))
  const named = new Set<string>()
  let chosen: { name: string; files: Map<string, DataFileFacts[]> } | null = null
  configs.forEach((c, i) => {
    const at = `configs[${i}]`
    if (!isObj(c) || typeof c.config_name !== 'string') {
      p.push(`${at}.config_name: missing`)
      return
    }
    const entries = (asList(c.data_files) ?? []).map((e) => (typeof e === 'string' ? { split: 'train', path: e } : e))
    if (entries.length === 0) p.push(`${at}.data_files: missing`)
    const splits = new Map<string, DataFileFacts[]>()
    for (const e of entries) {
      if (!isObj(e) || typeof e.split !== 'string' || !/^\w+(\.\w+)*$/.test(e.split)) {
        p.push(`${at}.data_files: entry ${show(e)} needs a split name (letters, digits, _) and a path`)
        continue
      }
      if (splits.has(e.split)) p.push(`${at}.data_files: split ${e.split} is listed twice`)
      const got: DataFileFacts[] = []
      const paths = asList(e.path) ?? []
      if (paths.length === 0) p.push(`${at}.data_files: split ${e.split} has no path`)
      for (const path of paths) {
        const f = typeof path === 'string' ? byPath.get(path) : undefined
        if (typeof path === 'string') named.add(path)
        if (f) got.push(f)
        else
          p.push(
            `${at}.data_files: ${show(path)} (split ${e.split}) is not among the data files being uploaded (${[...byPath.keys()].join(', ')})`,
          )
      }
      splits.set(e.split, got)
    }
    if (!chosen || c.config_name === 'default') chosen = { name: c.config_name, files: splits }
  })
  for (const f of files) if (!named.has(f.path)) p.push(`configs: ${f.path} is uploaded but no config's data_files names it`)
  return chosen
}

function checkDatasetInfo(
  raw: unknown,
  config: string,
  splitFiles: Map<string, DataFileFacts[]>,
  files: readonly DataFileFacts[],
  p: string[],
): void {
  const info = Array.isArray(raw) ? raw.find((x) => isObj(x) && x.config_name === config) : raw
  if (!isObj(info)) return void p.push(`dataset_info: missing${Array.isArray(raw) ? ` for config ${config}` : ''}`)
  const features = info.features
  if (!Array.isArray(features)) p.push('dataset_info.features: missing')
  else {
    const names = features.map((f) => (isObj(f) ? f.name : undefined))
    const keys = files[0]?.keys ?? []
    if (names.join(',') !== keys.join(',')) p.push(`dataset_info.features: names ${show(names)} are not the record keys ${show(keys)}`)
    features.forEach((f, i) => {
      if (!isObj(f)) return
      const dtype = f.dtype ?? f.sequence
      if (
        typeof dtype === 'string'
          ? !VALUE_DTYPE.test(dtype)
          : dtype === undefined && f.list === undefined && f.class_label === undefined && f.struct === undefined
      )
        p.push(
          `dataset_info.features[${i}] (${String(f.name)}): ${dtype === undefined ? 'no dtype' : `dtype ${show(dtype)} is not a datasets Value type`}`,
        )
    })
  }
  const splits = Array.isArray(info.splits) ? info.splits : null
  if (!splits) return void p.push('dataset_info.splits: missing')
  const seen = new Set<string>()
  for (const s of splits) {
    const name = isObj(s) && typeof s.name === 'string' ? s.name : null
    if (!name || !isObj(s)) {
      p.push(`dataset_info.splits: entry ${show(s)} has no name`)
      continue
    }
    seen.add(name)
    const fs = splitFiles.get(name)
    if (!fs) {
      p.push(`dataset_info.splits: ${name} is not a split of config ${config}`)
      continue
    }
    if (fs.length === 0) continue // its data_files problem is already listed
    const where = fs.map((f) => f.path).join(' + ')
    if (s.num_examples !== sum(fs, 'rows'))
      p.push(`dataset_info.splits[${name}].num_examples: ${show(s.num_examples)}, but ${where} has ${sum(fs, 'rows')} rows`)
    if (s.num_bytes !== sum(fs, 'bytes'))
      p.push(`dataset_info.splits[${name}].num_bytes: ${show(s.num_bytes)}, but ${where} has ${sum(fs, 'bytes')} bytes`)
  }
  for (const name of splitFiles.keys()) if (!seen.has(name)) p.push(`dataset_info.splits: no entry for split ${name}`)
  const bytes = sum(files, 'bytes')
  for (const k of ['dataset_size', 'download_size'] as const)
    if (info[k] !== undefined && info[k] !== bytes) p.push(`dataset_info.${k}: ${show(info[k])}, but the data files hold ${bytes} bytes`)
}
