import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { describe, test } from 'node:test'
import { digestSetHash, gitBlobSha1, setHash, sha1Hex, sha256Digest, sha256Hex } from '../src/util/hash.ts'

test("sha256 and sha1 of bytes and of a string's UTF-8 are the standard digests", () => {
  assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  assert.equal(sha256Hex(Buffer.from('abc')), sha256Hex('abc'))
  assert.equal(sha256Hex('日本'), sha256Hex(Buffer.from('日本', 'utf8')))
  assert.equal(sha1Hex('abc'), 'a9993e364706816aba3e25717850c26c9cd0d89d')
})

test('a git blob id is what git hash-object gives', () => {
  assert.equal(gitBlobSha1(new Uint8Array()), 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391')
  assert.equal(gitBlobSha1(Buffer.from('hello\n')), 'ce013625030ba8dba906f756967f9e9ca394464a')
  const bytes = Buffer.from([0, 1, 2, 255, 10, 13])
  let fromGit: string | null = null
  try {
    fromGit = execFileSync('git', ['hash-object', '--stdin'], { input: bytes, encoding: 'utf8' }).trim()
  } catch {
    // no git on this machine: the fixed vectors above still hold
  }
  if (fromGit) assert.equal(gitBlobSha1(bytes), fromGit)
  // a view into a bigger buffer hashes its own bytes only
  const big = Buffer.from('xxhello\nyy')
  assert.equal(gitBlobSha1(big.subarray(2, 8)), 'ce013625030ba8dba906f756967f9e9ca394464a')
})

describe('digestSetHash', () => {
  test('is setHash over the hex digests, as the spec defines the rows hash', () => {
    // more than one chunk of 4096, and digests whose first bytes are above 0x7f
    const texts = Array.from({ length: 9000 }, (_, i) => `row ${i}`)
    const hex = texts.map(sha256Hex)
    assert.ok(hex.some((h) => h >= '80') && hex.some((h) => h < '80'))
    assert.equal(digestSetHash(texts.map(sha256Digest)), setHash(hex))
    assert.equal(digestSetHash([]), setHash([]))
    const manual = createHash('sha256')
      .update(
        hex
          .slice(0, 3)
          .sort()
          .map((h) => `${h}\n`)
          .join(''),
      )
      .digest('hex')
    assert.equal(digestSetHash(texts.slice(0, 3).map(sha256Digest)), manual)
  })
})

describe('setHash', () => {
  test('is order independent', () => {
    assert.equal(setHash(['c', 'a', 'b']), setHash(['a', 'b', 'c']))
    assert.notEqual(setHash(['a', 'b']), setHash(['a', 'b', 'c']))
  })
})
