/**
 * What the cache of prepared sources trusts: an entry is checked only against its own sha256, so whoever
 * can write the folder can change a build. A crafted card entry is not used (the card is rendered from
 * the audit on every build); a crafted prepared entry changes the records, and verify-dataset names the
 * cache as the cause (a rebuild with it differs from one without it).
 */
import assert from 'node:assert/strict'
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildDatasetCli } from '../src/cli/build-dataset.ts'
import { runCli } from '../src/cli/run.ts'
import { verifyDatasetCli } from '../src/cli/verify-dataset.ts'
import { decodeEntry, encodeEntry } from '../src/prepared-cache/cache.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE, ROOT } from './helpers/cli.ts'

let tmp: string
let cache: string
let lock: string

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'jev-cache-trust-'))
  cache = join(tmp, 'prepared')
  lock = join(tmp, 'recipe.lock.json')
  await copyFile(join(ROOT, 'test/fixtures/recipe.lock.json'), lock)
})
after(() => rm(tmp, { recursive: true, force: true }))

const env = () => ({ JEV_PREPARED_CACHE: cache })
async function run(cli: typeof buildDatasetCli, argv: string[], e: NodeJS.ProcessEnv = env()) {
  const c = collectIo()
  const status = await runCli(() => cli(argv, e, c.io), c.io, false)
  return { status, out: c.out, err: c.err }
}
const sources = () => ['--recipe', FIXTURE_RECIPE, '--lock', lock, '--mirror', FIXTURE_HUB]
const build = (out: string) => run(buildDatasetCli, [...sources(), '--out', join(tmp, out)])

/** Rewrites each entry of `kind` through `edit`, with a sha256 that matches again, as anyone who can write the folder could. */
async function craft(kind: 'prepared' | 'card', edit: (entry: Record<string, unknown>) => boolean): Promise<number> {
  let n = 0
  for (const name of await readdir(cache)) {
    const m = new RegExp(`\\.${kind}\\.([0-9a-f]{64})\\.v8$`).exec(name)
    if (!m) continue
    const entry = decodeEntry(await readFile(join(cache, name)), m[1]!) as Record<string, unknown>
    if (edit(entry)) {
      await writeFile(join(cache, name), encodeEntry(m[1]!, entry))
      n++
    }
  }
  return n
}

test('a crafted card entry is not what a warm build writes: the card is rendered afresh, with a warning naming the entry', async () => {
  const first = await build('cold')
  assert.equal(first.status, 0, first.err.join('\n'))
  const cold = await readFile(join(tmp, 'cold', 'README.md'), 'utf8')
  const crafted = await craft('card', (e) => {
    e.card = `${e.card as string}\n# PWNED\n`
    return true
  })
  assert.equal(crafted, 1)
  const warm = await build('warm-card')
  assert.equal(warm.status, 0)
  assert.equal(await readFile(join(tmp, 'warm-card', 'README.md'), 'utf8'), cold)
  assert.ok(
    warm.err.some((l) => /^warning: prepared cache: the card entry .* is not the one its audit gives/.test(l)),
    warm.err.join('\n'),
  )
})

test('a crafted prepared entry changes the records; verify-dataset says cause: prepared-cache, and why', async () => {
  const which = Buffer.from('Which')
  const crafted = await craft('prepared', (e) => {
    const texts = (e.prepared as { texts: Uint8Array }).texts
    const buf = Buffer.from(texts.buffer, texts.byteOffset, texts.byteLength)
    let hit = false
    for (let at = buf.indexOf(which); at !== -1; at = buf.indexOf(which, at + 1)) {
      buf[at + 2] = 'o'.charCodeAt(0) // same length: every offset holds
      hit = true
    }
    return hit
  })
  assert.ok(crafted > 0, 'a source with "Which" in its texts')
  assert.equal((await build('warm')).status, 0)
  const records = await readFile(join(tmp, 'warm', 'test.jsonl'), 'utf8')
  assert.match(records, /Whoch/, 'the crafted entry reached the build')

  const v = await run(verifyDatasetCli, [...sources(), '--out', join(tmp, 'warm')])
  assert.equal(v.status, 9)
  assert.ok(v.err.includes('cause: prepared-cache'), v.err.join('\n'))
  assert.ok(
    v.err.some((l) => l.includes(`a build with the cache of prepared sources at ${cache} differs from one without it (test.jsonl`)),
    v.err.join('\n'),
  )
  assert.ok(
    v.err.some((l) => l.includes(`was most likely built from that cache; delete ${cache}`)),
    v.err.join('\n'),
  )
  // with the cache off, the rebuild cannot tell it from a builder's change
  const off = await run(verifyDatasetCli, [...sources(), '--out', join(tmp, 'warm')], { JEV_PREPARED_CACHE: '0' })
  assert.equal(off.status, 9)
  assert.ok(off.err.includes('cause: builder-changed'), off.err.join('\n'))
  // the cold folder, built before the entry was crafted, still verifies
  assert.equal((await run(verifyDatasetCli, [...sources(), '--out', join(tmp, 'cold')])).status, 0)
})
