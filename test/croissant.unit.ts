import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildFromSources } from '../src/build-io.ts'
import { checkFolder } from '../src/check/check.ts'
import { checkCroissant } from '../src/check/croissant.ts'
import { CROISSANT_CONTEXT, RECORD_FIELDS } from '../src/emit/croissant.ts'
import { Manifest } from '../src/emit/manifest.ts'
import { outputText } from '../src/emit/outputs.ts'
import { DataRecord } from '../src/emit/schema.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe, parseRecipe } from '../src/recipe/load.ts'
import { readLock } from '../src/recipe/lock.ts'
import { sha256Hex } from '../src/util/hash.ts'
import { FIXTURE_HUB, FIXTURE_RECIPE } from './helpers/cli.ts'
import { buildFixtureOut, FIXTURE_LOCK } from './helpers/publish.ts'

const recipe = await loadRecipe(FIXTURE_RECIPE)
let tmp: string
let good: string
let text: string
const files = new Map<string, Buffer>()
const fileOf = (path: string) => files.get(path) ?? null

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-croissant-'))
  good = join(tmp, 'good')
  await buildFixtureOut(good)
  text = await readFile(join(good, 'croissant.json'), 'utf8')
  for (const f of ['test.jsonl', 'val.jsonl', 'provenance.jsonl', 'README.md']) files.set(f, await readFile(join(good, f)))
})
after(() => rm(tmp, { recursive: true, force: true }))

/** The built croissant.json with one edit, checked. */
const mutated = (edit: (doc: any) => void) => {
  const doc = JSON.parse(text)
  edit(doc)
  return checkCroissant(JSON.stringify(doc), fileOf)
}

test('a built croissant.json passes check-dataset and describes the data files', async () => {
  assert.deepEqual(checkCroissant(text, fileOf), [])
  assert.deepEqual(await checkFolder(good, recipe), [])
  const doc = JSON.parse(text)
  assert.deepEqual(doc['@context'], CROISSANT_CONTEXT)
  assert.equal(doc.conformsTo, 'http://mlcommons.org/croissant/1.0')
  assert.equal(doc.version, recipe.version)
  assert.equal(doc.datePublished, recipe.publication!.datePublished)
  assert.deepEqual(
    doc.distribution.map((d: any) => [d.contentUrl, d.encodingFormat, d.sha256]),
    ['test.jsonl', 'val.jsonl'].map((f) => [f, 'application/jsonlines', sha256Hex(files.get(f)!)]),
  )
  assert.deepEqual(
    doc.recordSet.map((r: any) => [r['@id'], r.key['@id']]),
    [
      ['test', 'test/id'],
      ['val', 'val/id'],
    ],
  )
  const choices = doc.recordSet[0].field.find((f: any) => f.name === 'choices')
  assert.deepEqual([choices.dataType, choices.repeated, choices.source.extract.column], ['sc:Text', true, 'choices'])
  assert.equal(doc.recordSet[0].field.find((f: any) => f.name === 'answer_idx').dataType, 'sc:Integer')
  // the manifest lists it like every other output
  const m = Manifest.parse(JSON.parse(await readFile(join(good, 'manifest.json'), 'utf8')))
  assert.equal(m.outputs.find((o) => o.path === 'croissant.json')?.sha256, sha256Hex(Buffer.from(text)))
})

test('the record fields are the record schema, in its key order', () => {
  assert.deepEqual(
    RECORD_FIELDS.map((f) => f.name),
    Object.keys(DataRecord.shape),
  )
})

test('a wrong sha256 is caught, naming the JSON path', () => {
  const problems = mutated((d) => {
    d.distribution[1].sha256 = '0'.repeat(64)
  })
  assert.equal(problems.length, 1, problems.join('\n'))
  assert.match(problems[0]!, /^croissant\.json: \$\.distribution\[1\]\.sha256: "0{64}" is not the sha256 of val\.jsonl/)
})

test('a missing checksum, encodingFormat or @id is caught', () => {
  assert.match(
    mutated((d) => {
      delete d.distribution[0].sha256
    }).join('\n'),
    /\$\.distribution\[0\]: needs "sha256" or "md5"/,
  )
  assert.match(
    mutated((d) => {
      delete d.distribution[0].encodingFormat
    }).join('\n'),
    /\$\.distribution\[0\]\.encodingFormat: required, missing/,
  )
  assert.match(
    mutated((d) => {
      delete d.recordSet[1].field[2]['@id']
    }).join('\n'),
    /\$\.recordSet\[1\]\.field\[2\]\["@id"\]: required, missing/,
  )
})

for (const property of ['name', 'description', 'license', 'url', 'creator', 'datePublished', 'citeAs'])
  test(`a missing ${property} is caught`, () => {
    const problems = mutated((d) => {
      delete d[property]
    })
    assert.deepEqual(problems, [`croissant.json: $.${property}: required, missing`])
  })

