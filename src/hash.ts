/** The byte hashes: content addresses of files (sha256) and git's blob ids (sha1), in one place. */
import { createHash, hash } from 'node:crypto'

/** sha256 of bytes, or of a string's UTF-8, as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  // the one-shot API: several times faster than createHash for short inputs
  return hash('sha256', data, 'hex')
}

/** sha1 of bytes, or of a string's UTF-8, as lowercase hex. */
export function sha1Hex(data: string | Uint8Array): string {
  return hash('sha1', data, 'hex')
}

/** git's id of a blob (`git hash-object`): what the Hub reports as the oid of a file not stored through LFS. */
export function gitBlobSha1(bytes: Uint8Array): string {
  // two updates: no copy of a big file's bytes
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}
