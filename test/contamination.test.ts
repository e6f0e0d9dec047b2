import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildFromSources, buildToDir } from '../src/build-io.ts'
import { checkFolder } from '../src/check/check.ts'
import { ContaminationCheck, type TrainingRow } from '../src/contam/check.ts'
import { units } from '../src/contam/ngrams.ts'
import { type ProvenanceLine, parseProvenance } from '../src/emit/provenance.ts'
import type { DataRecord } from '../src/emit/schema.ts'
import { isJevError } from '../src/errors.ts'
import { createHubFetcher } from '../src/fetch/hub.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { dirPreparedCache, type PreparedCache } from '../src/prepared-cache/cache.ts'
import { parseRecipe } from '../src/recipe/load.ts'
import { Lock } from '../src/recipe/lock.ts'
import type { Recipe } from '../src/recipe/schema.ts'
import { ROOT } from './helpers/cli.ts'
import { startHubServer } from './helpers/hub-server.ts'
import { type Row, readRows, rewriteRows } from './helpers/parquet.ts'

const FIXTURE_HUB = join(ROOT, 'test/fixtures/hub')
const ARC = 'allenai/ai2_arc'
const ARC_REV = '210d026faf9955653af8916fad021475a3f00453'
const TRAIN = 'ARC-Challenge/train-00000-of-00001.parquet'

// ---- the check itself, on hand-made questions

const row = (id: string): TrainingRow => ({ repo: 'r', commit: 'c', split: 'train', path: 'train.parquet', id })
const q = (id: string, question: string, options: string[], answer = 0, context: string | null = null) => ({
  id,
  question,
  context,
  options,
  answer,
})

const LONG = 'Which process moves the water from the leaves of a tall plant into the air on a hot and dry summer afternoon?'

test('a training row equal to an item, and one sharing only a 13-gram, are both flagged; a 12-word overlap is not', () => {
  const items = [
    q('s-exact', LONG, ['transpiration', 'respiration']),
    q('s-gram', 'Scientists observed that the tallest trees in the old forest grow slowly because of the cold winters there.', ['a', 'b']),
    q('s-none', 'A ball rolls down a ramp and stops; which force slowed the ball down on the ramp surface?', ['friction', 'gravity']),
  ]
  const check = new ContaminationCheck(items, 'en', 13)
  check.scan(q('t-1', `  ${LONG.toUpperCase()} `, ['Respiration', 'TRANSPIRATION'], 1), row('t-1'))
  // 13 words of s-gram's question, inside other words
  check.scan(
    q('t-2', 'Note: the tallest trees in the old forest grow slowly because of the cold winters, it said.', ['x', 'y']),
    row('t-2'),
  )
  // 12 words of s-none's question
  check.scan(q('t-3', 'Then a ball rolls down a ramp and stops; which force slowed the car?', ['x', 'y']), row('t-3'))
  const m = check.matches()
  assert.equal(m.get('s-exact')?.by, 'question_answer')
  assert.equal(m.get('s-exact')?.training.id, 't-1')
  assert.equal(m.get('s-gram')?.by, 'ngram')
  // 14 words in common: of the two 13-grams, the first in code-unit order is reported
  assert.equal(m.get('s-gram')?.ngram, 'tallest trees in the old forest grow slowly because of the cold winters')
  assert.equal(m.has('s-none'), false)
  // the same question with another right answer is not a question-and-answer match (and, shorter than 13 words, no n-gram)
  const short = new ContaminationCheck([q('s-short', 'What is the boiling point of water?', ['100 °C', '0 °C'])], 'en', 13)
  short.scan(q('t-4', 'What is the boiling point of water?', ['100 °C', '0 °C'], 1), row('t-4'))
  assert.equal(short.matches().size, 0)
  short.scan(q('t-5', 'what is the boiling point of water ?', ['0 °C', '100 °C'], 1), row('t-5'))
  assert.equal(short.matches().get('s-short')?.by, 'question_answer')
})

test('the match reported does not depend on the order training rows arrive in', () => {
  const items = [q('s', LONG, ['a', 'b'])]
  const rows = ['t-b', 't-a', 't-c'].map((id) => q(id, `${LONG} (${id})`, ['c', 'd']))
  const forward = new ContaminationCheck(items, 'en', 13)
  for (const r of rows) forward.scan(r, row(r.id))
  const backward = new ContaminationCheck(items, 'en', 13)
  for (const r of [...rows].reverse()) backward.scan(r, row(r.id))
  assert.deepEqual(forward.matches().get('s'), backward.matches().get('s'))
  assert.equal(forward.matches().get('s')?.training.id, 't-a')
})

