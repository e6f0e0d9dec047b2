import { readFile } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { z } from 'zod'
import type { JudgedRates } from '../emit/judged.ts'
import { JevError } from '../errors.ts'
import { recipeResource } from '../recipe/load.ts'
import { type JudgeOutcome, judgedText, runJudging } from '../review/judge.ts'
import { pinInRecipe } from '../review/pin.ts'
import { writeAtomic } from '../util/atomic.ts'
import { sha256Hex } from '../util/hash.ts'
import { DEFAULT_RECIPE } from '../version.ts'
import { defineCommand, JSON_OPTION } from './common/command.ts'
import { recipeOfFolder } from './common/folder-recipe.ts'
import { MODEL_OPTIONS, modelReviewer, whole } from './common/review-options.ts'
import { BOUND_FLAGS, requireFolder } from './common/source-options.ts'
import type { Io } from './run.ts'

export const judgeCommand = defineCommand({
  name: 'judge',
  args: { synopsis: '[DIR]', max: 1, names: ['dir'] },
  about: [
    'Judges a built folder (DIR, default out) blind: a seeded sample of its grown items, each shown with only its question and',
    'options to a model (--url, --model) or to people on sheets (--sheets DIR), every option marked belongs, obviously foreign or',
    'may also be right; the marks are scored against provenance.jsonl into the judged-rates file the recipe pins (recipe.judged).',
  ],
  options: {
    recipe: { type: 'string', arg: 'FILE', help: 'the recipe whose judged file is written (default: the one the folder was built from)' },
    out: { type: 'string', arg: 'FILE', help: 'the judged-rates file to write (default: the one the recipe pins)' },
    seed: { type: 'string', number: true, arg: 'N', help: "the sample's seed (required): use one no earlier round used" },
    test: { type: 'string', number: true, arg: 'N', default: '64', help: 'grown test items in the sample' },
    val: { type: 'string', number: true, arg: 'N', default: '24', help: 'grown val items in the sample' },
    ...MODEL_OPTIONS,
    'max-retry-after': BOUND_FLAGS['max-retry-after'],
    sheets: {
      type: 'string',
      arg: 'DIR',
      help: 'people as the judges: sample.json and sheet-K.md written to DIR, marks read from DIR/marks-K.txt',
    },
    judges: { type: 'string', number: true, arg: 'N', default: '4', help: 'with --sheets: sheets the sample is dealt to, one per judge' },
    earlier: { type: 'string', arg: 'FILE', help: "an earlier version's judged file (or result.json), for the card's comparison" },
    'earlier-version': { type: 'string', arg: 'V', help: 'the version --earlier was judged on' },
    pin: { type: 'boolean', default: false, help: "write the judged file's new sha256 into the recipe" },
    ...JSON_OPTION,
  },
  notes: [
    'Environment: JEV_REVIEW_API_KEY (as --api-key), JEV_MAX_RETRY_AFTER.',
    'Exit status: 0 scored, or sheets waiting for marks; 2 bad usage or recipe; 3 malformed marks or answers; 6 the server failed; 7 a file could not be read or written.',
  ],
})

export const parseJudge = (argv: string[], io: Io) => judgeCommand.parse(argv, io)
type JudgeValues = NonNullable<ReturnType<typeof parseJudge>>['values']

export interface JudgeRun extends JudgeOutcome {
  dir: string
  /** the judged-rates file written (null while waiting) */
  file: string | null
  sha256: string | null
  /** the recipe that pins the file, where it does */
  recipe: string | null
  pinned: boolean
}

const Earlier = z.object({ all: z.object({ items: z.int(), borrowed: z.int(), foreign: z.int() }).loose() })

async function readEarlier(values: JudgeValues) {
  if (values.earlier === undefined) return undefined
  const version = values['earlier-version']
  if (!version) throw new JevError('USAGE', '--earlier needs --earlier-version V (the version it was judged on)')
  let json: unknown
  try {
    json = JSON.parse(await readFile(values.earlier, 'utf8'))
  } catch (e) {
    throw new JevError('IO', `cannot read --earlier ${values.earlier}: ${(e as Error).message}`, { file: values.earlier })
  }
  const r = Earlier.safeParse(json)
  if (!r.success) throw new JevError('DATA', `${values.earlier}: no "all" rates (items, borrowed, foreign)`, { file: values.earlier })
  return { version, all: { upstream: 0, upstreamForeign: 0, maybeRightItems: 0, ...r.data.all } }
}

