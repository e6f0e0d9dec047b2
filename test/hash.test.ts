import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { test } from 'node:test'
import { gitBlobSha1, sha1Hex, sha256Hex } from '../src/hash.ts'

test('sha256 and sha1 of bytes and of a string\'s UTF-8 are the standard digests', () => {
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
