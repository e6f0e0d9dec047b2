import { checkCardMetadata } from '../check/card.ts'
import { formatVerify, verifyFiles } from '../check/verify.ts'
import { Manifest } from '../emit/manifest.ts'
import { isJevError, JevError } from '../errors.ts'
import { boundsFrom } from '../fetch/bounds.ts'
import { boundedFetch } from '../fetch/guarded-fetch.ts'
import { hubOptionsFromEnv } from '../fetch/hub.ts'
import { checkOwnManifest, dataFileFacts, type LocalFile, PUBLISHED_FILES, readPublishFiles } from '../publish/files.ts'
import type { HubAccess } from '../publish/hub.ts'
import { executePublish, formatPlan, type PublishPlan, type PublishResult, type PublishTarget, planPublish } from '../publish/publish.ts'
import { formatBytes } from '../util/progress.ts'
import { isHubRepoName, isRefName } from '../util/repo-name.ts'
import { defineCommand, JSON_OPTION, PARAMS } from './common/command.ts'
import { PROGRESS_NOTE, rebuildFromLock, SOURCE_OPTIONS, SOURCE_PARAMS, type SourceValues } from './common/source-options.ts'
import type { Io } from './run.ts'

export const publishCommand = defineCommand({
  name: 'publish-dataset',
  about: [
    `Uploads the ${PUBLISHED_FILES.length} files of the output folder (${PUBLISHED_FILES.join(', ')}) to a Hub dataset repo in one commit.`,
  ],
  options: {
    repo: { type: 'string', arg: 'OWNER/NAME', help: 'the dataset repo (required); created when it does not exist' },
    revision: { type: 'string', arg: 'BRANCH', default: 'main', help: 'branch to commit to; created from the default branch when missing' },
    tag: {
      type: 'string',
      arg: 'NAME',
      help: 'tag the published commit; an existing tag on the same files is kept, one on other files is an error',
    },
    private: { type: 'boolean', default: false, help: 'create the repo private' },
    message: { type: 'string', arg: 'TEXT', help: 'commit title (default: "Publish <name> <version>" with the dataset hash)' },
    'dry-run': {
      type: 'boolean',
      default: false,
      help: 'print the plan (files with size, sha256 and add/replace/delete/unchanged); send only read requests',
    },
    'no-verify': { type: 'boolean', default: false, help: 'skip the rebuild; the folder must still match its own manifest' },
    out: { type: 'string', arg: 'DIR', default: 'out', help: 'the folder to publish' },
    ...SOURCE_OPTIONS,
    ...JSON_OPTION,
  },
  notes: [
    '  The source options are where the verifying rebuild reads its sources, as for build-dataset; the bounds apply to every request.',
    'Environment: HF_TOKEN (write access; never printed), HF_ENDPOINT (default https://huggingface.co),',
    '  HF_HUB_OFFLINE=1 (or ON, YES, TRUE): as --offline, the rebuild reads only the cache; the upload itself still goes to the Hub.',
    PROGRESS_NOTE,
  ],
  /** `onPlan` sees the plan before any write */
  params: { ...SOURCE_PARAMS, fetch: PARAMS.fetch, onPlan: PARAMS.fn<(plan: PublishPlan) => void>() },
  required: ['repo'],
})

type PublishValues = NonNullable<ReturnType<typeof parsePublish>>['values']
export const parsePublish = (argv: string[], io: Io) => publishCommand.parse(argv, io)

/** The same rebuild-and-compare verify-dataset does, or with --no-verify the manifest self-check. */
async function guardOut(
  outDir: string,
  files: readonly LocalFile[],
  values: PublishValues & SourceValues,
  env: NodeJS.ProcessEnv,
  io: Io,
): Promise<void> {
  if (values['no-verify']) {
    const problems = checkOwnManifest(files)
    if (problems.length === 0) return io.out(`ok: ${outDir}/ matches its own manifest (--no-verify: not rebuilt)`)
    for (const p of problems) io.err(`  ${p}`)
    throw new JevError(
      'VERIFY',
      `${outDir}/ does not match its own manifest (${problems.length} problem${problems.length === 1 ? '' : 's'}); nothing was sent`,
      { file: outDir },
    )
  }
  const rebuilt = await rebuildFromLock(values, env, io)
  // the bytes read for upload, not a second read of the folder, which could have changed since
  const result = verifyFiles(new Map(files.map((f) => [f.path, f.bytes])), rebuilt, outDir)
  for (const line of formatVerify(outDir, result)) (result.identical ? io.out : io.err)(line)
  if (!result.identical)
    throw new JevError('VERIFY', `${outDir}/ differs from a rebuild (cause: ${result.cause}); nothing was sent`, { file: outDir })
}

function defaultMessage(files: readonly LocalFile[]): string {
  try {
    const m = Manifest.parse(JSON.parse(files.find((f) => f.path === 'manifest.json')!.bytes.toString('utf8')))
    return `Publish ${m.recipe.name} ${m.recipe.version} (dataset ${m.datasetHash.slice(0, 12)})`
  } catch {
    return 'Publish dataset'
  }
}

