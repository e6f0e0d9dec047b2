import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { checkCardMetadata, frontMatter } from '../src/check/card.ts'
import { HUB_SIZE_CATEGORIES, sizeCategoryFor } from '../src/emit/card/hub-metadata.ts'
import { checkOwnManifest, dataFileFacts, describeLocal, type LocalFile, readPublishFiles } from '../src/publish/files.ts'
import { buildFixtureOut } from './helpers/publish.ts'

let tmp: string
let files: LocalFile[]
let card: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-card-'))
  await buildFixtureOut(join(tmp, 'out'))
  files = await readPublishFiles(join(tmp, 'out'))
  card = files.find((f) => f.path === 'README.md')!.bytes.toString('utf8')
})
after(() => rm(tmp, { recursive: true, force: true }))

const check = (text: string) => checkCardMetadata(text, dataFileFacts(files))
const edit = (from: string | RegExp, to: string) => {
  const out = card.replace(from, to)
  assert.notEqual(out, card, `the card contains ${String(from)}`)
  return out
}

test('the card the builder writes passes', () => {
  assert.deepEqual(check(card), [])
  assert.ok(frontMatter(card)!.startsWith('pretty_name: '))
})

test('size categories are the Hub list, each bound in the category above it', () => {
  const cases: [number, string][] = [
    [0, 'n<1K'],
    [999, 'n<1K'],
    [1000, '1K<n<10K'],
    [1549, '1K<n<10K'],
    [9999, '1K<n<10K'],
    [10_000, '10K<n<100K'],
    [999_999, '100K<n<1M'],
    [1e6, '1M<n<10M'],
    [1e12 - 1, '100B<n<1T'],
    [1e12, 'n>1T'],
    [1e15, 'n>1T'],
  ]
  for (const [n, want] of cases) assert.equal(sizeCategoryFor(n), want, String(n))
  assert.equal(HUB_SIZE_CATEGORIES.length, 11)
})

test('YAML that is not plain is refused: syntax errors, duplicate keys, tags, anchors and aliases', () => {
  assert.match(check(edit('license: cc-by-sa-4.0', 'license: [cc-by-sa-4.0'))[0]!, /not plain YAML/)
  assert.match(check(edit('license: cc-by-sa-4.0', 'license: cc-by-sa-4.0\nlicense: mit'))[0]!, /not plain YAML: Map keys must be unique/)
  const odd = check(edit('license: cc-by-sa-4.0', 'license: !!str cc-by-sa-4.0').replace('- en\n', '- &l en\n- *l\n'))
  assert.ok(
    odd.some((p) => p.includes('license: has an explicit tag')),
    odd.join('\n'),
  )
  assert.ok(
    odd.some((p) => p.includes('language[0]: has an anchor &l')),
    odd.join('\n'),
  )
  assert.ok(
    odd.some((p) => p.includes('language[1]: uses an alias')),
    odd.join('\n'),
  )
  assert.deepEqual(check('# no front matter\n'), ['README.md: no YAML front matter (a first line "---" and a closing "---")'])
})

test('every bad value is listed at once, each naming its field', () => {
  const bad = card
    .replace('pretty_name: jev-bench-fixture', 'pretty_name: ""')
    .replace('license: cc-by-sa-4.0', 'license: cc-by-sa-9.9')
    .replace('- multiple-choice\n', '- multiple-choise\n')
    .replace('- multiple-choice-qa', '- multiple-choice-qq')
    .replace('- ja', '- Japanese')
    .replace('- n<1K', '- 1K<n<10K')
  const problems = check(bad)
  for (const field of [
    'pretty_name:',
    'license: "cc-by-sa-9.9"',
    'task_categories: "multiple-choise"',
    'task_ids: "multiple-choice-qq"',
    'language: "Japanese"',
    'size_categories: 1K<n<10K does not fit 106 rows; that is n<1K',
  ])
    assert.ok(
      problems.some((p) => p.startsWith(`README.md: ${field}`)),
      `${field}\n${problems.join('\n')}`,
    )
  assert.equal(problems.length, 6, problems.join('\n'))
  assert.match(check(edit('- n<1K', '- n<1000'))[0]!, /size_categories: "n<1000" is not one of the Hub's size categories/)
})

test('configs must name exactly the uploaded data files; dataset_info must match their rows, bytes and keys', () => {
  const renamed = check(edit('    path: val.jsonl', '    path: data/val.jsonl'))
  assert.ok(
    renamed.some((p) => p.includes('configs[0].data_files: "data/val.jsonl" (split val) is not among the data files being uploaded')),
  )
  assert.ok(renamed.some((p) => p.includes("configs: val.jsonl is uploaded but no config's data_files names it")))
  const counts = check(
    edit(/num_examples: 74/, 'num_examples: 73')
      .replace(/num_bytes: \d+\n(\s+num_examples: 32)/, 'num_bytes: 1\n$1')
      .replace(/dataset_size: \d+/, 'dataset_size: 5'),
  )
  assert.deepEqual(
    counts.map((p) => p.split(':')[1]),
    [' dataset_info.splits[test].num_examples', ' dataset_info.splits[val].num_bytes', ' dataset_info.dataset_size'],
  )
  assert.ok(check(edit('  - name: n_choices\n', '  - name: n_options\n')).some((p) => p.includes('dataset_info.features: names')))
  assert.ok(
    check(edit('  - name: test\n    num_bytes', '  - name: train\n    num_bytes')).some((p) =>
      p.includes('dataset_info.splits: train is not a split of config default'),
    ),
  )
  assert.ok(
    check(edit('    dtype: int64', '    dtype: integer')).some((p) =>
      p.includes('(answer_idx): dtype "integer" is not a datasets Value type'),
    ),
  )
  // an extra split with no file, and a dataset_info entry to match it
  const pathless = check(
    edit('    path: val.jsonl\n', '    path: val.jsonl\n  - split: extra\n').replace(
      /( {2}splits:\n)/,
      '$1  - name: extra\n    num_bytes: 0\n    num_examples: 0\n',
    ),
  )
  assert.deepEqual(pathless, ['README.md: configs[0].data_files: split extra has no path'])
})

test('--no-verify floor: the folder must match its own manifest', () => {
  assert.deepEqual(checkOwnManifest(files), [])
  const val = files.find((f) => f.path === 'val.jsonl')!
  const tampered = files.map((f) => (f === val ? describeLocal('val.jsonl', Buffer.concat([f.bytes, Buffer.from('{}\n')])) : f))
  assert.match(checkOwnManifest(tampered)[0]!, /^val\.jsonl: sha256 [0-9a-f]{64} \(\d+ bytes\), manifest\.json says/)
  const noManifest = files.map((f) => (f.path === 'manifest.json' ? describeLocal('manifest.json', Buffer.from('nope')) : f))
  assert.deepEqual(checkOwnManifest(noManifest), ['manifest.json: not JSON'])
})
