import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { UpstreamQuestion } from '../src/adapt/adapter.ts'
import { groupOf, groupsOf } from '../src/borrow/groups.ts'
import { toCandidate } from '../src/prepare/eligibility.ts'
import { sourceSpec, uq } from './helpers/questions.ts'

const cand = (id: string, options: string[], over: Partial<UpstreamQuestion> = {}) => toCandidate(uq({ id, options, ...over }))
const bySubject = sourceSpec({ name: 'mmlu', group: 'subject' })
const bySource = sourceSpec({ name: 'arc', group: 'source' })
const law = cand('l', ['tort', 'crime'], { subject: 'law' })
const bio = cand('b', ['cell', 'gene'], { subject: 'biology' })
const law2 = cand('l2', ['contract', 'Tort'], { subject: 'law' })

test('the borrowing group is the subject or the source', () => {
  assert.equal(groupOf(bySubject, law), 'law')
  assert.equal(groupOf(bySource, law), 'arc')
  assert.equal(groupOf(bySubject, cand('n', ['a', 'b'])), 'mmlu')
})

test('a side splits into its groups, which never mix', () => {
  const groups = groupsOf(bySubject, [law, bio, law2])
  assert.deepEqual([...groups.keys()].sort(), ['biology', 'law'])
  assert.deepEqual(
    groups.get('law')!.map((c) => c.id),
    ['l', 'l2'],
  )
  assert.deepEqual([...groupsOf(bySource, [law, bio, law2]).keys()], ['arc'])
})
