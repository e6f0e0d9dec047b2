import { type DatasetDiff, diffBuilds, formatDiff, readBuildAtRev, readBuildDir } from '../diff.ts'
import { JevError } from '../errors.ts'
import { type Io, isMain, parseCli, runMain, stdio } from './run.ts'

const USAGE = `usage: npm run diff-dataset -- A B [--json]
       npm run diff-dataset -- --rev REV [B] [--json]
  Compares two built folders record by record, keyed by split and id: records added, removed and changed (which fields;
  for choices, which options), totals by source and option count, and which data files and manifest fields differ.
  --rev REV   compare the out/ committed at git revision REV (read with git show REV:out/<file>) with B (default out)
  --json      the diff as one JSON document on stdout
  Exit 0 when the two are identical, 11 (DIFF) when they differ.`

export const DIFF_OPTIONS = { rev: { type: 'string' }, json: { type: 'boolean', default: false } } as const
export const parseDiff = (argv: string[], io: Io) => parseCli(argv, DIFF_OPTIONS, USAGE, 2, io)

/** The comparison, for parsed options. */
export async function runDiff(parsed: NonNullable<ReturnType<typeof parseDiff>>): Promise<DatasetDiff> {
  const { values, positionals } = parsed
  const rev = values.rev as string | undefined
  const [a, b] = rev === undefined ? positionals : [`${rev}:out`, positionals[0] ?? 'out']
  if (!a || !b || (rev !== undefined && positionals.length > 1))
    throw new JevError('USAGE', `give two folders, or --rev REV and at most one folder\n${USAGE}`)
  const strip = (d: string) => d.replace(/(.)\/+$/, '$1')
  return diffBuilds(rev === undefined ? await readBuildDir(a) : await readBuildAtRev(rev), await readBuildDir(b), strip(a), strip(b))
}

export async function diffDatasetCli(argv: string[], _env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const parsed = parseDiff(argv, io)
  if (!parsed) return 0
  const diff = await runDiff(parsed)
  if (parsed.values.json) io.out(JSON.stringify(diff))
  else for (const line of formatDiff(diff)) io.out(line)
  if (diff.identical) return 0
  const n = diff.files.filter((f) => f.status !== 'identical').length
  throw new JevError('DIFF', `${diff.a} and ${diff.b} differ (${n} file${n === 1 ? '' : 's'})`)
}

if (isMain(import.meta.url)) {
  await runMain(() => diffDatasetCli(process.argv.slice(2), process.env, stdio))
}
