import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { checkFolder, checkRecords } from '../src/check/check.ts'
import type { DataRecord } from '../src/emit/schema.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import type { Split } from '../src/recipe/schema.ts'
import { buildFixtureOut } from './helpers/publish.ts'

const recipe = await loadRecipe('test/fixtures/recipe.json')
let tmp: string
let good: string
let records: Record<Split, DataRecord[]>

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-check-'))
  good = join(tmp, 'good')
  await buildFixtureOut(good)
  const read = async (split: Split) =>
    (await readFile(join(good, `${split}.jsonl`), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as DataRecord)
  records = { test: await read('test'), val: await read('val') }
})
after(() => rm(tmp, { recursive: true, force: true }))

const edited = (edit: (r: Record<Split, DataRecord[]>) => void) => {
  const copy = structuredClone(records)
  edit(copy)
  return checkRecords(copy, recipe)
}

test('the fixture build has no problem', async () => {
  assert.deepEqual(checkRecords(records, recipe), [])
  assert.deepEqual(await checkFolder(good, recipe), [])
})

test('the same question text in both splits, or the same id twice, is a problem', () => {
  const t = records.test.find((r) => r.source === 'mmlu')!
  const textTwice = edited((r) => {
    const v = r.val.findIndex((x) => x.source === 'mmlu')
    r.val[v] = { ...r.val[v]!, question: ` ${t.question.toUpperCase()} ` }
  })
  assert.ok(
    textTwice.some((p) => p.includes(`same question text as test ${t.id}`)),
    textTwice.join('\n'),
  )
  const idTwice = edited((r) => {
    const v = r.val.findIndex((x) => x.source === 'mmlu')
    r.val[v] = { ...r.val[v]!, id: t.id }
  })
  assert.ok(
    idTwice.some((p) => p === `val ${t.id}: id also in test`),
    idTwice.join('\n'),
  )
})

test('BoolQ choices in another order are a problem', () => {
  const problems = edited((r) => {
    const b = r.test.find((x) => x.source === 'boolq')!
    b.choices = ['no', 'yes']
  })
  assert.ok(
    problems.some((p) => p.endsWith('BoolQ choices must be ["yes","no"] in that order')),
    problems.join('\n'),
  )
})

test('a BOM, or record keys in another order, are problems of the file', async () => {
  const dir = join(tmp, 'bytes')
  await cp(good, dir, { recursive: true })
  const text = await readFile(join(dir, 'val.jsonl'), 'utf8')
  await writeFile(join(dir, 'val.jsonl'), `\ufeff${text}`)
  const lines = (await readFile(join(dir, 'test.jsonl'), 'utf8')).split('\n')
  const { id, source, ...rest } = JSON.parse(lines[0]!) as DataRecord
  lines[0] = JSON.stringify({ source, id, ...rest })
  await writeFile(join(dir, 'test.jsonl'), lines.join('\n'))
  const problems = await checkFolder(dir, recipe)
  assert.ok(problems.includes('val.jsonl: starts with a BOM'), problems.join('\n'))
  assert.ok(
    problems.some((p) => p.startsWith('test.jsonl line 1: keys source,id,')),
    problems.join('\n'),
  )
})
