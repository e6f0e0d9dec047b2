/**
 * Runs the real Python huggingface_hub (its source folder on PYTHONPATH) with
 * Debian's own python3, for the interop tests. Which folders: JEV_PY_HUB_SRC,
 * one or more separated by ":".
 */
import { spawn, spawnSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import { ROOT } from './cli.ts'

export const PY_HUB_ENV = 'JEV_PY_HUB_SRC'
/** Not `python3` from PATH: a version manager's may come first, without the Debian packages the client needs. */
export const PYTHON = '/usr/bin/python3'
const SCRIPTS = join(ROOT, 'test/interop')

export const pyHubSources = (env: NodeJS.ProcessEnv = process.env): string[] =>
  (env[PY_HUB_ENV] ?? '').split(delimiter).filter((s) => s !== '')

/** The client's version, or why it cannot be used (no python3, or an import that fails: missing dependencies). */
export function probePyHub(src: string): { version: string } | { reason: string } {
  const r = spawnSync(
    PYTHON,
    ['-c', 'import huggingface_hub as h; from huggingface_hub import HfApi, DatasetCard, HfFileSystem; print(h.__version__)'],
    {
      env: baseEnv(src, '/nonexistent'),
      encoding: 'utf8',
      timeout: 60_000,
    },
  )
  if (r.error) return { reason: `${PYTHON} cannot be run (${r.error.message})` }
  if (r.status !== 0) return { reason: `huggingface_hub from ${src} does not import with ${PYTHON}: ${r.stderr.trim().split('\n').pop()}` }
  return { version: r.stdout.trim() }
}

function baseEnv(src: string, home: string): NodeJS.ProcessEnv {
  return {
    PATH: '/usr/bin:/bin',
    HOME: home,
    HF_HOME: join(home, 'hf'),
    PYTHONPATH: src,
    PYTHONNOUSERSITE: '1',
    // never write bytecode into the client's source folder
    PYTHONDONTWRITEBYTECODE: '1',
    HF_HUB_DISABLE_PROGRESS_BARS: '1',
    HF_HUB_DISABLE_TELEMETRY: '1',
    // the client's 10 s defaults, raised: a loaded test machine must not turn into a failure
    HF_HUB_ETAG_TIMEOUT: '120',
    HF_HUB_DOWNLOAD_TIMEOUT: '120',
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  }
}

export interface PyRun {
  status: number | null
  /** the names of the checks that printed `ok <name>` */
  ok: Set<string>
  output: string
}

/**
 * Runs `test/interop/<script>` with the spec as a JSON file, against the Hub at
 * `endpoint`, in its own HOME; asynchronous, as the Hub it talks to runs in this process.
 */
export async function runPyScript(o: {
  src: string
  script: string
  spec: unknown
  home: string
  endpoint: string
  token: string
  args?: string[]
  env?: NodeJS.ProcessEnv
}): Promise<PyRun> {
  const specPath = join(o.home, `${o.script}.spec.json`)
  await writeFile(specPath, JSON.stringify(o.spec))
  const env = { ...baseEnv(o.src, o.home), HF_ENDPOINT: o.endpoint, HF_TOKEN: o.token, ...o.env }
  return new Promise((ok, ko) => {
    const child = spawn(PYTHON, [join(SCRIPTS, o.script), specPath, ...(o.args ?? [])], { cwd: SCRIPTS, env })
    let stdout = ''
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d
      output += d
    })
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d))
    // bounded: a hung client fails the test instead of stalling the suite
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000)
    child.on('error', ko)
    child.on('close', (status) => {
      clearTimeout(timer)
      const passed = stdout
        .split('\n')
        .filter((l) => l.startsWith('ok '))
        .map((l) => l.slice(3))
      ok({ status, ok: new Set(passed), output })
    })
  })
}
