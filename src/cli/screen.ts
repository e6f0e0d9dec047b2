import { readFile } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { type ScreenedFile, ScreenedFile as ScreenedFileSchema } from '../borrow/screen.ts'
import { JevError } from '../errors.ts'
import { loadRecipe, recipeResource } from '../recipe/load.ts'
import { lockPathFor, readLock } from '../recipe/lock.ts'
import type { Recipe } from '../recipe/schema.ts'
import { candidateItems, readBuildInputs } from '../review/candidates.ts'
import { startFrom } from '../review/marks-file.ts'
import type { PeopleReviewer } from '../review/people.ts'
import { pinInRecipe } from '../review/pin.ts'
import { type Reviewer, runScreening, type ScreenOutcome } from '../review/screen.ts'
import { DEFAULT_RECIPE } from '../version.ts'
import { defineCommand, JSON_OPTION } from './common/command.ts'
import { MODEL_OPTIONS, modelReviewer, whole } from './common/review-options.ts'
import { fetcherFor, namedBadEntry, recipePathOf, SOURCE_NOTES, SOURCE_OPTIONS, SOURCE_PARAMS } from './common/source-options.ts'
import type { Io } from './run.ts'

export const screenCommand = defineCommand({
  name: 'screen',
  about: [
    "Screens the options the recipe's build would lend: for its selected items that no mark covers yet, their top candidates are",
    'marked by a model (--url, --model) or by people on sheets (--sheets DIR), the accepted ones rechecked by a second reviewer,',
    "and the recipe's marks file (distractors.borrow.plausible.screened) written whole, each item naming its reviewer.",
  ],
  options: {
    ...SOURCE_OPTIONS,
    out: { type: 'string', arg: 'FILE', help: 'the marks file to write (default: the one the recipe pins, next to it)' },
    from: { type: 'string', arg: 'FILE', help: 'marks to start from, kept as they are (default: --out, where it exists)' },
    ...MODEL_OPTIONS,
    sheets: {
      type: 'string',
      arg: 'DIR',
      help: 'people as the reviewers: sheets written to DIR, their marks read back from DIR/marks-K.txt',
    },
    'per-sheet': { type: 'string', number: true, arg: 'N', default: '40', help: 'items per sheet' },
    'recheck-model': { type: 'string', arg: 'NAME', help: 'a model as the second reviewer of the accepted candidates' },
    'recheck-url': { type: 'string', arg: 'URL', help: "the second reviewer's server (default --url)" },
    'recheck-api-key': {
      type: 'string',
      arg: 'KEY',
      help: "the second reviewer's key (JEV_RECHECK_API_KEY; default the first's where the server is the same)",
    },
    'recheck-sheets': { type: 'string', arg: 'DIR', help: 'people as the second reviewers, on sheets in DIR' },
    top: { type: 'string', number: true, arg: 'N', default: '12', help: 'candidates shown per item' },
    'top-en': {
      type: 'string',
      number: true,
      arg: 'N',
      default: '20',
      help: 'candidates shown per item whose question has a Latin letter',
    },
    want: {
      type: 'string',
      arg: 'N',
      default: '0',
      help: 'also show the next candidates of items with fewer than N accepted (a further round where the quota table needs more)',
    },
    sources: {
      type: 'string',
      arg: 'LIST',
      help: "screen only these sources' items (names from the recipe, comma-separated), e.g. those a QUOTA error names",
    },
    pin: { type: 'boolean', default: false, help: "write the marks file's new sha256 into the recipe" },
    ...JSON_OPTION,
  },
  notes: [
    'Environment: JEV_REVIEW_API_KEY (as --api-key), JEV_RECHECK_API_KEY (as --recheck-api-key), and those of build-dataset.',
    ...SOURCE_NOTES.slice(0, 3),
    'Exit status: 0 written, nothing to screen, or sheets waiting for marks; 2 bad usage or recipe; 3 malformed marks or answers; 6 the server failed; 7 a file could not be read or written.',
  ],
  params: SOURCE_PARAMS,
})

export const parseScreen = (argv: string[], io: Io) => screenCommand.parse(argv, io)
type ScreenValues = NonNullable<ReturnType<typeof parseScreen>>['values']

export interface ScreenRun extends ScreenOutcome {
  recipe: string
  /** whether the recipe now pins the file written (--pin wrote its sha256 there, or it was already there) */
  pinned: boolean
}

