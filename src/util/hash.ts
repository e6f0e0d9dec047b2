/** The hashes, in one place: content addresses of files (sha256), git's blob ids (sha1), and order-independent hashes of sets. */
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

/** Order-independent hash of a set of items: sha256 over the sorted per-item hashes. */
export function setHash(itemHashes: Iterable<string>): string {
  // the default sort compares code units: the same order as compareStrings, on every machine
  const sorted = [...itemHashes].sort()
  const h = createHash('sha256')
  for (const x of sorted) h.update(`${x}\n`)
  return h.digest('hex')
}

/** sha256 as 32 latin1 characters: they sort as the hex digits do, in half the memory. */
export function sha256Digest(data: string): string {
  return hash('sha256', data, 'binary')
}

const HEX_DIGITS = Buffer.from('0123456789abcdef')

/** setHash over sha256Digest values (sorts them in place): the same result, without a hex string per item. */
export function digestSetHash(digests: string[]): string {
  // the default sort compares code units, which for latin1 digests is byte order, as for their hex
  digests.sort()
  const h = createHash('sha256')
  const CHUNK = 4096
  const text = Buffer.allocUnsafe(65 * CHUNK)
  for (let i = 0; i < digests.length; i += CHUNK) {
    let k = 0
    for (const d of digests.slice(i, i + CHUNK)) {
      for (let c = 0; c < 32; c++) {
        const b = d.charCodeAt(c)
        text[k++] = HEX_DIGITS[b >> 4]!
        text[k++] = HEX_DIGITS[b & 15]!
      }
      text[k++] = 10
    }
    h.update(text.subarray(0, k))
  }
  return h.digest('hex')
}
