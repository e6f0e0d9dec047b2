import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { buildFromSources, buildToDir } from '../src/build-io.ts'
import { diffRecords } from '../src/check/compare.ts'
import { compareWithRebuild, formatVerify, verifyFiles } from '../src/check/verify.ts'
import { isJevError } from '../src/errors.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { type Lock, readLock } from '../src/recipe/lock.ts'
import type { Recipe } from '../src/recipe/schema.ts'
import { rewriteRows } from './helpers/parquet.ts'

const HUB = 'test/fixtures/hub'
let tmp: string
let recipe: Recipe
let lock: Lock
let reference: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-verify-'))
  recipe = await loadRecipe('test/fixtures/recipe.json')
  lock = (await readLock('test/fixtures/recipe.lock.json'))!
  reference = join(tmp, 'reference')
  await buildToDir(recipe, createMirrorFetcher(HUB), reference, { lock })
})
after(() => rm(tmp, { recursive: true, force: true }))

/** A fresh copy of the reference build, edited by `edit`, verified against a rebuild. */
async function verifyEdited(name: string, edit: (dir: string) => Promise<void>, r = recipe) {
  const dir = join(tmp, name)
  await cp(reference, dir, { recursive: true })
  await edit(dir)
  return compareWithRebuild(dir, await buildFromSources(r, createMirrorFetcher(HUB), { lock }))
}

async function editFile(dir: string, file: string, change: (text: string) => string): Promise<void> {
  await writeFile(join(dir, file), change(await readFile(join(dir, file), 'utf8')))
}