/** The plan, and unless a dry run its result (null then). */
export interface PublishRun {
  plan: PublishPlan
  result: PublishResult | null
}

/** Verifies, plans and publishes, for parsed options, saying each step on `io`; `onPlan` sees the plan before any write. */
export async function runPublish(
  values: PublishValues,
  env: NodeJS.ProcessEnv,
  io: Io,
  fetchImpl?: typeof fetch,
  onPlan?: (plan: PublishPlan) => void,
): Promise<PublishRun> {
  const repo = values.repo
  if (repo === undefined)
    throw new JevError('USAGE', 'publish-dataset needs --repo OWNER/NAME, the dataset repo to publish to', {
      usage: null,
      hint: 'add --repo OWNER/NAME (a --dry-run needs it too: it plans against that repo)',
    })
  if (!isHubRepoName(repo))
    throw new JevError('USAGE', `--repo must be OWNER/NAME, got ${JSON.stringify(repo)}`, {
      usage: null,
      hint: 'name the Hub dataset repo as its owner and name, e.g. --repo my-org/jev-bench',
    })
  for (const k of ['revision', 'tag'] as const) {
    const v = values[k]
    if (v !== undefined && !isRefName(v)) throw new JevError('USAGE', `--${k} ${JSON.stringify(v)} is not a valid git ref name`)
  }
  const dryRun = values['dry-run']
  const { endpoint = 'https://huggingface.co', token } = hubOptionsFromEnv(env)
  // Checked before any work, so a missing or malformed token costs nothing and sends nothing.
  if (!token && !dryRun) throw new JevError('AUTH', 'HF_TOKEN is not set; publishing needs a token with write access to the repo')
  if (token && !token.startsWith('hf_')) throw new JevError('AUTH', 'HF_TOKEN is malformed: a Hugging Face token starts with hf_')
  const bounds = boundsFrom(values, env)

  const outDir = values.out.replace(/(.)\/+$/, '$1')
  const files = await readPublishFiles(outDir)
  await guardOut(outDir, files, values, env, io)
  const readme = files.find((f) => f.path === 'README.md')!.bytes.toString('utf8')
  const problems = checkCardMetadata(readme, dataFileFacts(files))
  if (problems.length) {
    for (const p of problems) io.err(`  ${p}`)
    throw new JevError(
      'CARD',
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in ${outDir}/README.md front matter; nothing was sent`,
      { file: `${outDir}/README.md` },
    )
  }

  // every publishing request under the same bounds as the downloads, each once: a commit is not blindly re-sent
  const access: HubAccess = { endpoint, ...(token ? { token } : {}), fetch: boundedFetch(fetchImpl ?? globalThis.fetch, bounds) }
  const target: PublishTarget = {
    repo,
    revision: values.revision,
    private: values.private,
    message: values.message ?? defaultMessage(files),
    description: files.map((f) => `${f.path} sha256 ${f.sha256}`).join('\n'),
    ...(values.tag ? { tag: values.tag } : {}),
  }
  io.progress?.stage(`planning the commit to ${repo}@${target.revision}`)
  const plan = await planPublish(files, target, access)
  onPlan?.(plan)
  if (dryRun) io.progress?.end() // the plan is the result
  for (const line of formatPlan(plan, target)) io.out(line)
  if (dryRun) {
    io.out('dry run: only read requests were sent; nothing was changed')
    return { plan, result: null }
  }
  const sent = plan.files.filter((f) => f.action === 'add' || f.action === 'replace')
  io.progress?.stage(
    `publishing to ${repo}@${target.revision}: uploading ${sent.length} file${sent.length === 1 ? '' : 's'} (${formatBytes(sent.reduce((n, f) => n + f.size, 0))})`,
  )
  const result = await executePublish(plan, files, target, access, (line) => values.quiet || io.out(line))
  io.progress?.end()
  if (!result.committed) io.out(`no new commit: ${repo}@${target.revision} already holds these files`)
  io.out(result.url)
  return { plan, result }
}

/** publish-dataset as a library function: verifies, plans and (unless `dryRun`) publishes. */
export const publishDataset = publishCommand.library(({ values, env, io, params }) =>
  runPublish(values, env, io, params.fetch, params.onPlan),
)

export async function publishDatasetCli(argv: string[], env: NodeJS.ProcessEnv, io: Io, fetchImpl?: typeof fetch): Promise<number> {
  return publishCommand.main(argv, env, io, async ({ values, params }, io) => {
    let plan: PublishPlan | null = null
    try {
      const run = await publishDataset({ ...params, fetch: fetchImpl, onPlan: (p) => (plan = p) }, io)
      return { json: { dryRun: values['dry-run'], ...run } }
    } catch (e) {
      // a failure after the plan still shows the plan in the one JSON document
      if (plan && isJevError(e)) return { json: { dryRun: values['dry-run'], plan, result: null }, fail: e }
      throw e
    }
  })
}
