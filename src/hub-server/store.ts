/**
 * Writable repos of the local Hub: commits, branches and tags, with file bytes
 * kept by sha256. In memory, or in a folder (`--store`) as `blobs/<sha256>` plus
 * one `repos/datasets/<owner>/<name>.json` per repo, so a restart keeps them.
 */
import { randomBytes } from 'node:crypto'
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { writeAtomic } from '../util/atomic.ts'
import { sha1Hex, sha256Hex } from '../util/hash.ts'
import { DEFAULT_GITATTRIBUTES } from './gitattributes.ts'
import { HubHttpError } from './http-error.ts'
import { type CommitSummary, describe, isCommitId, type RepoFile, type RepoView } from './repo.ts'

export interface StoredFile {
  oid: string
  sha256: string
  size: number
  lfs: boolean
  pointerSize: number
}
interface StoredCommit {
  id: string
  parents: string[]
  title: string
  message: string
  date: string
  files: Record<string, StoredFile>
}
interface RepoState {
  id: string
  private: boolean
  branches: Record<string, string>
  tags: Record<string, string>
  commits: Record<string, StoredCommit>
}

export interface CommitChange {
  /** when set, the branch head must still be this commit (else HTTP 412) */
  parent?: string
  title: string
  message: string
  put: { path: string; file: StoredFile }[]
  /** files, or folders when the path ends with `/` */
  remove: string[]
}

export class Store {
  private readonly repos = new Map<string, StoreRepo>()
  private readonly blobs = new Map<string, Buffer>()

  private constructor(readonly dir: string | undefined) {}

  static async open(dir?: string): Promise<Store> {
    const store = new Store(dir)
    if (!dir) return store
    const base = join(dir, 'repos', 'datasets')
    for (const owner of await readdir(base).catch(() => [] as string[])) {
      for (const f of await readdir(join(base, owner)).catch(() => [] as string[])) {
        if (!f.endsWith('.json')) continue
        const state = JSON.parse(await readFile(join(base, owner, f), 'utf8')) as RepoState
        store.repos.set(state.id, new StoreRepo(store, state))
      }
    }
    return store
  }

  repo(id: string): StoreRepo | null {
    return this.repos.get(id) ?? null
  }

  async putBlob(bytes: Buffer): Promise<string> {
    const sha256 = sha256Hex(bytes)
    if (this.dir) {
      const path = join(this.dir, 'blobs', sha256)
      if (!(await stat(path).catch(() => null))) await writeAtomic(path, bytes)
    } else this.blobs.set(sha256, bytes)
    return sha256
  }

  async blobSize(sha256: string): Promise<number | null> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null
    if (!this.dir) return this.blobs.get(sha256)?.length ?? null
    return (await stat(join(this.dir, 'blobs', sha256)).catch(() => null))?.size ?? null
  }

  async readBlob(sha256: string): Promise<Buffer> {
    if (!this.dir) {
      const b = this.blobs.get(sha256)
      if (!b) throw new HubHttpError(500, `blob ${sha256} is missing from the store`)
      return b
    }
    return readFile(join(this.dir, 'blobs', sha256))
  }

  /** A new repo whose `main` holds the `.gitattributes` the Hub gives every new repo. */
  async createRepo(id: string, isPrivate: boolean): Promise<StoreRepo> {
    // Claimed before the first await, so two racing creates cannot both win.
    if (this.repos.has(id)) throw new HubHttpError(409, 'You already created this dataset repo')
    const bytes = Buffer.from(DEFAULT_GITATTRIBUTES)
    const repo = new StoreRepo(this, { id, private: isPrivate, branches: {}, tags: {}, commits: {} })
    this.repos.set(id, repo)
    repo.addCommit('main', {
      title: 'initial commit',
      message: '',
      put: [{ path: '.gitattributes', file: describe(bytes, false) }],
      remove: [],
    })
    await this.putBlob(bytes)
    await this.save(repo)
    return repo
  }

  private saving = new Map<string, Promise<void>>()

  /** Saves run one after another per repo, each writing the state as it is then. */
  save(repo: StoreRepo): Promise<void> {
    if (!this.dir) return Promise.resolve()
    const path = join(this.dir, 'repos', 'datasets', `${repo.id}.json`)
    const next = (this.saving.get(repo.id) ?? Promise.resolve()).then(() => writeAtomic(path, JSON.stringify(repo.state)))
    this.saving.set(
      repo.id,
      next.catch(() => undefined),
    )
    return next
  }
}