describe('compareWithRebuild', () => {
  test('an untouched build is identical to its rebuild', async () => {
    const r = await verifyEdited('same', async () => {})
    assert.equal(r.identical, true)
    assert.deepEqual(formatVerify('out', r).length, 1)
  })

  test('a folder caught mid-swap is read again once the swap is done, not reported as edited', async () => {
    const build = await buildFromSources(recipe, createMirrorFetcher(HUB), { lock })
    const dir = join(tmp, 'mid-swap')
    await cp(reference, dir, { recursive: true })
    // the old build's test.jsonl beside the new manifest, under a live swap lock, as a swap leaves it for a moment
    const whole = await readFile(join(dir, 'test.jsonl'))
    await writeFile(join(dir, 'test.jsonl'), whole.subarray(0, whole.indexOf(10) + 1))
    const lockFile = join(tmp, '.mid-swap.lock')
    await writeFile(lockFile, `${process.pid}@${hostname()} 00\n`)
    const done = setTimeout(async () => {
      await writeFile(join(dir, 'test.jsonl'), whole)
      await rm(lockFile)
    }, 150)
    try {
      assert.equal((await compareWithRebuild(dir, build)).identical, true)
    } finally {
      clearTimeout(done)
    }
  })

  test('one flipped byte: out-edited, and the changed record is named', async () => {
    let id = ''
    const r = await verifyEdited('flip', (dir) =>
      editFile(dir, 'test.jsonl', (t) => {
        const first = JSON.parse(t.slice(0, t.indexOf('\n')))
        id = first.id
        const at = t.indexOf('"question":"') + 12
        return t.slice(0, at) + (t[at] === 'X' ? 'Y' : 'X') + t.slice(at + 1)
      }),
    )
    assert.equal(r.identical, false)
    assert.equal(r.cause, 'out-edited')
    const test = r.files.find((f) => f.file === 'test.jsonl')!
    assert.deepEqual(test.records?.changed, [{ id, fields: ['question'] }])
    assert.match(formatVerify('out', r).join('\n'), /cause: out-edited/)
  })

  test('a deleted record: out-edited, the record is missing from out/', async () => {
    let id = ''
    const r = await verifyEdited('delete', (dir) =>
      editFile(dir, 'val.jsonl', (t) => {
        const lines = t.split('\n')
        id = JSON.parse(lines[2]!).id
        lines.splice(2, 1)
        return lines.join('\n')
      }),
    )
    assert.equal(r.cause, 'out-edited')
    const val = r.files.find((f) => f.file === 'val.jsonl')!
    assert.deepEqual(val.records?.added, [id])
    assert.deepEqual(val.records?.removed, [])
    // the report names the folder it was given, not out/
    const dir = join(tmp, 'delete')
    const text = formatVerify(dir, r).join('\n')
    assert.match(
      text,
      new RegExp(`val\\.jsonl: 0 changed, 1 added \\(in the rebuild, not in ${dir}/\\), 0 removed \\(in ${dir}/, not in the rebuild\\)`),
    )
    assert.ok(text.includes(`${dir}/val.jsonl no longer matches the sha256 in ${dir}/manifest.json`), text)
    assert.doesNotMatch(text, /(^|\s)out\//)
  })

  test('reordered lines: out-edited, recognised as the same records', async () => {
    const r = await verifyEdited('reorder', (dir) =>
      editFile(dir, 'test.jsonl', (t) => {
        const lines = t.trimEnd().split('\n')
        return `${[...lines.slice(1), lines[0]].join('\n')}\n`
      }),
    )
    assert.equal(r.cause, 'out-edited')
    assert.equal(r.files.find((f) => f.file === 'test.jsonl')!.records?.reordered, true)
    assert.match(formatVerify('out', r).join('\n'), /same records in another order/)
  })

  test('an edited card: out-edited, README.md named', async () => {
    const r = await verifyEdited('card', (dir) => editFile(dir, 'README.md', (t) => t.replace('## Caveats', '## Caveats (edited)')))
    assert.equal(r.cause, 'out-edited')
    assert.deepEqual(
      r.files.filter((f) => f.status !== 'identical').map((f) => f.file),
      ['README.md'],
    )
    assert.ok(r.reasons.some((x) => x.includes('README.md')))
  })

  test('a changed recipe: recipe-changed', async () => {
    const changed = structuredClone(recipe)
    changed.seed = recipe.seed + 1
    const r = await verifyEdited('recipe', async () => {}, changed)
    assert.equal(r.cause, 'recipe-changed')
  })

  test('the same inputs with another builder version: builder-changed', async () => {
    const r = await verifyEdited('builder', (dir) =>
      editFile(dir, 'manifest.json', (t) => t.replace(/"version": "(\d+)\.(\d+)\.(\d+)"\n {2}\}/, '"version": "0.0.0-old"\n  }')),
    )
    assert.equal(r.cause, 'builder-changed')
    assert.match(r.reasons.join('\n'), /0\.0\.0-old/)
  })

  test('changed upstream rows: the frozen build refuses them; after --update-lock, verify says sources-changed', async () => {
    const hub = join(tmp, 'changed-hub')
    await cp(HUB, hub, { recursive: true })
    const file = join(hub, 'datasets/allenai/ai2_arc/ARC-Easy/test-00000-of-00001.parquet')
    await rewriteRows(file, (rows) => rows.slice(1))
    await assert.rejects(buildFromSources(recipe, createMirrorFetcher(hub), { lock }), (e) => {
      assert.ok(isJevError(e))
      assert.equal(e.code, 'LOCK')
      assert.match(e.message, /arc_easy: ARC-Easy\/test-00000-of-00001\.parquet/)
      assert.match(e.message, /expected 40 rows hashing [0-9a-f]{64}, received 39 rows hashing [0-9a-f]{64}/)
      return true
    })
    const rebuilt = await buildFromSources(recipe, createMirrorFetcher(hub), { lock: null })
    const r = await compareWithRebuild(reference, rebuilt)
    assert.equal(r.cause, 'sources-changed')
    assert.match(r.reasons.join('\n'), /source arc_easy changed: ARC-Easy\/test-00000-of-00001\.parquet/)
  })

  test('an optional training file that one place serves and another lacks: sources-changed, naming it and both states', async () => {
    const training = (reason: string) => ({
      exclude: false,
      ngram: { en: 13 },
      files: [
        { source: 'mmlu', split: 'dev', repo: 'cais/mmlu', revision: 'r', path: 'all/dev.parquet', checked: true, commit: 'c', rows: 5 },
        { source: 'boolq', split: 'train', repo: 'google/boolq', revision: 'r', path: 'data/train.parquet', checked: false, reason },
      ],
      flagged: {},
    })
    const dir = join(tmp, 'training')
    await cp(reference, dir, { recursive: true })
    await editFile(
      dir,
      'manifest.json',
      (t) => `${JSON.stringify({ ...JSON.parse(t), contamination: training('not available from the mirror') }, null, 2)}\n`,
    )
    const rebuilt = await buildFromSources(recipe, createMirrorFetcher(HUB), { lock })
    rebuilt.manifest.contamination = training('not available from the Hub')
    const r = await compareWithRebuild(dir, rebuilt)
    assert.equal(r.cause, 'sources-changed')
    assert.deepEqual(r.reasons, [
      'training file boolq train (google/boolq/data/train.parquet): not available from the mirror → not available from the Hub',
    ])
  })

  test('an upstream commit that moved under the same rows: sources-changed, naming the source', async () => {
    const r = await verifyEdited('commit-moved', (dir) =>
      editFile(dir, 'manifest.json', (t) => {
        const m = JSON.parse(t) as { sources: { name: string; commit: string }[] }
        m.sources.find((x) => x.name === 'mmlu')!.commit = '0'.repeat(40)
        return `${JSON.stringify(m, null, 2)}\n`
      }),
    )
    assert.equal(r.cause, 'sources-changed')
    assert.deepEqual(r.reasons, ['source mmlu changed'])
  })

  test('bytes that differ over the same rows only warn', async () => {
    const relocked = structuredClone(lock)
    relocked.sources[0]!.files[0]!.sha256 = '0'.repeat(64)
    const built = await buildFromSources(recipe, createMirrorFetcher(HUB), { lock: relocked })
    assert.equal(built.warnings.length, 1)
    assert.match(built.warnings[0]!, /other bytes than the lock .* same \d+ rows/)
    assert.equal((await compareWithRebuild(reference, built)).identical, true)
  })
})

