/**
 * Publishing the output folder to a Hub dataset repo: a plan made from read
 * requests only, then one commit guarded by the parent commit it was planned
 * against, and an optional tag that is created but never moved.
 */
import { type CommitOperation, commit, createBranch, createRepo, type ListFileEntry } from '@huggingface/hub'
import { JevError } from '../errors.ts'
import type { LocalFile } from './files.ts'
import { type HubAccess, hubClientOf, hubError, listRefs, previousOutputs, remoteFiles, resolveHead, tagCommit } from './hub.ts'

export interface PublishTarget {
  /** owner/name */
  repo: string
  /** the branch to commit to */
  revision: string
  tag?: string
  private: boolean
  /** the commit title */
  message: string
  description?: string
}

export type FileAction = 'add' | 'replace' | 'unchanged' | 'delete'

export interface PlannedFile {
  path: string
  action: FileAction
  size: number
  /** absent for a deleted non-LFS file (the Hub gives only its git oid) */
  sha256?: string
}

export interface PublishPlan {
  endpoint: string
  repo: string
  revision: string
  repoAction: 'create' | 'exists'
  branchAction: 'create' | 'exists'
  /** the commit the new one must follow; null for a repo still to be created */
  parentCommit: string | null
  files: PlannedFile[]
  /** whether any file is added, replaced or deleted */
  commit: boolean
  tag: { name: string; action: 'create' | 'exists'; commit?: string } | null
  notes: string[]
}

export interface PublishResult {
  commit: string
  url: string
  committed: boolean
  tagged: 'created' | 'exists' | null
}

const dataset = (name: string) => ({ type: 'dataset' as const, name })

/** LFS files compare by sha256; small files by their git blob sha1, the only hash the Hub keeps for them. */
function sameContent(remote: ListFileEntry | undefined, local: LocalFile): boolean {
  if (!remote) return false
  return remote.lfs ? remote.lfs.oid === local.sha256 && remote.lfs.size === local.size : remote.oid === local.gitSha1
}

/** Read requests only: where the branch is, what it holds, what must change. */
export async function planPublish(local: readonly LocalFile[], t: PublishTarget, a: HubAccess): Promise<PublishPlan> {
  const head = await resolveHead(t.repo, t.revision, a)
  const notes: string[] = []
  const plan: PublishPlan = {
    endpoint: a.endpoint,
    repo: t.repo,
    revision: t.revision,
    repoAction: head.repoExists ? 'exists' : 'create',
    branchAction: head.branchExists || (!head.repoExists && t.revision === 'main') ? 'exists' : 'create',
    parentCommit: head.commit,
    files: [],
    commit: false,
    tag: t.tag ? { name: t.tag, action: 'create' } : null,
    notes,
  }
  if (!head.repoExists && !a.token) notes.push(`without HF_TOKEN a private or gated ${t.repo} looks the same as a missing one`)
  if (head.repoExists && t.private && !head.private)
    notes.push(`${t.repo} exists and is public; --private only applies when publish creates the repo`)
  const remote = head.commit ? await remoteFiles(t.repo, head.commit, a) : new Map<string, ListFileEntry>()
  for (const f of local) {
    const r = remote.get(f.path)
    plan.files.push({ path: f.path, action: !r ? 'add' : sameContent(r, f) ? 'unchanged' : 'replace', size: f.size, sha256: f.sha256 })
  }
  // Files a previous publish listed in its manifest and this one no longer has; nothing else is touched.
  const before = head.commit && remote.has('manifest.json') ? await previousOutputs(t.repo, head.commit, a) : null
  if (head.commit && remote.has('manifest.json') && before === null)
    notes.push('the remote manifest.json is unreadable, so no file is deleted')
  const ours = new Set(local.map((f) => f.path))
  for (const path of new Set([...(before ?? []), 'manifest.json'])) {
    const r = remote.get(path)
    if (ours.has(path) || !r || path === '.gitattributes') continue
    plan.files.push({ path, action: 'delete', size: r.size, ...(r.lfs ? { sha256: r.lfs.oid } : {}) })
  }
  plan.commit = plan.files.some((f) => f.action !== 'unchanged')

  if (t.tag && head.repoExists) {
    const at = (await listRefs(t.repo, a)).tags[t.tag]
    if (at !== undefined) {
      // A tag is never moved: it may stay only where it already marks exactly these files.
      const tagged = at === head.commit ? remote : await remoteFiles(t.repo, at, a)
      if (!local.every((f) => sameContent(tagged.get(f.path), f)))
        throw new JevError(
          'CONFLICT',
          `tag ${t.tag} already points at ${at} in ${t.repo}, which holds other files; tags are never moved, so publish under a new tag`,
          { repo: t.repo, tag: t.tag },
        )
      plan.tag = { name: t.tag, action: 'exists', commit: at }
    }
  }
  return plan
}

const short = (sha: string | null | undefined) => (sha ? sha.slice(0, 12) : '')

