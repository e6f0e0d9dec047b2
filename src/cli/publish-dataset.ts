import { checkCardMetadata } from '../card-check.ts'
import { JevError } from '../errors.ts'
import { lockPathFor, readLock } from '../lock.ts'
import { Manifest } from '../manifest.ts'
import { buildDataset } from '../pipeline.ts'
import { checkOwnManifest, dataFileFacts, type LocalFile, readPublishFiles } from '../publish-files.ts'
import type { HubAccess } from '../publish-hub.ts'
import { executePublish, formatPlan, planPublish, type PublishPlan, type PublishResult, type PublishTarget } from '../publish.ts'
import { loadRecipe } from '../recipe.ts'
import { BOUNDS_USAGE, boundsFrom } from '../sources/bounds.ts'
import { nameBadEntry } from '../sources/hub-cache.ts'
import { hubOptionsFromEnv } from '../sources/hub.ts'
import { boundedFetch } from '../sources/retry.ts'
import { formatVerify, verifyFiles } from '../verify.ts'
import { fetcherFor, SOURCE_OPTIONS } from './build-dataset.ts'
import { type Io, isMain, parseCli, runMain, stdio } from './run.ts'
import { isHubRepoName, isRefName } from '../repo-name.ts'

const USAGE = `usage: npm run publish-dataset -- --repo OWNER/NAME [--revision BRANCH] [--tag NAME] [--private] [--message TEXT] [--dry-run] [--no-verify] [--out DIR]
                                  [--recipe FILE] [--lock FILE] [--mirror DIR] [--offline] [--cache-dir DIR] [--quiet] [--debug]
  Uploads test.jsonl, val.jsonl, README.md and manifest.json from the output folder to a Hub dataset repo in one commit.
  --repo OWNER/NAME  the dataset repo; created when it does not exist
  --revision BRANCH  branch to commit to (default main; created from the default branch when missing)
  --tag NAME         tag the published commit; an existing tag on the same files is kept, one on other files is an error
  --private          create the repo private
  --message TEXT     commit title (default: "Publish <name> <version>" with the dataset hash)
  --dry-run          print the plan (files with size, sha256 and add/replace/delete/unchanged) and send only read requests
  --no-verify        skip the rebuild; out/ must still match its own manifest
  --out DIR          folder to publish (default out)
  --mirror, --offline, --recipe, --lock, --cache-dir: where the verifying rebuild reads its sources, as for build-dataset
Environment: HF_TOKEN (write access; never printed), HF_ENDPOINT (default https://huggingface.co),
  HF_HUB_OFFLINE=1 (or ON, YES, TRUE): as --offline, the rebuild reads only the cache; the upload itself still goes to the Hub.`

/** The same rebuild-and-compare verify-dataset does, or with --no-verify the manifest self-check. */
async function guardOut(outDir: string, files: readonly LocalFile[], values: Record<string, unknown>, env: NodeJS.ProcessEnv, io: Io): Promise<void> {
  if (values['no-verify']) {
    const problems = checkOwnManifest(files)
    if (problems.length === 0) return io.out(`ok: ${outDir}/ matches its own manifest (--no-verify: not rebuilt)`)
    for (const p of problems) io.err(`  ${p}`)
    throw new JevError('VERIFY', `${outDir}/ does not match its own manifest (${problems.length} problem${problems.length === 1 ? '' : 's'}); nothing was sent`, { file: outDir })
  }
  const recipePath = values.recipe as string
  const lockPath = (values.lock as string | undefined) ?? lockPathFor(recipePath)
  const lock = await readLock(lockPath)
  if (!lock) throw new JevError('LOCK', `no lock at ${lockPath}: build once to write it`, { file: lockPath })
  const fetcher = fetcherFor(values as never, env, io.err, lock)
  const rebuilt = await buildDataset(await loadRecipe(recipePath), fetcher, { lock }).catch((e: unknown) => {
    throw nameBadEntry(e, fetcher)
  })
  for (const w of rebuilt.warnings) io.err(`warning: ${w}`)
  // the bytes read for upload, not a second read of the folder, which could have changed since
  const result = verifyFiles(new Map(files.map((f) => [f.path, f.bytes])), rebuilt, outDir)
  for (const line of formatVerify(outDir, result)) (result.identical ? io.out : io.err)(line)
  if (!result.identical) throw new JevError('VERIFY', `${outDir}/ differs from a rebuild (cause: ${result.cause}); nothing was sent`, { file: outDir })
}