describe('verifyFiles', () => {
  test('judges the bytes it is given, not what the folder holds by then', async () => {
    const rebuilt = await buildFromSources(recipe, createMirrorFetcher(HUB), { lock })
    const read = new Map<string, Buffer | null>()
    for (const name of rebuilt.files.keys()) read.set(name, await readFile(join(reference, name)))
    assert.equal(verifyFiles(read, rebuilt).identical, true)
    // bytes read for upload, edited in memory, while the folder stays good
    const val = read.get('val.jsonl')!
    const edited = new Map(read).set('val.jsonl', Buffer.concat([val.subarray(0, -2), Buffer.from('X\n')]))
    const r = verifyFiles(edited, rebuilt)
    assert.equal(r.identical, false)
    assert.deepEqual(
      r.files.filter((f) => f.status !== 'identical').map((f) => f.file),
      ['val.jsonl'],
    )
    assert.equal(r.cause, 'out-edited')
    assert.equal((await compareWithRebuild(reference, rebuilt)).identical, true)
    assert.equal(verifyFiles(new Map(read).set('README.md', null), rebuilt).files.find((f) => f.file === 'README.md')?.status, 'missing')
  })
})

describe('diffRecords', () => {
  test('reports added, removed and changed records by id', () => {
    const line = (id: string, q: string) => JSON.stringify({ id, question: q })
    const d = diffRecords(`${[line('a', 'x'), line('b', 'y')].join('\n')}\n`, `${[line('b', 'z'), line('c', 'w')].join('\n')}\n`)
    assert.deepEqual(d, { added: ['c'], removed: ['a'], changed: [{ id: 'b', fields: ['question'] }], repeated: [], reordered: false })
  })

  test('a line repeated in out/ is a repeat, not a reordering', () => {
    const line = (id: string, q: string) => JSON.stringify({ id, question: q })
    const d = diffRecords(
      `${[line('a', 'x'), line('b', 'y'), line('a', 'x')].join('\n')}\n`,
      `${[line('a', 'x'), line('b', 'y')].join('\n')}\n`,
    )
    assert.deepEqual(d, { added: [], removed: [], changed: [], repeated: ['a'], reordered: false })
    const moved = diffRecords(`${[line('b', 'y'), line('a', 'x')].join('\n')}\n`, `${[line('a', 'x'), line('b', 'y')].join('\n')}\n`)
    assert.equal(moved.reordered, true)
  })
})