test('Japanese: a shared run of 15 characters flags, a shared 14-character template does not', () => {
  assert.deepEqual(units('２本以上の 道路が、交わる場所は？', 'ja').join(''), '2本以上の道路が交わる場所は')
  const items = [
    q('j-1', '広範囲に渡って樹木が密集している場所のことを何という？', ['森', '畑']),
    q('j-2', '長い竿に仕掛けをつけて魚を捉えることをしている人のことをなんと呼ぶ？', ['釣り人', '漁師']),
  ]
  const check = new ContaminationCheck(items, 'ja', 15)
  check.scan(q('t-1', 'どこにでも広範囲に渡って樹木が密集している場所とは？', ['林', '森']), row('t-1'))
  check.scan(q('t-2', '写真を撮ることを仕事にしている人のことをなんと呼ぶ？', ['写真家', '画家']), row('t-2'))
  assert.equal(check.matches().get('j-1')?.ngram, 'に渡って樹木が密集している場所')
  assert.equal(check.matches().has('j-2'), false)
})

test('BoolQ: a shared passage alone is not a flag; the same question and answer is', () => {
  const passage =
    'The zip code is a system of postal codes used by the United States Postal Service since 1963, and the name is short for zone improvement plan.'
  const items = [q('b-1', 'is zip code the same as postal code', ['yes', 'no'], 0, passage)]
  const check = new ContaminationCheck(items, 'en', 13)
  check.scan(q('t-1', 'was the zip code introduced before 1970', ['yes', 'no'], 0, passage), row('t-1'))
  assert.equal(check.matches().size, 0)
  check.scan(q('t-2', 'Is zip code the same as postal code?', ['yes', 'no'], 0, 'Another passage altogether.'), row('t-2'))
  assert.equal(check.matches().get('b-1')?.by, 'question_answer')
})

// ---- through a build, on the fixtures with a training file planted next to them

let tmp: string
let hub: string
let base: Recipe
let plain: Awaited<ReturnType<typeof buildFromSources>>

const recipeWith = (contamination: unknown): Recipe => {
  const { $schema: _, ...rest } = base
  return parseRecipe({ ...rest, contamination }, 'contamination-test.json')
}
const arcTrain = (extra: object = {}) => ({ source: 'arc_challenge', split: 'train', repo: ARC, revision: ARC_REV, path: TRAIN, ...extra })
/** BoolQ's train split, optional: the fixture hub has no such file */
const boolqTrain = () => ({
  source: 'boolq',
  split: 'train',
  repo: 'google/boolq',
  revision: base.sources[4]!.revision,
  path: 'data/train-00000-of-00001.parquet',
  optional: true,
})
const text = (b: Awaited<ReturnType<typeof buildFromSources>>, name: string) => String(b.files.get(name))
const provenance = (b: Awaited<ReturnType<typeof buildFromSources>>): ProvenanceLine[] => parseProvenance(text(b, 'provenance.jsonl')).lines
const records = (b: Awaited<ReturnType<typeof buildFromSources>>, split: 'test' | 'val'): DataRecord[] =>
  text(b, `${split}.jsonl`)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as DataRecord)

/** Writes the ARC-Challenge train file of the copied hub from rows shaped like its validation file's. */
async function writeTrain(rows: Row[]): Promise<void> {
  const file = join(hub, 'datasets', ARC, TRAIN)
  await cp(join(hub, 'datasets', ARC, 'ARC-Challenge/validation-00000-of-00001.parquet'), file)
  await rewriteRows(file, () => rows)
}

const filler = async (): Promise<Row[]> =>
  (await readRows(join(FIXTURE_HUB, 'datasets', ARC, 'ARC-Challenge/validation-00000-of-00001.parquet'))).map((r, i) => ({
    ...r,
    id: `Filler_${i}`,
    question: `Filler question number ${i} has nothing in common with anything else here?`,
  }))

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-contam-'))
  hub = join(tmp, 'hub')
  await cp(FIXTURE_HUB, hub, { recursive: true })
  base = parseRecipe(JSON.parse(await readFile(join(ROOT, 'test/fixtures/recipe.json'), 'utf8')))
  plain = await buildFromSources(base, createMirrorFetcher(hub))
})