export function formatPlan(p: PublishPlan, t: PublishTarget): string[] {
  const lines = [
    `publish to ${p.endpoint}/datasets/${p.repo}`,
    `  repo      ${p.repoAction === 'create' ? `create (${t.private ? 'private' : 'public'})` : 'exists'}`,
    `  revision  ${p.revision}${p.branchAction === 'create' ? ` (new branch from ${p.parentCommit ? short(p.parentCommit) : 'main'})` : ''}`,
    `  parent    ${p.parentCommit ?? '(the first commit of the new repo)'}`,
  ]
  const width = Math.max(...p.files.map((f) => f.path.length))
  for (const f of p.files)
    lines.push(
      `  ${f.action.padEnd(9)} ${f.path.padEnd(width)} ${String(f.size).padStart(9)} bytes  ${f.sha256 ? `sha256 ${f.sha256}` : '(not LFS: git oid only)'}`,
    )
  lines.push(p.commit ? `  commit    "${t.message}" on ${p.revision}` : '  commit    none: the branch already holds exactly these files')
  if (p.tag)
    lines.push(
      `  tag       ${p.tag.name}: ${p.tag.action === 'create' ? 'create on the published commit' : `already on ${short(p.tag.commit)} with these files (no change)`}`,
    )
  for (const n of p.notes) lines.push(`  note: ${n}`)
  return lines
}

export const commitUrl = (a: HubAccess, repo: string, sha: string) => `${a.endpoint}/datasets/${repo}/commit/${sha}`

/** Carries out a plan: create repo/branch if needed, one commit against the planned parent, then the tag. */
export async function executePublish(
  p: PublishPlan,
  local: readonly LocalFile[],
  t: PublishTarget,
  a: HubAccess,
  log: (line: string) => void = () => {},
): Promise<PublishResult> {
  const client = hubClientOf(a)
  if (!a.token) throw new JevError('AUTH', 'HF_TOKEN is not set; publishing needs a token with write access to the repo')
  let parent = p.parentCommit
  if (p.repoAction === 'create') {
    try {
      await createRepo({ ...client, accessToken: a.token, repo: dataset(t.repo), ...(t.private ? { visibility: 'private' as const } : {}) })
    } catch (e) {
      throw hubError(e, `create the dataset repo ${t.repo}`, a)
    }
    log(`created dataset repo ${t.repo}${t.private ? ' (private)' : ''}`)
    parent = (await resolveHead(t.repo, 'main', a)).commit
  }
  if (p.branchAction === 'create') {
    try {
      await createBranch({ ...client, repo: dataset(t.repo), branch: t.revision, ...(parent ? { revision: parent } : {}) })
    } catch (e) {
      throw hubError(e, `create the branch ${t.revision} of ${t.repo}`, a)
    }
    log(`created branch ${t.revision} at ${short(parent)}`)
  }
  if (!parent) throw new JevError('NETWORK', `the Hub reported no commit for ${t.repo}@${t.revision}`, { repo: t.repo })

  let sha = parent
  let url = commitUrl(a, t.repo, parent)
  if (p.commit) {
    const bytes = new Map(local.map((f) => [f.path, f.bytes]))
    const operations: CommitOperation[] = p.files.flatMap((f): CommitOperation[] =>
      f.action === 'add' || f.action === 'replace'
        ? [{ operation: 'addOrUpdate', path: f.path, content: new Blob([new Uint8Array(bytes.get(f.path)!)]) }]
        : f.action === 'delete'
          ? [{ operation: 'delete', path: f.path }]
          : [],
    )
    try {
      const out = await commit({
        ...client,
        repo: dataset(t.repo),
        operations,
        title: t.message,
        branch: t.revision,
        parentCommit: parent,
        ...(t.description ? { description: t.description } : {}),
      })
      if (!out) throw new Error('the Hub returned no commit')
      sha = out.commit.oid
      url = out.commit.url || commitUrl(a, t.repo, sha)
    } catch (e) {
      throw hubError(e, `commit to ${t.repo}@${t.revision}`, a)
    }
    log(`committed ${sha}`)
  }

  let tagged: PublishResult['tagged'] = null
  if (p.tag?.action === 'exists') tagged = 'exists'
  else if (p.tag) {
    tagged = await tagCommit(t.repo, sha, p.tag.name, a)
    // Taken since the plan: fine only if it names this very commit.
    const at = tagged === 'exists' ? (await listRefs(t.repo, a)).tags[p.tag.name] : sha
    if (at !== sha)
      throw new JevError('CONFLICT', `tag ${p.tag.name} was created at ${at} while publishing ${sha}; it was left as it is`, {
        repo: t.repo,
        tag: p.tag.name,
      })
    log(tagged === 'created' ? `tagged ${sha} as ${p.tag.name}` : `tag ${p.tag.name} already on ${sha}`)
  }
  return { commit: sha, url, committed: p.commit, tagged }
}
