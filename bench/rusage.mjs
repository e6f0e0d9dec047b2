// Preloaded into a benchmarked process: reports its own peak RSS when it exits.
import { writeFileSync } from 'node:fs'

const target = process.env.BENCH_RUSAGE_FILE
if (target) process.on('exit', () => writeFileSync(target, JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS })))
