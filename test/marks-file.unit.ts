/** The marks file as jev screen grows it: what a round shows, and every mark credited to the reviewer who made it. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Screen, type ScreenedFile } from '../src/borrow/screen.ts'
import { addRecheck, addRound, marksFileText, needsSecond, startFrom, toRecheck, toShow } from '../src/review/marks-file.ts'
import type { ScreenItem } from '../src/review/screen-sheets.ts'

const item = (id: string, n: number, question = 'Which one?'): ScreenItem => ({
  id,
  split: 'test',
  source: 's',
  question,
  context: null,
  options: ['right', 'wrong'],
  answer: 0,
  candidates: Array.from({ length: n }, (_, i) => ({ text: `Cand ${i}`, norm: `cand ${i}`, lender: 's-x', index: i })),
})
const model = { kind: 'model', model: 'm', endpoint: 'http://127.0.0.1:1/v1/chat/completions', prompt: 'a'.repeat(64) } as const
const second = { kind: 'sheets', sheets: 'recheck' } as const

test('an earlier file is kept, its marks credited to it; a round shows only items no mark covers, or with want the next candidates', () => {
  const earlier: ScreenedFile = { protocol: 'p', items: { q1: { shown: ['cand 0', 'cand 1'], marks: 'af', recheck: 'w' } } }
  const start = startFrom(earlier, 'old.json')
  assert.deepEqual(start.items.q1, {
    shown: ['cand 0', 'cand 1'],
    marks: 'af',
    recheck: 'w',
    by: [['earlier:old.json', 2]],
    recheckBy: [['earlier:old.json', 1]],
  })
  assert.deepEqual(start.reviewers, { 'earlier:old.json': { kind: 'earlier', file: 'old.json', protocol: 'p' } })
  const items = [item('q1', 5), item('q2', 30, 'ひとつ？'), item('q3', 30)]
  const shown = toShow(items, start, 12, 20, 0)
  assert.deepEqual(
    shown.map((x) => [x.id, x.candidates.length]),
    [
      ['q2', 12],
      ['q3', 20],
    ],
    'the covered item is not shown; a Latin question shows 20',
  )
  const more = toShow(items, start, 12, 20, 2)
  assert.deepEqual(
    more[0]!.candidates.map((c) => c.norm),
    ['cand 2', 'cand 3', 'cand 4'],
    'fewer than 2 accepted: the candidates not yet seen',
  )
})

test('a round and its recheck are appended to each item, credited; an item rechecked before needs the second reviewer again', () => {
  const start = startFrom({ protocol: 'p', items: { q1: { shown: ['cand 0'], marks: 'a', recheck: 'w' } } }, 'old.json')
  const round = [item('q1', 3).candidates.slice(1), item('q2', 2).candidates].map((candidates, i) => ({
    ...item(`q${i + 1}`, 0),
    candidates,
  }))
  const marked = addRound(
    start,
    round,
    new Map([
      ['q1', 'af'],
      ['q2', 'ra'],
    ]),
    'm',
    model,
  )
  assert.deepEqual(marked.items.q1!.by, [
    ['earlier:old.json', 1],
    ['m', 2],
  ])
  assert.deepEqual(needsSecond(marked, new Set(['q1', 'q2'])), ['q1'])
  assert.throws(() => marksFileText(marked), /one recheck mark per accepted candidate/)
  const again = toRecheck(marked, new Set(['q1', 'q2']), [item('q1', 3), item('q2', 2)])
  assert.deepEqual(
    again.map((x) => [x.id, x.candidates.map((c) => c.norm)]),
    [
      ['q1', ['cand 1']],
      ['q2', ['cand 1']],
    ],
  )
  const done = addRecheck(
    marked,
    again,
    new Map([
      ['q1', 'r'],
      ['q2', 'w'],
    ]),
    'sheets:recheck',
    second,
  )
  const file = JSON.parse(marksFileText(done)) as ScreenedFile
  assert.deepEqual(file.items.q1!.recheckBy, [
    ['earlier:old.json', 1],
    ['sheets:recheck', 1],
  ])
  const screen = new Screen(file)
  assert.equal(screen.accepts('q1', 'cand 0'), true)
  assert.equal(screen.accepts('q1', 'cand 1'), false, 'the second reviewer held it may be right')
  assert.equal(screen.accepts('q2', 'cand 1'), true)
  assert.equal(screen.accepts('q9', 'cand 1'), false, 'an item no mark covers lends nothing')
  assert.equal(screen.opened().accepts('q9', 'cand 1'), true, 'unless unscreened borrowing is allowed')
  assert.equal(screen.opened().accepts('q1', 'cand 1'), false, 'which leaves the marked items as they were')
})
