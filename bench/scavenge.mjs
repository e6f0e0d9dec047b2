// Why the ×100 build grows faster than its rows, without the builder: the same
// short-lived allocations, run while the heap holds more and more long-lived
// small objects (as a build holds its candidates). V8's young-generation
// collections (scavenges) then each take longer, although they free the same
// amount, so GC time grows with rows × held heap. The same items held as one
// flat string each, or in Buffers outside the heap, cost the scavenger far less.
//   node bench/scavenge.mjs            one process per size and form, prints a table
import { spawnSync } from 'node:child_process'
import { constants, PerformanceObserver } from 'node:perf_hooks'

const SIZES = [0, 2e6, 4e6, 8e6, 12e6]
const FORMS = ['objects', 'strings', 'buffers']

if (process.argv[2] === undefined) {
  console.log('held as     items   heap MB   scavenges   ms each   workload ms')
  for (const form of FORMS)
    for (const n of form === 'objects' ? SIZES : SIZES.slice(1)) {
      const r = spawnSync(process.execPath, ['--expose-gc', new URL(import.meta.url).pathname, String(n), form], { encoding: 'utf8' })
      if (r.status !== 0) throw new Error(r.stderr)
      const { held, heapMb, scavenges, scavengeMs, ms } = JSON.parse(r.stdout)
      console.log(
        form.padEnd(8),
        String(held).padStart(9),
        heapMb.toFixed(0).padStart(9),
        String(scavenges).padStart(11),
        (scavengeMs / scavenges).toFixed(1).padStart(9),
        ms.toFixed(0).padStart(13),
      )
    }
} else {
  const n = Number(process.argv[2])
  const form = process.argv[3] ?? 'objects'
  // in chunks, as a build's maps and arrays hold them, each with a few strings
  const held = []
  let chunk = []
  for (let i = 0; i < n; i++) {
    if (chunk.length === 10_000) held.push((chunk = []))
    else if (i === 0) held.push(chunk)
    if (form === 'objects') chunk.push({ id: `q${i}`, options: [`a${i}`, `b${i}`], row: i })
    // join makes one flat string; + would make a tree of pieces
    else chunk.push([`q${i}`, `a${i}`, `b${i}`, i].join('\u0000'))
  }
  // a chunk's items packed into one Buffer, which the collector does not look into
  if (form === 'buffers') for (let c = 0; c < held.length; c++) held[c] = Buffer.from(held[c].join('\u0001'))
  // what is held, without the garbage of making it
  globalThis.gc?.()
  const heapMb = process.memoryUsage().heapUsed / 2 ** 20
  let scavenges = 0
  let scavengeMs = 0
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        scavenges++
        scavengeMs += e.duration
      }
  })
  obs.observe({ entryTypes: ['gc'] })
  // the workload: 3 M short-lived objects, one in ten kept for a while
  const start = performance.now()
  let keep = []
  for (let r = 0; r < 3e6; r++) {
    const o = { p: `t${r}`, pair: [r, r + 1] }
    if (r % 10 === 0) keep.push(o)
    if (keep.length > 1e5) keep = []
  }
  const ms = performance.now() - start
  // gc entries are delivered asynchronously
  setTimeout(() => {
    obs.disconnect()
    process.stdout.write(JSON.stringify({ held: n, heapMb, scavenges, scavengeMs, ms, kept: held.length + keep.length }))
  }, 50)
}
