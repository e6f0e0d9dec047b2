// Why the ×100 build grows faster than its rows, without the builder: the same
// short-lived allocations, run while the heap holds more and more long-lived
// small objects (as a build holds its candidates). V8's young-generation
// collections (scavenges) then each take longer, although they free the same
// amount, so GC time grows with rows × held heap.
//   node bench/scavenge.mjs            one process per size, prints a table
import { spawnSync } from 'node:child_process'
import { PerformanceObserver, constants } from 'node:perf_hooks'

const SIZES = [0, 2e6, 4e6, 8e6, 12e6]

if (process.argv[2] === undefined) {
  console.log('held objects   heap MB   scavenges   ms each   workload ms')
  for (const n of SIZES) {
    const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, String(n)], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(r.stderr)
    const { held, heapMb, scavenges, scavengeMs, ms } = JSON.parse(r.stdout)
    console.log(
      String(held).padStart(12),
      heapMb.toFixed(0).padStart(9),
      String(scavenges).padStart(11),
      (scavengeMs / scavenges).toFixed(1).padStart(9),
      ms.toFixed(0).padStart(13),
    )
  }
} else {
  const n = Number(process.argv[2])
  // in chunks, as a build's maps and arrays hold them, each with a few strings
  const held = []
  let chunk = []
  for (let i = 0; i < n; i++) {
    if (chunk.length === 10_000) held.push((chunk = []))
    else if (i === 0) held.push(chunk)
    chunk.push({ id: `q${i}`, options: [`a${i}`, `b${i}`], row: i })
  }
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
