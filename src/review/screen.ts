/**
 * One screening run: the candidates the build would consider for its selected items that no mark covers yet (or,
 * with `want`, the next ones of items with too few accepted), marked by the first reviewer, the accepted ones
 * rechecked by the second, and the marks file written whole once every item is marked.
 */
import type { ScreenedFile } from '../borrow/screen.ts'
import { JevError } from '../errors.ts'
import { writeAtomic } from '../util/atomic.ts'
import { sha256Hex } from '../util/hash.ts'
import type { Progress } from '../util/progress.ts'
import { addRecheck, addRound, marksFileText, needsSecond, reviewerKey, toRecheck, toShow } from './marks-file.ts'
import { askModel, type ModelReviewer, modelIdentity } from './model.ts'
import { askPeople, type PeopleReviewer } from './people.ts'
import type { ReviewTask } from './prompts.ts'
import { itemText, type ScreenItem } from './screen-sheets.ts'

export type Reviewer = ModelReviewer | PeopleReviewer

export interface ScreenSettings {
  /** the marks file to write */
  out: string
  /** the marks so far (from --from, or the file at --out) */
  start: ScreenedFile
  top: number
  topEn: number
  want: number
  first: Reviewer
  second: Reviewer | null
}

export interface ScreenOutcome {
  /** written: the marks file is complete; waiting: people's marks files are still to fill */
  status: 'written' | 'waiting' | 'nothing to screen'
  /** selected items the build would let borrow, and how many of them the marks now cover */
  selected: number
  covered: number
  /** this run's round: items shown, candidates shown, candidates accepted, and of those the second reviewer kept */
  shown: { items: number; candidates: number; accepted: number; kept: number | null }
  /** the marks files people are yet to fill */
  waiting: string[]
  file: string | null
  sha256: string | null
}

type Io = { log: (line: string) => void; progress?: Progress | undefined }

/** A round's marks from a model or from people's sheets (null: still waiting, the files to fill added to `waiting`). */
async function ask(
  task: ReviewTask,
  r: Reviewer,
  items: readonly ScreenItem[],
  waiting: string[],
  io: Io,
): Promise<Map<string, string> | null> {
  if (r.kind === 'people') {
    const got = await askPeople(r, items, task === 'recheck')
    if ('waiting' in got) {
      waiting.push(...got.waiting)
      return null
    }
    return got.marks
  }
  return askModel(
    task,
    r,
    items.map((x) => ({ id: x.id, text: itemText(x, 1), count: x.candidates.length })),
    io,
  )
}

function identity(task: ReviewTask, r: Reviewer) {
  return r.kind === 'model'
    ? { name: r.model, who: modelIdentity(task, r) }
    : { name: `sheets:${r.sheets}`, who: { kind: 'sheets' as const, sheets: r.sheets } }
}

export async function runScreening(items: readonly ScreenItem[], s: ScreenSettings, io: Io): Promise<ScreenOutcome> {
  const shown = toShow(items, s.start, s.top, s.topEn, s.want)
  const waiting: string[] = []
  const coverage = (f: ScreenedFile) => items.filter((x) => f.items[x.id] !== undefined).length
  const outcome = (status: ScreenOutcome['status'], file: ScreenedFile, round: ScreenOutcome['shown'], sha256: string | null) => ({
    status,
    selected: items.length,
    covered: coverage(file),
    shown: round,
    waiting,
    file: sha256 ? s.out : null,
    sha256,
  })
  const round = {
    items: shown.length,
    candidates: shown.reduce((n, x) => n + x.candidates.length, 0),
    accepted: 0,
    kept: null as number | null,
  }
  if (shown.length === 0) return outcome('nothing to screen', s.start, round, null)
  const marks = await ask('screen', s.first, shown, waiting, io)
  if (!marks) return outcome('waiting', s.start, round, null)
  const first = identity('screen', s.first)
  let file = addRound(s.start, shown, marks, reviewerKey(s.start, first.name, first.who), first.who)
  round.accepted = [...marks.values()].reduce((n, m) => n + [...m].filter((c) => c === 'a').length, 0)
  const touched = new Set(marks.keys())
  if (s.second) {
    const again = toRecheck(file, touched, items)
    const checked = again.length ? await ask('recheck', s.second, again, waiting, io) : new Map<string, string>()
    if (!checked) return outcome('waiting', s.start, round, null)
    const second = identity('recheck', s.second)
    file = addRecheck(file, again, checked, reviewerKey(file, second.name, second.who), second.who)
    round.kept = [...checked.values()].reduce((n, m) => n + [...m].filter((c) => c === 'w').length, 0)
  } else {
    const stuck = needsSecond(file, touched)
    if (stuck.length)
      throw new JevError(
        'USAGE',
        `${stuck.length} items this round marked were rechecked before (e.g. ${stuck[0]}); their new accepted candidates need a second reviewer too`,
        {
          id: stuck[0],
          hint: 'give the second reviewer: --recheck-model NAME (a model) or --recheck-sheets DIR (people)',
        },
      )
  }
  const text = marksFileText(file)
  await writeAtomic(s.out, text)
  return outcome('written', file, round, sha256Hex(text))
}