/** Where the judged file goes and which recipe pins it. */
async function target(values: JudgeValues, dir: string): Promise<{ out: string; recipe: string | null; was: string | null }> {
  if (values.out !== undefined && !values.pin) return { out: values.out, recipe: null, was: null }
  const manifest = await readFile(join(dir, 'manifest.json')).catch(() => null)
  const { recipe, path } = await recipeOfFolder(dir, manifest, values.recipe)
  const judged = recipe.judged
  const pinned = judged ? recipeResource(recipe, judged.path) : undefined
  if (resolve(path) === resolve(DEFAULT_RECIPE) && (values.pin || values.out === undefined))
    throw new JevError('USAGE', `${path} is the published recipe: its judged file is the one its version was judged with`, {
      usage: null,
      hint: 'judge a variant with its own recipe (--recipe FILE), or write elsewhere with --out FILE',
    })
  const out = values.out ?? pinned
  if (!out)
    throw new JevError('USAGE', `${path} pins no judged file (judged), and no --out was given`, {
      hint: 'give --out FILE (next to the recipe; with --pin the recipe then pins it)',
    })
  if (values.pin && pinned && resolve(out) !== resolve(pinned))
    throw new JevError('USAGE', `--pin writes the sha256 of the file the recipe pins (${pinned}), and --out names another`)
  return { out, recipe: path, was: judged?.sha256 ?? null }
}

export async function runJudge(parsed: NonNullable<ReturnType<typeof parseJudge>>, env: NodeJS.ProcessEnv, io: Io): Promise<JudgeRun> {
  const { values, positionals } = parsed
  const dir = (positionals[0] ?? 'out').replace(/(.)\/+$/, '$1')
  await requireFolder(dir)
  if (values.seed === undefined) throw new JevError('USAGE', 'no --seed: the sample is drawn by it (use one no earlier round used)')
  const seed = whole(values.seed, 'seed', 0)
  const counts = { test: whole(values.test, 'test', 0), val: whole(values.val, 'val', 0) }
  const to = await target(values, dir)
  const journal = values.journal ?? join(dirname(to.out), `${basename(to.out).replace(/\.json$/i, '')}.judge.journal.jsonl`)
  const model = modelReviewer(
    { url: values.url, model: values.model, key: values['api-key'] ?? env.JEV_REVIEW_API_KEY, journal },
    values,
    env,
    { url: '--url', model: '--model' },
  )
  if (model && values.sheets) throw new JevError('USAGE', 'give a model (--url, --model) or sheets (--sheets DIR) as the judge, not both')
  const reviewer =
    model ?? (values.sheets ? { kind: 'people' as const, sheets: values.sheets, judges: whole(values.judges, 'judges', 1) } : null)
  if (!reviewer) throw new JevError('USAGE', 'no judge: give a model (--url URL --model NAME) or sheets for people (--sheets DIR)')
  const outcome = await runJudging(
    { dir, seed, counts, reviewer, earlier: await readEarlier(values) },
    { log: io.err, progress: io.progress },
  )
  if (!outcome.judged) return { ...outcome, dir, file: null, sha256: null, recipe: to.recipe, pinned: false }
  const text = judgedText(outcome.judged)
  await writeAtomic(to.out, text)
  const sha256 = sha256Hex(text)
  if (values.pin && to.recipe && to.was !== sha256)
    await pinInRecipe(to.recipe, 'judged', { path: relative(dirname(resolve(to.recipe)), resolve(to.out)), sha256 }, to.was ?? undefined)
  return { ...outcome, dir, file: to.out, sha256, recipe: to.recipe, pinned: to.recipe !== null && (values.pin || to.was === sha256) }
}

export function judgeLines(r: JudgeRun): string[] {
  if (r.status === 'waiting') return [`sheets to mark: fill ${r.waiting.join(', ')}, then run the same command again`]
  const j = r.judged as JudgedRates
  return [
    r.table!.trimEnd(),
    `wrote ${r.file} (sha256 ${r.sha256}), judged on dataset ${j.datasetHash}`,
    r.pinned
      ? `${r.recipe} pins it; build again so the card states it (the records stay the same)`
      : `the recipe pins it by sha256: set judged.sha256 to ${r.sha256}${r.recipe ? ` in ${r.recipe}` : ''} (or run with --pin), then build again`,
  ]
}

/** judge as a library function: a seeded blind sample marked and scored into the judged rates (written once complete). */
export const judgeDataset = judgeCommand.library((call) => runJudge(call, call.env, call.io))

export async function judgeCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return judgeCommand.main(argv, env, io, async (parsed, io) => {
    const run = await judgeDataset(parsed.params, io)
    io.progress?.end()
    for (const l of judgeLines(run)) io.out(l)
    return { json: run }
  })
}
