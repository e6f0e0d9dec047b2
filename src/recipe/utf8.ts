/** Text files read strictly: bytes that are not UTF-8 are an error, never silently U+FFFD. */

const strict = new TextDecoder('utf-8', { fatal: true })

/** The offset and line of the first byte that is not UTF-8, or null when all are. */
export function invalidUtf8(bytes: Uint8Array): { byte: number; line: number } | null {
  try {
    strict.decode(bytes)
    return null
  } catch {
    // a valid prefix encodes back to the same bytes; the first that differs is the bad one
    const again = Buffer.from(Buffer.from(bytes).toString('utf8'), 'utf8')
    let i = 0
    while (i < bytes.length && again[i] === bytes[i]) i++
    let line = 1
    for (let j = 0; j < i; j++) if (bytes[j] === 0x0a) line++
    return { byte: i, line }
  }
}
