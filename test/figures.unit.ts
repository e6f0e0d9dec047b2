import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { buildFromSources } from '../src/build-io.ts'
import { checkDatasetCli } from '../src/cli/check-dataset.ts'
import { runCli } from '../src/cli/run.ts'
import { verifyDatasetCli } from '../src/cli/verify-dataset.ts'
import type { Audit } from '../src/emit/audit.ts'
import { barChart, FIGURES, figureLink, renderFigures } from '../src/emit/figures.ts'
import { Manifest } from '../src/emit/manifest.ts'
import { computeStats } from '../src/emit/stats.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { sha256Hex } from '../src/util/hash.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE } from './helpers/cli.ts'
import { buildFixtureOut, FIXTURE_LOCK } from './helpers/publish.ts'
import { rec } from './helpers/questions.ts'

const tally = (items: number, borrowed: number) => ({ items, grown: borrowed ? items : 0, borrowed })
const splitAudit = (byChoices: Record<string, ReturnType<typeof tally>>) => ({
  bySource: {},
  byChoices,
  chance: { floor: { all: 0, grown: 0 }, spotter: { all: 0, grown: 0 } },
  baselines: { longest: { all: 0, grown: 0 }, shortest: { all: 0, grown: 0 }, overlap: { all: 0, grown: 0 } },
  negatives: { items: 0, grown: 0 },
  firstRight: {},
})
const audit: Audit = { test: splitAudit({ '2': tally(1, 0), '8': tally(3, 9) }), val: splitAudit({ '4': tally(1, 0) }) }
const stats = computeStats({ test: [rec('x', 2, 1), rec('y', 8, 7), rec('w', 8, 0), rec('v', 8, 0)], val: [rec('z', 4, 0)] }, ['a'])

/** Every bar's tooltip: "<category>, <series>: <value>". */
const bars = (svg: string) => [...svg.matchAll(/<rect [^>]*><title>([^<]*)<\/title><\/rect>/g)].map((m) => m[1])

test('the option-count figure has one bar per split and option count, with the counts of the records', () => {
  const figure = renderFigures(stats, audit).find((f) => f.name === 'option-counts.svg')!
  const b = bars(figure.svg)
  assert.equal(b.length, 2 * 7)
  assert.ok(b.includes('8 options, test: 3'))
  assert.ok(b.includes('2 options, test: 1'))
  assert.ok(b.includes('4 options, val: 1'))
  assert.ok(b.includes('5 options, val: 0'))
})

test('the answer-position figure draws the observed counts and the uniform expectation per position', () => {
  const figure = renderFigures(stats, audit).find((f) => f.name === 'answer-positions.svg')!
  const b = bars(figure.svg)
  assert.ok(b.includes('A, test: 2'))
  assert.ok(b.includes('B, test: 1'))
  assert.ok(b.includes('H, test: 1'))
  assert.ok(b.includes('C, test: 0'))
  // one dashed marker per position and split: the expected count under a uniform shuffle
  assert.equal(figure.svg.match(/stroke-dasharray/g)!.length, 8 * 2 + 1, 'a marker per bar, and one in the legend')
})

test('the borrowed-options figure stacks upstream and borrowed options of test items by option count', () => {
  const figure = renderFigures(stats, audit).find((f) => f.name === 'borrowed-options.svg')!
  const b = bars(figure.svg)
  // three 8-option items: 24 options, 9 of them borrowed
  assert.ok(b.includes('8 options, upstream: 15'))
  assert.ok(b.includes('8 options, borrowed: 9'))
  assert.ok(!b.some((x) => x!.startsWith('2 options')), 'no 2-option column: nothing grows to 2')
})

test('figures are the same bytes for the same figures, valid numbers only, and escape their text', () => {
  const a = renderFigures(stats, audit)
  const b = renderFigures(
    computeStats({ test: [rec('v', 8, 0), rec('w', 8, 0), rec('y', 8, 7), rec('x', 2, 1)], val: [rec('z', 4, 0)] }, ['a']),
    audit,
  )
  assert.deepEqual(a, b, 'record order does not matter')
  for (const f of a) {
    assert.doesNotMatch(f.svg, /NaN|Infinity|undefined/)
    assert.match(f.svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>\n$/)
    // balanced: every element opened is closed or self-closing
    const opened = f.svg.match(/<(?!\/)[a-z]+[^>]*[^/]>/g)!.length
    const closed = f.svg.match(/<\/[a-z]+>/g)!.length
    assert.equal(opened, closed, f.name)
  }
  const svg = barChart({ title: 'a < b & "c"', categories: ['<x>'], series: [{ label: 's&t', colour: '#000000', values: [3] }] })
  assert.match(svg, /<title>a &lt; b &amp; &quot;c&quot;<\/title>/)
  assert.match(svg, /&lt;x&gt;, s&amp;t: 3/)
  assert.doesNotMatch(svg, /<x>/)
})

test('an empty chart still has an axis from 0 and no division by zero', () => {
  const svg = barChart({ title: 't', categories: ['a', 'b'], series: [{ label: 's', colour: '#000000', values: [0, 0] }] })
  assert.doesNotMatch(svg, /NaN|Infinity/)
  assert.match(svg, />0<\/text>/)
})