test('a wrong conformsTo, @type or @context term is caught', () => {
  assert.deepEqual(
    mutated((d) => {
      d.conformsTo = 'http://mlcommons.org/croissant/0.8'
    }),
    ['croissant.json: $.conformsTo: must be "http://mlcommons.org/croissant/1.0", is "http://mlcommons.org/croissant/0.8"'],
  )
  assert.match(
    mutated((d) => {
      delete d.conformsTo
    }).join('\n'),
    /\$\.conformsTo: must be/,
  )
  assert.match(
    mutated((d) => {
      d['@type'] = 'sc:CreativeWork'
    }).join('\n'),
    /\$\["@type"\]: must be "sc:Dataset"/,
  )
  assert.match(
    mutated((d) => {
      d['@context'].repeated = 'sc:repeated'
    }).join('\n'),
    /\$\["@context"\]\.repeated: must be "cr:repeated"/,
  )
  assert.match(
    mutated((d) => {
      d.datePublished = '1 Dec 2026'
    }).join('\n'),
    /\$\.datePublished: must be an ISO 8601 date/,
  )
})

test('a field source naming a column that does not exist, or no FileObject, is caught', () => {
  const problems = mutated((d) => {
    d.recordSet[0].field[2].source.extract.column = 'questions'
  })
  assert.equal(problems.length, 1, problems.join('\n'))
  assert.match(
    problems[0]!,
    /^croissant\.json: \$\.recordSet\[0\]\.field\[2\]\.source\.extract\.column: "questions" is not a column of test\.jsonl/,
  )
  assert.match(
    mutated((d) => {
      d.recordSet[0].field[0].source.fileObject['@id'] = 'train.jsonl'
    }).join('\n'),
    /\$\.recordSet\[0\]\.field\[0\]\.source\.fileObject\["@id"\]: "train\.jsonl" is not a FileObject of the distribution/,
  )
})

test('a field typed other than its values, a key that is no field, a dangling reference are caught', () => {
  assert.match(
    mutated((d) => {
      delete d.recordSet[0].field[4].repeated
    }).join('\n'),
    /\$\.recordSet\[0\]\.field\[4\]: test\.jsonl line 1: "choices" is not one value of sc:Text/,
  )
  assert.match(
    mutated((d) => {
      d.recordSet[1].field[5].dataType = 'sc:Text'
    }).join('\n'),
    /\$\.recordSet\[1\]\.field\[5\]: val\.jsonl line 1: "answer_idx" is not one value of sc:Text/,
  )
  assert.match(
    mutated((d) => {
      d.recordSet[0].field[0].dataType = 'sc:Thing'
    }).join('\n'),
    /\$\.recordSet\[0\]\.field\[0\]\.dataType: must name a data type/,
  )
  assert.match(
    mutated((d) => {
      d.recordSet[1].key = { '@id': 'test/id' }
    }).join('\n'),
    /\$\.recordSet\[1\]\.key: \{"@id":"test\/id"\} is not a field of this RecordSet/,
  )
  assert.match(
    mutated((d) => {
      d.recordSet[1].field[0].references = { '@id': 'other/id' }
    }).join('\n'),
    /\$\.recordSet\[1\]\.field\[0\]\.references: "other\/id" is not a field of any RecordSet/,
  )
})

test('a FileObject whose contentUrl is not a data file is caught', () => {
  for (const url of ['provenance.jsonl', 'README.md', '../test.jsonl', 'https://example.com/test.jsonl']) {
    const problems = mutated((d) => {
      d.distribution[0].contentUrl = url
    })
    assert.ok(
      problems.some((p) => p.startsWith(`croissant.json: $.distribution[0].contentUrl: "${url}" is not a data file of the folder`)),
      problems.join('\n'),
    )
  }
  // and a data file no FileObject describes
  assert.ok(
    mutated((d) => {
      d.distribution.pop()
    }).includes('croissant.json: $.distribution: no FileObject for the data file val.jsonl'),
  )
})

test('check-dataset finds a damaged, a missing or an unasked-for croissant.json', async () => {
  const dir = join(tmp, 'damaged')
  await buildFixtureOut(dir)
  const doc = JSON.parse(text)
  doc.distribution[0].sha256 = 'f'.repeat(64)
  await writeFile(join(dir, 'croissant.json'), JSON.stringify(doc))
  const problems = await checkFolder(dir, recipe)
  assert.ok(
    problems.some((p) => p.startsWith('croissant.json: $.distribution[0].sha256: ')),
    problems.join('\n'),
  )
  assert.ok(problems.includes("croissant.json: does not match the manifest's sha256/bytes"), problems.join('\n'))
  await rm(join(dir, 'croissant.json'))
  assert.ok((await checkFolder(dir, recipe)).includes('croissant.json: missing (the recipe has a publication)'))
  const { publication: _, ...without } = recipe
  assert.ok((await checkFolder(good, without)).includes('croissant.json: the recipe has no publication to describe'))
})