after(async () => {
  await rm(tmp, { recursive: true, force: true })
})

test('without a contamination section the outputs have no trace of one', () => {
  assert.ok(!text(plain, 'provenance.jsonl').includes('contamination'))
  assert.ok(!text(plain, 'README.md').includes('## Contamination'))
  assert.equal(plain.manifest.contamination, undefined)
  assert.equal(plain.lock.contamination, undefined)
})

test('a training file with no overlap flags none, and the card and manifest say what was checked', async () => {
  await writeTrain(await filler())
  const recipe = recipeWith({ against: [arcTrain()] })
  const out = join(tmp, 'none')
  const built = await buildToDir(recipe, createMirrorFetcher(hub), out)
  const lines = provenance(built)
  assert.equal(lines.length, plain.manifest.outputs.find((o) => o.path === 'provenance.jsonl')?.rows)
  assert.ok(lines.every((l) => l.contamination?.flagged === false))
  // the data is what a build without the check makes
  assert.equal(text(built, 'test.jsonl'), text(plain, 'test.jsonl'))
  assert.equal(text(built, 'val.jsonl'), text(plain, 'val.jsonl'))
  const card = text(built, 'README.md')
  assert.match(card, /## Contamination/)
  assert.match(card, /Flagged records, 0 in all/)
  assert.equal(built.manifest.contamination?.files[0]?.checked, true)
  assert.equal(built.manifest.contamination?.files[0]?.rows, 20)
  assert.equal(Lock.parse(built.lock).contamination?.[0]?.path, TRAIN)
  assert.deepEqual(await checkFolder(out, recipe), [])
})

test('planted rows flag the records they copy, naming the training row; exclude: true replaces them and meets the quotas', async () => {
  const arcTest = (await readRows(join(FIXTURE_HUB, 'datasets', ARC, 'ARC-Challenge/test-00000-of-00001.parquet'))) as (Row & {
    id: string
    question: string
  })[]
  const chosen = records(plain, 'test').filter((r) => r.source === 'arc_challenge')
  const long = chosen.filter((r) => r.question.split(/\s+/).length >= 16)
  const [exact, gram] = [chosen[0]!, long.find((r) => r.id !== chosen[0]!.id)!]
  const upstream = arcTest.find((r) => `arc_challenge-${r.id}` === exact.id)!
  const words = gram.question.split(/\s+/).slice(1, 14).join(' ')
  await writeTrain([
    ...(await filler()),
    { ...upstream, id: 'Planted_exact' },
    { ...upstream, id: 'Planted_gram', question: `Something else entirely: ${words} and so on.` },
  ])
  const recipe = recipeWith({ against: [arcTrain()] })
  const built = await buildFromSources(recipe, createMirrorFetcher(hub))
  const marks = new Map(provenance(built).map((l) => [l.id, l.contamination]))
  assert.deepEqual(marks.get(exact.id), {
    flagged: true,
    by: 'question_answer',
    training: { repo: ARC, commit: ARC_REV, split: 'train', path: TRAIN, id: 'Planted_exact' },
  })
  const g = marks.get(gram.id)
  assert.ok(g?.flagged && g.by === 'ngram' && 'id' in g.training && g.training.id === 'Planted_gram', JSON.stringify(g))
  assert.equal([...marks.values()].filter((m) => m?.flagged).length, 2)
  assert.deepEqual(built.manifest.contamination?.flagged.arc_challenge, {
    test: 2,
    val: 0,
    testByQuestionAnswer: 1,
    valByQuestionAnswer: 0,
  })
  assert.match(text(built, 'README.md'), /\| arc_challenge \| 2 \| 1 \| 0 \| 0 \|/)

  const strict = recipeWith({ against: [arcTrain()], exclude: true })
  const out = join(tmp, 'exclude')
  const dropped = await buildToDir(strict, createMirrorFetcher(hub), out)
  const ids = new Set(records(dropped, 'test').map((r) => r.id))
  assert.ok(!ids.has(exact.id) && !ids.has(gram.id))
  assert.equal(records(dropped, 'test').filter((r) => r.source === 'arc_challenge').length, 12)
  assert.equal(dropped.drops.get('arc_challenge')?.get('contaminated'), 2)
  assert.ok(provenance(dropped).every((l) => l.contamination?.flagged === false))
  // counts and option-count quotas exactly as the recipe says
  assert.deepEqual(await checkFolder(out, strict), [])
  assert.deepEqual(dropped.manifest.counts.byChoices, plain.manifest.counts.byChoices)
})

test('with the cache of prepared sources: cold, warm and after the training file changes, the bytes and the lock of a build without', async () => {
  const cacheDir = join(tmp, 'cache')
  const hits: string[] = []
  const inner = dirPreparedCache(cacheDir)
  const cache: PreparedCache = {
    async get(kind, key, source) {
      const got = await inner.get(kind, key, source)
      if (got) hits.push(kind)
      return got
    },
    put: inner.put,
  }
  const recipe = recipeWith({ against: [arcTrain()] })
  const same = (a: typeof plain, b: typeof plain) => {
    assert.deepEqual([...b.files], [...a.files])
    assert.deepEqual(b.lock, a.lock)
    assert.deepEqual(b.warnings, a.warnings)
  }
  const arcTest = await readRows(join(FIXTURE_HUB, 'datasets', ARC, 'ARC-Challenge/test-00000-of-00001.parquet'))
  const planted = {
    ...arcTest.find((r) => `arc_challenge-${r.id}` === records(plain, 'test').find((x) => x.source === 'arc_challenge')!.id)!,
    id: 'Planted_cached',
  }
  await writeTrain([...(await filler()), planted])
  const flagged = await buildFromSources(recipe, createMirrorFetcher(hub))
  assert.equal(flagged.manifest.contamination?.flagged.arc_challenge?.test, 1)
  same(flagged, await buildFromSources(recipe, createMirrorFetcher(hub), { preparedCache: cache }))
  assert.ok(!hits.includes('contamination'))
  same(flagged, await buildFromSources(recipe, createMirrorFetcher(hub), { preparedCache: cache }))
  assert.ok(hits.includes('contamination'), 'a warm build reads the check back')
  // the same candidates against other training rows: a miss, and what an uncached build finds
  hits.length = 0
  await writeTrain(await filler())
  const clean = await buildFromSources(recipe, createMirrorFetcher(hub))
  assert.equal(clean.manifest.contamination?.flagged.arc_challenge?.test, 0)
  same(clean, await buildFromSources(recipe, createMirrorFetcher(hub), { preparedCache: cache }))
  assert.ok(!hits.includes('contamination') && hits.includes('prepared'))
})

test('a required training file the build cannot get is a typed error naming it', async () => {
  const recipe = recipeWith({ against: [arcTrain({ path: 'ARC-Challenge/nowhere-00000-of-00001.parquet' })] })
  await assert.rejects(buildFromSources(recipe, createMirrorFetcher(hub)), (e) => {
    assert.ok(isJevError(e))
    assert.equal(e.code, 'NOT_FOUND')
    assert.match(e.message, /allenai\/ai2_arc\/ARC-Challenge\/nowhere-00000-of-00001\.parquet \(arc_challenge train\)/)
    assert.equal(e.context.file, 'ARC-Challenge/nowhere-00000-of-00001.parquet')
    return true
  })
})

test('an optional training file the build cannot get is reported as not checked', async () => {
  await writeTrain(await filler())
  const recipe = recipeWith({
    against: [arcTrain(), boolqTrain()],
  })
  const built = await buildFromSources(recipe, createMirrorFetcher(hub))
  const card = text(built, 'README.md')
  assert.match(
    card,
    /\| boolq \| train \| `google\/boolq\/data\/train-00000-of-00001\.parquet` at `[0-9a-f]{40}` \| – \| not checked: not available from the mirror \|/,
  )
  assert.match(card, /Not checked: boolq train \(not available from the mirror\)/)
  assert.deepEqual(
    built.manifest.contamination?.files.map((f) => [f.source, f.checked]),
    [
      ['arc_challenge', true],
      ['boolq', false],
    ],
  )
  assert.equal(built.lock.contamination?.length, 1)
})

test('the lock records an optional training file the build could not get, and a build against it leaves it unchecked where it is there', async () => {
  await writeTrain(await filler())
  const optional = boolqTrain()
  const recipe = recipeWith({ against: [arcTrain(), optional] })
  const without = await buildFromSources(recipe, createMirrorFetcher(hub))
  assert.deepEqual(without.lock.notChecked, [
    {
      source: 'boolq',
      split: 'train',
      repo: 'google/boolq',
      revision: optional.revision,
      path: optional.path,
      reason: 'not available from the mirror',
    },
  ])
  // the file appears upstream (as on the Hub): a build against the lock still leaves it, a fresh one (--update-lock) reads it
  const there = join(hub, 'datasets/google/boolq', optional.path)
  await cp(join(hub, 'datasets/google/boolq/data/validation-00000-of-00001.parquet'), there)
  try {
    const frozen = await buildFromSources(recipe, createMirrorFetcher(hub), { lock: without.lock })
    for (const name of without.files.keys()) assert.equal(text(frozen, name), text(without, name), `${name}: the locked build's`)
    assert.deepEqual(frozen.lock, without.lock)
    const fresh = await buildFromSources(recipe, createMirrorFetcher(hub))
    assert.deepEqual(
      fresh.manifest.contamination?.files.map((f) => [f.source, f.checked]),
      [
        ['arc_challenge', true],
        ['boolq', true],
      ],
    )
    assert.equal(fresh.lock.notChecked, undefined)
  } finally {
    await rm(there)
  }
})

test('a frozen build refuses training rows that differ from the lock', async () => {
  await writeTrain(await filler())
  const recipe = recipeWith({ against: [arcTrain()] })
  const first = await buildFromSources(recipe, createMirrorFetcher(hub))
  await writeTrain((await filler()).slice(1))
  await assert.rejects(buildFromSources(recipe, createMirrorFetcher(hub), { lock: first.lock }), (e) => {
    assert.ok(isJevError(e))
    assert.equal(e.code, 'LOCK')
    assert.match(e.message, /ARC-Challenge\/train-00000-of-00001\.parquet has other rows than the lock/)
    return true
  })
})

test('check-dataset finds a contamination mark that was edited', async () => {
  await writeTrain(await filler())
  const recipe = recipeWith({ against: [arcTrain()] })
  const out = join(tmp, 'edited')
  await buildToDir(recipe, createMirrorFetcher(hub), out)
  const file = join(out, 'provenance.jsonl')
  const lines = (await readFile(file, 'utf8')).split('\n')
  const mark = { flagged: true, by: 'question_answer', training: { repo: ARC, commit: ARC_REV, split: 'train', path: TRAIN, id: 'X' } }
  lines[0] = JSON.stringify({ ...JSON.parse(lines[0]!), contamination: mark })
  await writeFile(file, lines.join('\n'))
  const problems = await checkFolder(out, recipe)
  assert.ok(problems.includes('manifest.json: contamination.flagged does not match provenance.jsonl'), problems.join('\n'))
  assert.ok(problems.some((p) => p.startsWith('README.md: the Contamination section')))
})

test('the recipe names a training file of a source it has, once', () => {
  assert.throws(
    () => recipeWith({ against: [arcTrain({ source: 'arc_hard' }), arcTrain(), arcTrain()] }),
    (e) => {
      assert.ok(isJevError(e) && e.code === 'RECIPE')
      assert.match(e.message, /contamination\.against\.0\.source: no source "arc_hard"/)
      assert.match(e.message, /contamination\.against\.2\.path: .* is listed twice for arc_challenge/)
      return true
    },
  )
})

test('from the Hub, an optional file it does not have is not checked, and one it has is', async () => {
  await writeTrain(await filler())
  const server = await startHubServer({ root: hub })
  try {
    const recipe = recipeWith({
      against: [
        arcTrain(),
        {
          source: 'mmlu',
          split: 'auxiliary_train',
          repo: 'cais/mmlu',
          revision: base.sources[1]!.revision,
          path: 'all/auxiliary_train-00000-of-00001.parquet',
          optional: true,
        },
      ],
    })
    const built = await buildFromSources(recipe, createHubFetcher({ endpoint: server.url, cacheDir: join(tmp, 'hub-cache') }))
    assert.deepEqual(
      built.manifest.contamination?.files.map((f) => [f.split, f.checked, f.reason ?? null]),
      [
        ['train', true, null],
        ['auxiliary_train', false, 'not available from the Hub'],
      ],
    )
  } finally {
    await server.close()
  }
})
