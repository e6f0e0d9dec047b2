/**
 * check-dataset checks a folder against the recipe its manifest names, and refuses another; --upstream proves the
 * provenance whatever the other checks found, and says so in --json only when it did.
 */
import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildToDir } from '../../src/build-io.ts'
import { checkDatasetCli } from '../../src/cli/check-dataset.ts'
import { runCli } from '../../src/cli/run.ts'
import { recordLines } from '../../src/emit/manifest.ts'
import { createMirrorFetcher } from '../../src/fetch/mirror.ts'
import { loadRecipe } from '../../src/recipe/load.ts'
import { DEFAULT_RECIPE } from '../../src/version.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE } from '../helpers/cli.ts'

let tmp: string
let good: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-check-recipe-'))
  good = join(tmp, 'good')
  await buildToDir(await loadRecipe(FIXTURE_RECIPE), createMirrorFetcher(FIXTURE_HUB), good)
})
after(() => rm(tmp, { recursive: true, force: true }))

async function check(argv: string[]) {
  const c = collectIo()
  const status = await runCli(() => checkDatasetCli(argv, {}, c.io), c.io, false)
  return { status, ...c }
}

test('a recipe that is not the one the manifest names is refused, as is a folder whose recipe is not at hand', async () => {
  const other = await check([good, '--recipe', DEFAULT_RECIPE])
  assert.equal(other.status, 2, other.text())
  assert.match(
    other.err[0]!,
    /^error\[RECIPE\]: \S+good\/ was built from recipe jev-bench-fixture 1\.1\.0 \(hash [0-9a-f]{12}…\), not from \S+jev-bench\.json, which is jev-bench 1\.3\.0 \(hash [0-9a-f]{12}…\)$/,
  )
  const none = await check([good])
  assert.equal(none.status, 2, none.text())
  assert.match(none.err[0]!, /was built from recipe jev-bench-fixture 1\.1\.0 \(hash [0-9a-f]{12}…\), which is not at hand$/)
  assert.deepEqual(none.err.at(-1), 'hint: name the recipe it was built from with --recipe FILE')
})

test('--upstream proves the provenance even where other checks fail, each problem naming its record', async () => {
  const dir = join(tmp, 'edited')
  await cp(good, dir, { recursive: true })
  // a borrowed choice edited: a local problem (the manifest's sha256) and an upstream one (not the lender's option)
  const prov = recordLines(await readFile(join(dir, 'provenance.jsonl'), 'utf8')).map(
    (l) => JSON.parse(l) as { id: string; split: string; choices: { from: string; lender?: string; index: number }[] },
  )
  const grown = prov.find((p) => p.split === 'test' && p.choices.some((c) => c.from === 'borrowed'))!
  const k = grown.choices.findIndex((c) => c.from === 'borrowed')
  const lines = recordLines(await readFile(join(dir, 'test.jsonl'), 'utf8')).map((l) => {
    const r = JSON.parse(l) as { id: string; choices: string[] }
    if (r.id === grown.id) r.choices[k] = `${r.choices[k]} (edited)`
    return JSON.stringify(r)
  })
  await writeFile(join(dir, 'test.jsonl'), `${lines.join('\n')}\n`)
  const r = await check([dir, '--recipe', FIXTURE_RECIPE, '--upstream', '--mirror', FIXTURE_HUB, '--json'])
  assert.equal(r.status, 8, r.text())
  const doc = JSON.parse(r.out[0]!) as { upstream: boolean; problems: { id: string | null; message: string }[] }
  assert.equal(doc.upstream, true, 'the proof was made')
  assert.ok(doc.problems.some((p) => p.message === "test.jsonl: does not match the manifest's sha256/bytes"))
  const upstream = doc.problems.find(
    (p) => p.message === `test ${grown.id}: choice ${k} is not option ${grown.choices[k]!.index} of ${grown.choices[k]!.lender}`,
  )
  assert.equal(upstream?.id, grown.id, JSON.stringify(doc.problems))

  // no provenance to prove: said as a problem, and --json says the proof was not made
  await rm(join(dir, 'provenance.jsonl'))
  const gone = await check([dir, '--recipe', FIXTURE_RECIPE, '--upstream', '--mirror', FIXTURE_HUB, '--json'])
  const none = JSON.parse(gone.out[0]!) as { upstream: boolean; problems: { message: string }[] }
  assert.equal(none.upstream, false)
  assert.ok(
    none.problems.some((p) => p.message === 'provenance.jsonl: missing or malformed, so it was not proved against the upstream rows'),
  )
})

test('--upstream names a provenance line whose record is gone instead of passing over it', async () => {
  const dir = join(tmp, 'short')
  await cp(good, dir, { recursive: true })
  const lines = recordLines(await readFile(join(dir, 'val.jsonl'), 'utf8'))
  const dropped = (JSON.parse(lines.pop()!) as { id: string }).id
  await writeFile(join(dir, 'val.jsonl'), `${lines.join('\n')}\n`)
  const r = await check([dir, '--recipe', FIXTURE_RECIPE, '--upstream', '--mirror', FIXTURE_HUB])
  assert.equal(r.status, 8)
  assert.ok(r.err.includes(`val ${dropped}: provenance.jsonl names a record val.jsonl does not have, so it was not proved`), r.text())
})
