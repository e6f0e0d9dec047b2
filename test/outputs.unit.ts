import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { FIGURES } from '../src/emit/figures.ts'
import {
  CONFIG_OUTPUTS,
  DATA_FILES,
  describeFile,
  FIGURE_FILES,
  MANIFEST_OUTPUTS,
  OUTPUT_FILES,
  OUTPUTS,
  outputBytes,
  outputSpec,
  outputText,
} from '../src/emit/outputs.ts'
import { SPLITS } from '../src/recipe/schema.ts'
import { ROOT } from './helpers/cli.ts'

test('the registry: unique names, a split file per split, one card and one manifest', () => {
  assert.equal(new Set(OUTPUT_FILES).size, OUTPUT_FILES.length)
  assert.deepEqual(
    OUTPUTS.filter((o) => o.kind === 'split').map((o) => o.split),
    [...SPLITS],
  )
  assert.deepEqual(DATA_FILES, ['test.jsonl', 'val.jsonl'])
  assert.equal(OUTPUTS.filter((o) => o.kind === 'card').length, 1)
  assert.deepEqual(
    OUTPUTS.filter((o) => o.kind === 'manifest').map((o) => o.manifestOrder),
    [null],
    'the manifest does not list itself',
  )
  for (const o of OUTPUTS) if (o.inConfigs) assert.ok(o.split, `${o.name}: a config names a split`)
  assert.equal(outputSpec('provenance.jsonl')?.kind, 'sidecar')
  assert.equal(outputSpec('nope.txt'), undefined)
})

test("the manifest's outputs keep the order every published manifest has, and the card's configs name the splits", () => {
  assert.deepEqual(
    MANIFEST_OUTPUTS.map((o) => o.name),
    [
      'test.jsonl',
      'val.jsonl',
      'README.md',
      'provenance.jsonl',
      'option-counts.svg',
      'answer-positions.svg',
      'borrowed-options.svg',
      'croissant.json',
    ],
  )
  assert.deepEqual(
    CONFIG_OUTPUTS.map((o) => `${o.split} ${o.name}`),
    ['test test.jsonl', 'val val.jsonl'],
  )
})

test('text and binary contents describe the same bytes alike', () => {
  const text = 'é\n'
  const bytes = new Uint8Array([0xc3, 0xa9, 0x0a])
  assert.deepEqual(describeFile('x', text), describeFile('x', bytes))
  assert.deepEqual(describeFile('x', text), { path: 'x', bytes: 3, sha256: describeFile('y', bytes).sha256 })
  assert.deepEqual([...outputBytes(text)], [...bytes])
  assert.equal(outputText(bytes), text)
  // a view into a bigger buffer is read as its own bytes
  assert.equal(outputText(Buffer.from('xxé\nyy').subarray(2, 5)), text)
})

test('the figures are outputs: every figure the card draws, as text, in the manifest, not in configs, without rows', () => {
  assert.deepEqual(
    FIGURE_FILES,
    FIGURES.map((f) => f.name),
  )
  for (const name of FIGURE_FILES) {
    const o = outputSpec(name)!
    assert.deepEqual([o.kind, o.encoding, o.inConfigs, o.hasRows], ['figure', 'text', false, false], name)
    assert.ok(MANIFEST_OUTPUTS.includes(o), `${name}: listed in the manifest`)
  }
  // written before the manifest, which describes them
  assert.equal(OUTPUT_FILES.at(-1), 'manifest.json')
})

test('the README\'s "What lands in out/" table has a row for every output', async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf('## What lands in `out/`')
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1))
  assert.ok(start >= 0)
  for (const name of OUTPUT_FILES) assert.match(section, new RegExp(`^\\| \`${name.replace('.', '\\.')}\` \\| `, 'm'), name)
})