function defaultMessage(files: readonly LocalFile[]): string {
  try {
    const m = Manifest.parse(JSON.parse(files.find((f) => f.path === 'manifest.json')!.bytes.toString('utf8')))
    return `Publish ${m.recipe.name} ${m.recipe.version} (dataset ${m.datasetHash.slice(0, 12)})`
  } catch {
    return 'Publish dataset'
  }
}

export const PUBLISH_OPTIONS = {
  ...SOURCE_OPTIONS,
  out: { type: 'string', default: 'out' },
  repo: { type: 'string' },
  revision: { type: 'string', default: 'main' },
  tag: { type: 'string' },
  private: { type: 'boolean', default: false },
  message: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  'no-verify': { type: 'boolean', default: false },
} as const
export const parsePublish = (argv: string[], io: Io) =>
  parseCli(argv, PUBLISH_OPTIONS, USAGE, 0, io, `  network bounds, for every request the rebuild and publishing make (README: Network faults):\n${BOUNDS_USAGE}`)

/** The plan, and unless a dry run its result (null then). */
export interface PublishRun {
  plan: PublishPlan
  result: PublishResult | null
}

/** Verifies, plans and publishes, for parsed options, saying each step on `io`. */
export async function runPublish(values: NonNullable<ReturnType<typeof parsePublish>>['values'], env: NodeJS.ProcessEnv, io: Io, fetchImpl?: typeof fetch): Promise<PublishRun> {
  const repo = values.repo as string | undefined
  if (!repo || !isHubRepoName(repo)) throw new JevError('USAGE', `--repo must be OWNER/NAME, got ${JSON.stringify(repo ?? '')}\n${USAGE}`)
  for (const k of ['revision', 'tag'] as const) {
    const v = values[k] as string | undefined
    if (v !== undefined && !isRefName(v)) throw new JevError('USAGE', `--${k} ${JSON.stringify(v)} is not a valid git ref name`)
  }
  const dryRun = values['dry-run'] as boolean
  const { endpoint = 'https://huggingface.co', token } = hubOptionsFromEnv(env)
  // Checked before any work, so a missing or malformed token costs nothing and sends nothing.
  if (!token && !dryRun) throw new JevError('AUTH', 'HF_TOKEN is not set; publishing needs a token with write access to the repo')
  if (token && !token.startsWith('hf_')) throw new JevError('AUTH', 'HF_TOKEN is malformed: a Hugging Face token starts with hf_')
  const bounds = boundsFrom(values, env)

  const outDir = (values.out as string).replace(/\/+$/, '')
  const files = await readPublishFiles(outDir)
  await guardOut(outDir, files, values, env, io)
  const readme = files.find((f) => f.path === 'README.md')!.bytes.toString('utf8')
  const problems = checkCardMetadata(readme, dataFileFacts(files))
  if (problems.length) {
    for (const p of problems) io.err(`  ${p}`)
    throw new JevError('CARD', `${problems.length} problem${problems.length === 1 ? '' : 's'} in ${outDir}/README.md front matter; nothing was sent`, { file: `${outDir}/README.md` })
  }

  // every publishing request under the same bounds as the downloads, each once: a commit is not blindly re-sent
  const access: HubAccess = { endpoint, ...(token ? { token } : {}), fetch: boundedFetch(fetchImpl ?? globalThis.fetch, bounds) }
  const target: PublishTarget = {
    repo,
    revision: values.revision as string,
    private: values.private as boolean,
    message: (values.message as string | undefined) ?? defaultMessage(files),
    description: files.map((f) => `${f.path} sha256 ${f.sha256}`).join('\n'),
    ...(values.tag ? { tag: values.tag as string } : {}),
  }
  const plan = await planPublish(files, target, access)
  for (const line of formatPlan(plan, target)) io.out(line)
  if (dryRun) {
    io.out('dry run: only read requests were sent; nothing was changed')
    return { plan, result: null }
  }
  const result = await executePublish(plan, files, target, access, (line) => values.quiet || io.out(line))
  if (!result.committed) io.out(`no new commit: ${repo}@${target.revision} already holds these files`)
  io.out(result.url)
  return { plan, result }
}

export async function publishDatasetCli(argv: string[], env: NodeJS.ProcessEnv, io: Io, fetchImpl?: typeof fetch): Promise<number> {
  const parsed = parsePublish(argv, io)
  if (!parsed) return 0
  await runPublish(parsed.values, env, io, fetchImpl)
  return 0
}

if (isMain(import.meta.url)) {
  await runMain(() => publishDatasetCli(process.argv.slice(2), process.env, stdio))
}