describe('the figures in a build', () => {
  let tmp: string
  let out: string
  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'jev-figures-'))
    out = join(tmp, 'out')
    await buildFixtureOut(out)
  })
  after(() => rm(tmp, { recursive: true, force: true }))

  const copy = async (name: string, edit: (dir: string) => Promise<void>) => {
    const dir = join(tmp, name)
    await cp(out, dir, { recursive: true })
    await edit(dir)
    return dir
  }
  const run = async (cli: typeof checkDatasetCli, argv: string[]) => {
    const c = collectIo()
    const status = await runCli(() => cli(argv, {}, c.io), c.io, false)
    return { status, text: c.text(), out: c.out }
  }
  const check = (dir: string) => run(checkDatasetCli, [dir, '--recipe', FIXTURE_RECIPE])
  const verify = (dir: string) =>
    run(verifyDatasetCli, ['--recipe', FIXTURE_RECIPE, '--lock', FIXTURE_LOCK, '--mirror', FIXTURE_HUB, '--out', dir])

  test("are written, listed in the manifest with sha256 and bytes, and drawn from the build's own counts", async () => {
    const m = Manifest.parse(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')))
    for (const f of FIGURES) {
      const buf = await readFile(join(out, f.name))
      const listed = m.outputs.find((o) => o.path === f.name)
      assert.deepEqual(listed, { path: f.name, sha256: sha256Hex(buf), bytes: buf.byteLength }, f.name)
    }
    const counts = bars(await readFile(join(out, 'option-counts.svg'), 'utf8'))
    for (const split of ['test', 'val'] as const)
      for (const [n, items] of Object.entries(m.counts.byChoices[split]))
        assert.ok(counts.includes(`${n} options, ${split}: ${items}`), `${split} ${n}`)
    const borrowed = bars(await readFile(join(out, 'borrowed-options.svg'), 'utf8'))
    for (const [n, t] of Object.entries(m.audit!.test.byChoices))
      if (Number(n) > 2) assert.ok(borrowed.includes(`${n} options, borrowed: ${t.borrowed}`), n)
  })

  test('a second build draws byte-identical figures', async () => {
    const again = await buildFromSources(await loadRecipe(FIXTURE_RECIPE), createMirrorFetcher(FIXTURE_HUB))
    for (const f of FIGURES) assert.equal(again.files.get(f.name), await readFile(join(out, f.name), 'utf8'), f.name)
  })

  test('the card shows each figure by a relative link, next to the table it draws', async () => {
    const card = await readFile(join(out, 'README.md'), 'utf8')
    const within = (name: (typeof FIGURES)[number]['name'], from: string, to: string) => {
      const at = card.indexOf(figureLink(name))
      assert.ok(at > card.indexOf(from) && at < card.indexOf(to), `${name} between "${from}" and "${to}"`)
    }
    within('option-counts.svg', '## Option counts', '## Answer positions')
    within('answer-positions.svg', '## Answer positions', '## Record format')
    within('borrowed-options.svg', '| n_choices | test items', '| accuracy without knowing the answer')
    assert.ok(card.includes('![Items by number of options, test and val](option-counts.svg)'))
  })

  test('check-dataset: a tampered figure, a missing one or a card without its link fails, naming the file', async () => {
    assert.equal((await check(out)).status, 0)
    // a redrawn figure whose manifest entry was updated too still fails: it is not what the records draw
    const tampered = await copy('tampered', async (dir) => {
      const svg = (await readFile(join(dir, 'option-counts.svg'), 'utf8')).replace(
        /: (\d+)<\/title>/,
        (_, n) => `: ${Number(n) + 1}</title>`,
      )
      await writeFile(join(dir, 'option-counts.svg'), svg)
      const m = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest
      Object.assign(m.outputs.find((o) => o.path === 'option-counts.svg')!, { sha256: sha256Hex(svg), bytes: Buffer.byteLength(svg) })
      await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`)
    })
    const t = await check(tampered)
    assert.equal(t.status, 8, t.text)
    assert.match(t.text, /^option-counts\.svg: not the figure the records and provenance\.jsonl draw$/m)
    assert.doesNotMatch(t.text, /manifest's sha256/, 'the manifest was made to match')
    const json = await run(checkDatasetCli, [tampered, '--recipe', FIXTURE_RECIPE, '--json'])
    const doc = JSON.parse(json.out.join('\n')) as { problems: { file: string | null }[] }
    assert.deepEqual(
      doc.problems.map((p) => p.file),
      ['option-counts.svg'],
      '--json names the file too',
    )

    const missing = await check(await copy('missing', (dir) => rm(join(dir, 'answer-positions.svg'))))
    assert.equal(missing.status, 8)
    assert.match(missing.text, /^answer-positions\.svg: missing$/m)

    const unlinked = await check(
      await copy('unlinked', async (dir) => {
        const card = await readFile(join(dir, 'README.md'), 'utf8')
        await writeFile(join(dir, 'README.md'), card.replace(`${figureLink('borrowed-options.svg')}\n\n`, ''))
      }),
    )
    assert.equal(unlinked.status, 8)
    assert.match(unlinked.text, /^README\.md: does not show the figure borrowed-options\.svg /m)
  })

  test('verify-dataset: a tampered figure differs from the rebuild, named, and out/ was edited', async () => {
    const r = await verify(
      await copy('verify', (dir) => writeFile(join(dir, 'answer-positions.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>\n')),
    )
    assert.equal(r.status, 9, r.text)
    assert.match(r.text, /^ {2}answer-positions\.svg: differs$/m)
    assert.match(r.text, /answer-positions\.svg no longer matches the sha256 in .*manifest\.json/)
    assert.match(r.text, /^cause: out-edited$/m)
    assert.equal((await verify(out)).status, 0)
  })
})