export class StoreRepo implements RepoView {
  readonly writable = true

  constructor(
    private readonly store: Store,
    readonly state: RepoState,
  ) {}

  get id(): string {
    return this.state.id
  }

  get private(): boolean {
    return this.state.private
  }

  resolve(revision: string): string | null {
    if (revision === 'HEAD') return this.state.branches.main ?? null
    if (Object.hasOwn(this.state.branches, revision)) return this.state.branches[revision]!
    if (Object.hasOwn(this.state.tags, revision)) return this.state.tags[revision]!
    return isCommitId(revision) && Object.hasOwn(this.state.commits, revision) ? revision : null
  }

  private at(commit: string): StoredCommit {
    const c = this.state.commits[commit]
    if (!c) throw new HubHttpError(404, `Invalid rev id: ${commit}`, 'RevisionNotFound')
    return c
  }

  async paths(commit: string): Promise<string[]> {
    return Object.keys(this.at(commit).files).sort((a, b) => (a < b ? -1 : 1))
  }

  async file(commit: string, path: string): Promise<RepoFile | null> {
    const f = this.at(commit).files[path]
    if (!f || !Object.hasOwn(this.at(commit).files, path)) return null
    return { ...f, path, read: () => this.store.readBlob(f.sha256) }
  }

  refs() {
    return { branches: { ...this.state.branches }, tags: { ...this.state.tags } }
  }

  log(commit: string): CommitSummary[] {
    const out: CommitSummary[] = []
    for (let c: StoredCommit | undefined = this.at(commit); c; c = c.parents[0] ? this.state.commits[c.parents[0]] : undefined)
      out.push({ id: c.id, title: c.title, message: c.message, date: c.date, parents: [...c.parents] })
    return out
  }

  /**
   * Applies a change to a branch. Synchronous from the parent check to the new
   * head, so two commits racing for one parent cannot both land.
   */
  addCommit(branch: string, change: CommitChange): string {
    const head = this.state.branches[branch]
    if (head === undefined && Object.keys(this.state.commits).length > 0)
      throw new HubHttpError(404, `Invalid rev id: ${branch}`, 'RevisionNotFound')
    if (change.parent !== undefined && change.parent !== head)
      throw new HubHttpError(412, 'A commit has happened since. Please refresh and try again.')
    const files: Record<string, StoredFile> = { ...(head ? this.at(head).files : {}) }
    for (const path of change.remove) {
      const hits = path.endsWith('/') ? Object.keys(files).filter((p) => p.startsWith(path)) : Object.hasOwn(files, path) ? [path] : []
      if (hits.length === 0) throw new HubHttpError(404, `Entry not found: ${path}`, 'EntryNotFound')
      for (const p of hits) delete files[p]
    }
    for (const { path, file } of change.put) files[path] = file
    // a commit's date, as the Hub reports it; server state only, never dataset output
    const date = new Date().toISOString()
    const tree = Object.keys(files)
      .sort()
      .map((p) => `${p}\0${files[p]!.oid}`)
      .join('\n')
    const id = sha1Hex(`${tree}\n${head ?? ''}\n${change.title}\n${date}\n${randomBytes(8).toString('hex')}`)
    this.state.commits[id] = { id, parents: head ? [head] : [], title: change.title, message: change.message, date, files }
    this.state.branches[branch] = id
    return id
  }

  async commit(branch: string, change: CommitChange): Promise<string> {
    const id = this.addCommit(branch, change)
    await this.store.save(this)
    return id
  }

  async setRef(kind: 'branches' | 'tags', name: string, commit: string | null): Promise<void> {
    if (commit === null) delete this.state[kind][name]
    else this.state[kind][name] = commit
    await this.store.save(this)
  }
}