/** The journal beside the marks file for a task, unless --journal names the first reviewer's (the second's then beside it). */
function journalFor(out: string, journal: string | undefined, task: 'screen' | 'recheck'): string {
  if (journal !== undefined) return task === 'screen' ? journal : journal.replace(/(\.jsonl)?$/, '.recheck.jsonl')
  return join(dirname(out), `${basename(out).replace(/\.json$/i, '')}.${task}.journal.jsonl`)
}

async function readMarks(file: string, must: boolean): Promise<ScreenedFile | null> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (e) {
    if (!must && (e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new JevError('IO', `cannot read the marks ${file}: ${(e as Error).message}`, { file })
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new JevError('DATA', `${file}: not JSON`, { file, hint: 'name a marks file jev screen (or npm run screen) wrote' })
  }
  const r = ScreenedFileSchema.safeParse(json)
  if (!r.success)
    throw new JevError(
      'DATA',
      `${file}: not a screening marks file: at $.${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message}`,
      {
        file,
      },
    )
  return r.data
}

function reviewers(values: ScreenValues, env: NodeJS.ProcessEnv, out: string): { first: Reviewer; second: Reviewer | null } {
  const perSheet = whole(values['per-sheet'], 'per-sheet', 1)
  const key = values['api-key'] ?? env.JEV_REVIEW_API_KEY
  const model = modelReviewer(
    { url: values.url, model: values.model, key, journal: journalFor(out, values.journal, 'screen') },
    values,
    env,
    { url: '--url', model: '--model' },
  )
  if (model && values.sheets)
    throw new JevError('USAGE', 'give a model (--url, --model) or sheets (--sheets DIR) as the reviewer, not both')
  const first: Reviewer | null =
    model ?? (values.sheets ? ({ kind: 'people', sheets: values.sheets, perSheet } satisfies PeopleReviewer) : null)
  if (!first)
    throw new JevError('USAGE', 'no reviewer: give a model (--url URL --model NAME) or sheets for people (--sheets DIR)', {
      hint: 'e.g. jev screen --recipe FILE --mirror DIR --url http://127.0.0.1:8000 --model NAME --recheck-model NAME',
    })
  const recheckUrl = values['recheck-url'] ?? (values['recheck-model'] !== undefined ? values.url : undefined)
  // the first reviewer's key goes only to its own server
  const origin = (u: string | undefined) => {
    try {
      return u === undefined ? null : new URL(u).origin
    } catch {
      return null
    }
  }
  const sameServer = origin(recheckUrl) !== null && origin(recheckUrl) === origin(values.url)
  const second = modelReviewer(
    {
      url: recheckUrl,
      model: values['recheck-model'],
      key: values['recheck-api-key'] ?? env.JEV_RECHECK_API_KEY ?? (sameServer ? key : undefined),
      journal: journalFor(out, values.journal, 'recheck'),
    },
    values,
    env,
    { url: '--recheck-url', model: '--recheck-model' },
  )
  if (second && values['recheck-sheets']) throw new JevError('USAGE', 'give --recheck-model or --recheck-sheets, not both')
  return { first, second: second ?? (values['recheck-sheets'] ? { kind: 'people', sheets: values['recheck-sheets'], perSheet } : null) }
}

/** The sources `list` names (null: all); a name the recipe does not have is a USAGE error, found before any download. */
function sourcesNamed(list: string | undefined, recipe: Recipe): Set<string> | null {
  if (list === undefined) return null
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const known = recipe.sources.map((s) => s.name)
  const unknown = names.filter((n) => !known.includes(n))
  if (unknown.length || names.length === 0)
    throw new JevError(
      'USAGE',
      unknown.length ? `--sources names ${unknown.join(', ')}, not a source of the recipe` : '--sources names no source',
      {
        field: 'sources',
        hint: `the recipe's sources: ${known.join(', ')}`,
      },
    )
  return new Set(names)
}

/** The screening for parsed options: candidates from the sources, marks from the reviewers, the file written (and pinned). */
export async function runScreen(values: ScreenValues, env: NodeJS.ProcessEnv, io: Io): Promise<ScreenRun> {
  const recipePath = recipePathOf(values)
  const recipe: Recipe = await loadRecipe(recipePath)
  const only = sourcesNamed(values.sources, recipe)
  const pinned = recipe.distractors.borrow.plausible?.screened
  const pinnedFile = pinned ? recipeResource(recipe, pinned.path) : undefined
  const out = values.out ?? pinnedFile
  if (!out)
    throw new JevError('USAGE', `${recipePath} pins no marks file (distractors.borrow.plausible.screened), and no --out was given`, {
      hint: 'give --out FILE (next to the recipe; with --pin the recipe then pins it)',
    })
  const published = resolve(recipePath) === resolve(DEFAULT_RECIPE)
  if (published && (values.pin || (pinnedFile !== undefined && resolve(out) === resolve(pinnedFile))))
    throw new JevError('USAGE', `${recipePath} is the published recipe: its marks are the ones its version was built with`, {
      usage: null,
      hint: 'copy it (e.g. to recipes/my-bench.json), give the copy its own name, version and screened path, and screen the copy',
    })
  if (values.pin && pinnedFile && resolve(out) !== resolve(pinnedFile))
    throw new JevError('USAGE', `--pin writes the sha256 of the file the recipe pins (${pinnedFile}), and --out names another`)
  const who = reviewers(values, env, out)
  const start = values.from !== undefined ? await readMarks(values.from, true) : await readMarks(out, false)
  const lock = await readLock(values.lock ?? lockPathFor(recipePath))
  const fetcher = await fetcherFor(values, env, io.err, lock, io.progress)
  const inputs = await readBuildInputs(recipe, fetcher, lock, io.progress).catch(async (e: unknown) => {
    throw await namedBadEntry(e, fetcher)
  })
  io.progress?.stage('working out the candidates the build would lend')
  const items = candidateItems(inputs).filter((x) => only === null || only.has(x.source))
  const outcome = await runScreening(
    items,
    {
      out,
      start: startFrom(start, basename(values.from ?? out)),
      top: whole(values.top, 'top', 1),
      topEn: whole(values['top-en'], 'top-en', 1),
      want: whole(values.want, 'want', 0),
      first: who.first,
      second: who.second,
    },
    { log: io.err, progress: io.progress },
  )
  if (values.pin && outcome.sha256 && outcome.sha256 !== pinned?.sha256)
    await pinInRecipe(
      recipePath,
      'distractors.borrow.plausible.screened',
      { path: relative(dirname(resolve(recipePath)), resolve(out)), sha256: outcome.sha256 },
      pinned?.sha256,
    )
  const pinsIt = outcome.sha256 !== null && (values.pin || outcome.sha256 === pinned?.sha256)
  return { ...outcome, recipe: recipePath, pinned: pinsIt }
}

/** The lines a run prints. */
export function screenLines(r: ScreenRun): string[] {
  const cover = `the marks cover ${r.covered} of the ${r.selected} selected items that can borrow`
  if (r.status === 'nothing to screen') return [`nothing to screen: ${cover}`]
  const round = `${r.shown.items} items, ${r.shown.candidates} candidates shown`
  if (r.status === 'waiting') return [`${round}; sheets to mark: fill ${r.waiting.join(', ')}, then run the same command again`]
  const kept = r.shown.kept === null ? 'no second reviewer' : `${r.shown.kept} kept by the second reviewer`
  return [
    `screened ${round}: ${r.shown.accepted} accepted, ${kept}; ${cover}`,
    `wrote ${r.file} (sha256 ${r.sha256})`,
    r.pinned
      ? `${r.recipe} pins it`
      : `the recipe pins it by sha256: set distractors.borrow.plausible.screened.sha256 to ${r.sha256} in ${r.recipe} (or run with --pin)`,
  ]
}

/** screen as a library function: the uncovered candidates marked and rechecked; the marks file written (and pinned) once complete. */
export const screenRecipe = screenCommand.library(({ values, env, io }) => runScreen(values, env, io))

export async function screenCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return screenCommand.main(argv, env, io, async ({ params }, io) => {
    const run = await screenRecipe(params, io)
    io.progress?.end()
    if (run.status === 'written' && run.shown.kept === null)
      io.err('warning: no second reviewer rechecked the accepted candidates (--recheck-model or --recheck-sheets)')
    for (const l of screenLines(run)) io.out(l)
    return { json: run }
  })
}
