import { join } from 'node:path'
import { checkFolder, readDataset } from '../check/check.ts'
import { checkUpstream } from '../check/upstream.ts'
import { OUTPUT_FILES } from '../emit/outputs.ts'
import { JevError } from '../errors.ts'
import { lockPathFor, readLock } from '../recipe/lock.ts'
import { refuseIrregular } from '../util/files.ts'
import { defineCommand, JSON_OPTION } from './common/command.ts'
import { recipeOfFolder } from './common/folder-recipe.ts'
import { fetcherFor, PROGRESS_NOTE, requireFolder, SOURCE_OPTIONS, SOURCE_PARAMS } from './common/source-options.ts'
import type { Io } from './run.ts'

export const checkCommand = defineCommand({
  name: 'check-dataset',
  args: { synopsis: '[DIR]', max: 1, names: ['dir'] },
  about: [
    "Checks a built folder (DIR, default out) against its recipe's counts (the recipe its manifest names: --recipe, or the package's own),",
    "the spec's invariants and its own card, manifest and provenance.",
  ],
  options: {
    upstream: {
      type: 'boolean',
      default: false,
      help: "also read the recipe's sources (at the lock's commits, from the source options) and prove provenance.jsonl against the upstream rows",
    },
    ...SOURCE_OPTIONS,
    ...JSON_OPTION,
  },
  notes: [
    '  The source options (--lock, --mirror, --offline, --cache-dir, the bounds) matter only with --upstream.',
    `  With --upstream: ${PROGRESS_NOTE.replace(/^P/, 'p').replace(' is drawn', '')}`,
  ],
  params: SOURCE_PARAMS,
})

export const parseCheck = (argv: string[], io: Io) => checkCommand.parse(argv, io)

/** One problem as --json gives it: the file, the record and field where the text names them. */
export interface Problem {
  file: string | null
  line: number | null
  id: string | null
  field: string | null
  message: string
}

/** Splits a problem line (`FILE: …`, `FILE line N: FIELD: …`, `SPLIT ID: …`) into its parts. */
export function problemOf(text: string): Problem {
  const m = /^(\S+?\.(?:jsonl|json|md|svg))(?: front matter)?(?: line (\d+))?: (.*)$/s.exec(text)
  if (m) {
    const field = m[2] ? (/^([\w.]+): /.exec(m[3]!)?.[1] ?? null) : null
    return { file: m[1]!, line: m[2] ? Number(m[2]) : null, id: null, field, message: text }
  }
  const r = /^(test|val) (\S+): /.exec(text)
  if (r) return { file: `${r[1]}.jsonl`, line: null, id: r[2]!, field: null, message: text }
  const s = /^(test|val): /.exec(text)
  return { file: s ? `${s[1]}.jsonl` : null, line: null, id: null, field: null, message: text }
}

/** The check itself, for parsed options: the problems found (none: the folder meets the spec). */
export async function runCheck(
  parsed: NonNullable<ReturnType<typeof parseCheck>>,
  env: NodeJS.ProcessEnv,
  io: Io,
): Promise<{ dir: string; problems: string[]; upstream: boolean }> {
  const { values, positionals } = parsed
  // one spelling of the folder in every message, however it was typed (out, out/)
  const dir = (positionals[0] ?? 'out').replace(/(.)\/+$/, '$1')
  await requireFolder(dir)
  // a FIFO in a file's place would block the check's read forever
  for (const name of OUTPUT_FILES) await refuseIrregular(join(dir, name))
  // read once: the recipe the manifest names and the upstream check go by the very files checked
  const read = await readDataset(dir)
  const { recipe, path } = await recipeOfFolder(dir, read.raw['manifest.json'] ?? null, values.recipe)
  const problems = await checkFolder(dir, recipe, read)
  let upstream = false
  if (values.upstream) {
    // proved whatever the local checks found: each upstream problem names its record
    const { records, provenance } = read
    if (!provenance) problems.push('provenance.jsonl: missing or malformed, so it was not proved against the upstream rows')
    else {
      const lock = await readLock(values.lock ?? lockPathFor(path))
      const fetcher = await fetcherFor(values, env, io.err, undefined, io.progress)
      problems.push(...(await checkUpstream(records, provenance, recipe, fetcher, lock, io.progress)))
      upstream = true
    }
  }
  return { dir, problems, upstream }
}

/** check-dataset as a library function: the problems of `dir` (default out); none when it meets the spec. */
export const checkDataset = checkCommand.library((call) => runCheck(call, call.env, call.io))

export async function checkDatasetCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return checkCommand.main(argv, env, io, async (parsed, io) => {
    const { dir, problems, upstream } = await checkDataset(parsed.params, io)
    io.progress?.end()
    // upstream: whether provenance.jsonl was proved against the upstream rows (asked for and made)
    const json = { dir: `${dir}/`, upstream, problems: problems.map(problemOf) }
    if (problems.length === 0) {
      io.out(`ok: ${dir}/ meets the spec${upstream ? ', and provenance.jsonl matches the upstream rows' : ''}`)
      return { json }
    }
    for (const p of problems.slice(0, 50)) io.err(p)
    if (problems.length > 50) io.err(`… and ${problems.length - 50} more`)
    return { json, fail: new JevError('CHECK', `${dir}/: ${problems.length} problem${problems.length === 1 ? '' : 's'}`, { file: dir }) }
  })
}
