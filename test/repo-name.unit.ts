import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isHubNamePart, isHubRepoName, isRefName, isRepoId } from '../src/util/repo-name.ts'

test('a repo id a recipe may name: owner/name, never a path out of its folder', () => {
  for (const ok of ['allenai/ai2_arc', 'cais/mmlu', 'shunk031/JGLUE', 'google/boolq', 'a/.hidden', 'o/n.v2'])
    assert.equal(isRepoId(ok), true, ok)
  for (const bad of ['', 'mmlu', 'a/b/c', 'a/..', 'a/.', '../a', './a', '/a/b', 'a\\b/c', 'a/b\\c', 'a b/c', '-a/b', 'a/', '/b'])
    assert.equal(isRepoId(bad), false, bad)
})

test('a name the Hub accepts: each part starts with a letter or digit, at most 96 characters', () => {
  assert.equal(isHubRepoName('me/jev-bench'), true)
  assert.equal(isHubNamePart('x'.repeat(96)), true)
  assert.equal(isHubNamePart('x'.repeat(97)), false)
  for (const bad of ['me', 'me/', '/jev', 'me/.jev', 'me/_jev', 'a/b/c', 'me/jev bench', '..', '%2e%2e'])
    assert.equal(isHubRepoName(bad), false, bad)
})

test('branch and tag names', () => {
  for (const ok of ['main', 'v1.0.0', 'release/1.1', 'a_b-c']) assert.equal(isRefName(ok), true, ok)
  for (const bad of ['', '-x', 'a..b', 'a//b', 'a/', 'a.', '__proto__', 'a b', '/a']) assert.equal(isRefName(bad), false, bad)
})
