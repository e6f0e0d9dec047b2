import { type DatasetDiff, diffBuilds, formatDiff, readBuildAtRev, readBuildDir } from '../check/diff.ts'
import { JevError } from '../errors.ts'
import { defineCommand, JSON_OPTION } from './common/command.ts'
import type { Io } from './run.ts'

export const diffCommand = defineCommand({
  name: 'diff-dataset',
  args: { synopsis: 'A B | --rev REV [B]', max: 2, names: ['a', 'b'] },
  about: [
    'Compares two built folders record by record, keyed by split and id: records added, removed and changed (which fields;',
    'for choices, which options), totals by source and option count, and which data files and manifest fields differ.',
  ],
  options: {
    rev: {
      type: 'string',
      arg: 'REV',
      help: 'compare the out/ committed at git revision REV (read with git show REV:out/<file>) with B (default out)',
    },
    ...JSON_OPTION,
  },
  notes: ['  Exit 0 when the two are identical, 11 (DIFF) when they differ.'],
})

export const parseDiff = (argv: string[], io: Io) => diffCommand.parse(argv, io)

/** The comparison, for parsed options. */
export async function runDiff(parsed: NonNullable<ReturnType<typeof parseDiff>>): Promise<DatasetDiff> {
  const { values, positionals } = parsed
  const rev = values.rev
  const [a, b] = rev === undefined ? positionals : [`${rev}:out`, positionals[0] ?? 'out']
  if (!a || !b || (rev !== undefined && positionals.length > 1))
    throw new JevError('USAGE', 'give two folders, or --rev REV and at most one folder')
  const strip = (d: string) => d.replace(/(.)\/+$/, '$1')
  return diffBuilds(rev === undefined ? await readBuildDir(a) : await readBuildAtRev(rev), await readBuildDir(b), strip(a), strip(b))
}

/** diff-dataset as a library function: `a` and `b`, or `rev` and at most `b`. */
export const diffDatasets = diffCommand.library(runDiff)

export async function diffDatasetCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return diffCommand.main(argv, env, io, async (parsed, io) => {
    const diff = await diffDatasets(parsed.params, io)
    // --json prints the diff itself (by main); the text only without it
    if (!parsed.values.json) for (const line of formatDiff(diff)) io.out(line)
    const n = diff.files.filter((f) => f.status !== 'identical').length
    return {
      json: diff,
      ...(diff.identical ? {} : { fail: new JevError('DIFF', `${diff.a} and ${diff.b} differ (${n} file${n === 1 ? '' : 's'})`) }),
    }
  })
}
