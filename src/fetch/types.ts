/** One upstream file, with its bytes in hand; every source backend ends here. */
export interface SourceFile {
  repo: string
  /** the revision the recipe asked for */
  revision: string
  /** the full commit it resolved to (a mirror reports the requested revision) */
  commit: string
  path: string
  /** this file's own (a fresh read, shared with nothing): loadSource hands them to the decoder, which may leave them empty */
  bytes: Uint8Array
  size: number
  /** hex sha256 of bytes */
  sha256: string
}

/** Where upstream bytes come from: the Hub (with its cache) or a local mirror. */
export interface FileFetcher {
  readonly kind: 'hub' | 'mirror'
  fetchFile(repo: string, revision: string, path: string): Promise<SourceFile>
  /** offline Hub only: the cache entry a file came from when the lock did not vouch for its bytes */
  unvouched?(repo: string | undefined, path: string): { pointer: string; blob: string } | undefined
}