test('croissant.json is the same bytes on every build, and follows the recipe, not the clock', async () => {
  const lock = await readLock(FIXTURE_LOCK)
  const build = (r = recipe) => buildFromSources(r, createMirrorFetcher(FIXTURE_HUB), { lock })
  const [a, b] = [await build(), await build()]
  assert.equal(outputText(a.files.get('croissant.json')!), outputText(b.files.get('croissant.json')!))
  assert.equal(outputText(a.files.get('croissant.json')!), text)
  const later = parseRecipe({ ...recipe, publication: { ...recipe.publication, datePublished: '2027-01-31' } })
  const c = await build(later)
  assert.equal(JSON.parse(outputText(c.files.get('croissant.json')!)).datePublished, '2027-01-31')
  assert.equal(outputText(c.files.get('test.jsonl')!), outputText(a.files.get('test.jsonl')!))
})

test('a recipe without a publication makes no croissant.json and lists none, and its other bytes do not change', async () => {
  const lock = await readLock(FIXTURE_LOCK)
  const { publication: _, ...without } = recipe
  const built = await buildFromSources(without, createMirrorFetcher(FIXTURE_HUB), { lock })
  assert.equal(built.files.has('croissant.json'), false)
  assert.equal(
    built.manifest.outputs.some((o) => o.path === 'croissant.json'),
    false,
  )
  for (const f of ['test.jsonl', 'val.jsonl', 'provenance.jsonl']) assert.equal(sha256Hex(built.files.get(f)!), sha256Hex(files.get(f)!), f)
  const dir = join(tmp, 'without')
  const { writeOutDir } = await import('../src/write/out-dir.ts')
  await writeOutDir(dir, built.files)
  assert.deepEqual(await checkFolder(dir, without), [])
})

test('a publication with a date that is not one, or a licence that is not a URL, is a recipe error', () => {
  const bad = (publication: object) => () => parseRecipe({ ...recipe, publication: { ...recipe.publication, ...publication } })
  assert.throws(bad({ datePublished: '2026-02-30' }), /publication\.datePublished: is not a calendar date/)
  assert.throws(bad({ datePublished: '2026-12-01T10:00:00Z' }), /publication\.datePublished: must be an ISO date/)
  assert.throws(bad({ license: 'cc-by-sa-4.0' }), /publication\.license: must be an http\(s\) URL/)
})

test('publish uploads croissant.json when the build made it, and does without it when it did not', async () => {
  const { checkOwnManifest, readPublishFiles } = await import('../src/publish/files.ts')
  const made = await readPublishFiles(good)
  assert.ok(made.some((f) => f.path === 'croissant.json'))
  assert.deepEqual(checkOwnManifest(made), [])
  // a build of a recipe without a publication: nothing to upload, nothing missing
  const lock = await readLock(FIXTURE_LOCK)
  const { publication: _, ...without } = recipe
  const dir = join(tmp, 'publish-without')
  const { writeOutDir } = await import('../src/write/out-dir.ts')
  await writeOutDir(dir, (await buildFromSources(without, createMirrorFetcher(FIXTURE_HUB), { lock })).files)
  const plain = await readPublishFiles(dir)
  assert.equal(
    plain.some((f) => f.path === 'croissant.json'),
    false,
  )
  assert.deepEqual(checkOwnManifest(plain), [])
  // one the manifest lists but the folder lacks is not published silently
  const lacking = made.filter((f) => f.path !== 'croissant.json')
  assert.deepEqual(checkOwnManifest(lacking), ['croissant.json: listed in manifest.json but not published'])
})

test("the card's licence is the publication's: the Hub's id and its name in the text, another URL as \"other\"", async () => {
  const lock = await readLock(FIXTURE_LOCK)
  const card = async (r: typeof recipe) =>
    outputText((await buildFromSources(r, createMirrorFetcher(FIXTURE_HUB), { lock })).files.get('README.md')!)
  const cc = outputText(files.get('README.md')!)
  assert.ok(cc.includes('\nlicense: cc-by-sa-4.0\n') && cc.includes('released under **CC BY-SA 4.0**'))
  const { publication: _, ...without } = recipe
  const unpublished = await card(without)
  assert.ok(unpublished.includes('\nlicense: cc-by-sa-4.0\n') && unpublished.includes('released under **CC BY-SA 4.0**'))
  const other = await card(parseRecipe({ ...recipe, publication: { ...recipe.publication, license: 'https://example.org/licence' } }))
  assert.ok(other.includes('\nlicense: other\n'), 'the Hub id for a licence it has no id for')
  assert.ok(other.includes('released under **https://example.org/licence**'))
  assert.ok(!other.includes('released under **CC BY-SA 4.0**'))
})
