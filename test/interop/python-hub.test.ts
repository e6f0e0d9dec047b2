/**
 * The real Python huggingface_hub against the local Hub (serve-hub's server) on
 * loopback: every call the issue lists, the publish path of a built folder, and
 * the Hugging Face cache shared both ways with the JS builder. Runs for each
 * client source folder in JEV_PY_HUB_SRC (":"-separated); without it, one
 * skipped test says why.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type TestContext, test } from 'node:test'
import { buildDatasetCli } from '../../src/cli/build-dataset.ts'
import { runCli } from '../../src/cli/run.ts'
import { loadRecipe, sourceFiles } from '../../src/recipe/load.ts'
import { sha256Hex } from '../../src/util/hash.ts'
import { collectIo, FIXTURE_HUB, FIXTURE_RECIPE } from '../helpers/cli.ts'
import { type HubServer, startHubServer } from '../helpers/hub-server.ts'
import { buildFixtureOut, TOKEN } from '../helpers/publish.ts'
import { PY_HUB_ENV, PYTHON, probePyHub, pyHubSources, runPyScript } from '../helpers/python-hub.ts'

const OUT_FILES = ['README.md', 'manifest.json', 'test.jsonl', 'val.jsonl']

/** The checks each script must report `ok`, in its order: one subtest each. */
const CHECKS = {
  'reads.py': [
    'hf_hub_download at a pinned commit',
    'hf_hub_download at main',
    'snapshot_download with allow_patterns',
    'dataset_info',
    'dataset_info files_metadata=True gives size and lfs',
    'list_repo_refs',
    'get_paths_info',
    'list_repo_commits',
    'list_repo_files (recursive=True)',
    'list_repo_tree recursive and expanded',
    'HfFileSystem glob and find',
    '404s: repository, revision, entry',
  ],
  'writes.py': [
    'create_repo, and 409 for an existing one unless exist_ok',
    'upload_file, downloaded back',
    'LFS upload and download',
    'create_branch, and 409 for an existing one',
    'create_tag and delete_tag, 409 for an existing tag',
    '412 for a commit on a stale parent',
    '403 for a write to a read-only mirror repo',
    'validate-yaml: a good card is committed, and dataset_info gives its cardData',
    'validate-yaml: a card with an unknown licence is refused before any commit',
    "validate-yaml: a card without front matter is committed with the Hub's warning",
  ],
  'publish.py': [
    'create_repo',
    'upload_folder of the output folder (README.md validated first)',
    'create_tag',
    'the files on the tag, downloaded back, are byte-identical to the output folder',
    'a second identical upload_folder makes no commit',
    "DatasetCard.load gives the card's licence",
    'dataset_info: cardData and file sizes',
  ],
  'cache.py fill': ['hf_hub_download fills the cache'],
  'cache.py read': [
    'HF_HUB_OFFLINE=1: hf_hub_download finds every file a JS build cached',
    'scan_cache_dir of the JS-filled cache: no warnings, every repo and revision',
  ],
} as const

const sources = pyHubSources()
if (sources.length === 0) {
  test('Python huggingface_hub against serve-hub', {
    skip: `not run: ${PY_HUB_ENV} is not set (the folder holding the huggingface_hub package, e.g. ../pyhub/v0.36.2/src; ":" between several)`,
  }, () => {})
}
for (const src of sources) {
  const probe = probePyHub(src)
  if ('reason' in probe) test(`Python huggingface_hub from ${src}`, { skip: `not run: ${probe.reason}` }, () => {})
  else test(`Python huggingface_hub ${probe.version} (${src}, ${PYTHON}) against serve-hub`, (t) => interop(t, src))
}

async function interop(t: TestContext, src: string): Promise<void> {
  const tmp = await mkdtemp(join(tmpdir(), 'jev-interop-'))
  const server = await startHubServer({ root: FIXTURE_HUB })
  let homes = 0
  /** Runs a script in a fresh HOME and reports each expected check as a subtest. */
  const py = async (script: keyof typeof CHECKS, spec: unknown, env: NodeJS.ProcessEnv = {}) => {
    const home = join(tmp, `home-${++homes}`)
    await mkdir(home)
    const [file, ...args] = script.split(' ')
    const r = await runPyScript({ src, script: file!, args, spec, home, endpoint: server.url, token: TOKEN, env })
    for (const name of CHECKS[script]) await t.test(`${script}: ${name}`, () => assert.ok(r.ok.has(name), r.output))
    assert.equal(r.status, 0, r.output)
    assert.equal(r.ok.size, CHECKS[script].length, `every check the script ran is listed here:\n${r.output}`)
  }
  try {
    const out = join(tmp, 'out')
    await buildFixtureOut(out)
    const card = await readFile(join(out, 'README.md'), 'utf8')
    const license = /^license: (\S+)$/m.exec(card)?.[1]
    assert.ok(license, 'the card names a licence')

    const recipe = await loadRecipe(FIXTURE_RECIPE)
    const files = []
    for (const s of recipe.sources)
      for (const { path } of sourceFiles(s))
        files.push({
          repo: s.repo,
          revision: s.revision,
          path,
          sha256: sha256Hex(await readFile(join(FIXTURE_HUB, 'datasets', s.repo, path))),
        })
    const mmlu = files.filter((f) => f.repo === 'cais/mmlu')
    assert.ok(mmlu.length >= 2)

    await py('reads.py', { repo: 'cais/mmlu', pinned: mmlu[0]!.revision, files: Object.fromEntries(mmlu.map((f) => [f.path, f.sha256])) })
    const parquet = join(FIXTURE_HUB, 'datasets', 'cais/mmlu', mmlu[0]!.path)
    await py('writes.py', { repo: 'interop/writes', mirror_repo: 'cais/mmlu', parquet, card, license })
    await py('publish.py', { repo: 'interop/jev-bench', out, tag: 'v1.0.0' })

    // a JS build fills a cache; Python, offline, finds every file there
    const jsCache = join(tmp, 'js-cache')
    const js = await build(['--recipe', FIXTURE_RECIPE, '--out', join(tmp, 'js-out'), '--cache-dir', jsCache], server)
    assert.equal(js.status, 0, js.text)
    const before = server.requests.length
    await py('cache.py read', { files }, { HF_HUB_CACHE: jsCache, HF_HUB_OFFLINE: '1' })
    assert.equal(server.requests.length, before, 'Python sent no request with HF_HUB_OFFLINE=1')

    // Python fills a cache; a JS --offline build from it is byte-identical to the mirror build
    const pyCache = join(tmp, 'py-cache')
    await py('cache.py fill', { files }, { HF_HUB_CACHE: pyCache })
    await t.test('a JS --offline build from the cache Python filled is byte-identical, with no request', async () => {
      const sent = server.requests.length
      const offOut = join(tmp, 'offline-out')
      const off = await build(['--recipe', FIXTURE_RECIPE, '--out', offOut, '--cache-dir', pyCache, '--offline'], server)
      assert.equal(off.status, 0, off.text)
      assert.equal(server.requests.length, sent)
      for (const f of OUT_FILES) assert.ok((await readFile(join(offOut, f))).equals(await readFile(join(out, f))), f)
    })
  } finally {
    await server.close()
    await rm(tmp, { recursive: true, force: true })
  }
}

async function build(argv: string[], server: HubServer) {
  const c = collectIo()
  const status = await runCli(() => buildDatasetCli(argv, { HF_ENDPOINT: server.url }, c.io), c.io, false)
  return { status, text: c.text() }
}
