// Re-pins test/fixtures/golden.json to what the fixture build gives now:   npm run pin-golden
// Only after an intended change to the built bytes; such a change is a data change (see the README's Development section).
import { fixtureHashes, GOLDEN, readGolden, writeGolden } from '../test/helpers/golden.ts'

const before = await readGolden().catch(() => ({}) as Record<string, string>)
const now = await fixtureHashes()
await writeGolden(now)
const changed = Object.keys(now).filter((f) => before[f] !== now[f])
console.log(changed.length ? `${GOLDEN}: re-pinned ${changed.join(', ')}` : `${GOLDEN}: unchanged`)
