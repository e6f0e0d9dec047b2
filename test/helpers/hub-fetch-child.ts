/**
 * Fetches files through createHubFetcher in its own process, for cache-concurrency tests:
 *   node --import tsx test/helpers/hub-fetch-child.ts <endpoint> <cacheDir> '<json [[repo, revision, path], ...]>'
 * Prints one JSON line: [{ path, sha256, commit }, ...]; its log lines go to stderr; on failure
 * it prints `error[CODE]: message` to stderr and exits 1.
 */
import { isJevError } from '../../src/errors.ts'
import { createHubFetcher } from '../../src/fetch/hub.ts'
import { pollSleep } from './hub-rig.ts'

const [endpoint, cacheDir, list] = process.argv.slice(2)
if (!endpoint || !cacheDir || !list) {
  process.stderr.write('usage: hub-fetch-child.ts <endpoint> <cacheDir> <json list>\n')
  process.exit(2)
}
// Short lock polls: the test is bounded by the downloads, not the poll interval.
const hub = createHubFetcher({
  endpoint,
  cacheDir,
  sleep: pollSleep,
  log: (l) => process.stderr.write(`${l}\n`),
  ...(process.env.HF_TOKEN ? { token: process.env.HF_TOKEN } : {}),
})
const files = JSON.parse(list) as Array<[string, string, string]>
try {
  const got = await Promise.all(files.map(([repo, revision, path]) => hub.fetchFile(repo, revision, path)))
  process.stdout.write(`${JSON.stringify(got.map((f) => ({ path: f.path, sha256: f.sha256, commit: f.commit })))}\n`)
} catch (e) {
  process.stderr.write(isJevError(e) ? `error[${e.code}]: ${e.message}\n` : `${String(e)}\n`)
  process.exit(1)
}
