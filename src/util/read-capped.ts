/**
 * A response body's bytes as text, at most `max` of them; null for a larger body, which is cancelled rather than
 * read (a declared length over the cap is refused before any byte). Decoded as Response.text() does.
 */
export async function readCapped(res: Response, max: number): Promise<string | null> {
  const declared = Number(res.headers.get('content-length'))
  if (declared > max) {
    await res.body?.cancel().catch(() => {})
    return null
  }
  const chunks: Uint8Array[] = []
  let size = 0
  if (res.body) {
    const reader = res.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > max) {
        await reader.cancel().catch(() => {})
        return null
      }
      chunks.push(value)
    }
  }
  return new TextDecoder().decode(Buffer.concat(chunks))
}
