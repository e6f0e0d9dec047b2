// The download term of the cold verify's floor: fetch each of the recipe's
// source files from a Hub endpoint with node's plain fetch (redirects
// followed, bodies read to the end, nothing checked or written). Plain JS, no tsx.
//   node bench/fetch-floor.mjs RECIPE ENDPOINT
import { readFileSync } from 'node:fs'

const [recipePath, endpoint] = process.argv.slice(2)
const recipe = JSON.parse(readFileSync(recipePath, 'utf8'))
let bytes = 0
for (const source of recipe.sources)
  for (const paths of Object.values(source.files))
    for (const path of paths) {
      const res = await fetch(`${endpoint}/datasets/${source.repo}/resolve/${source.revision}/${path}`)
      if (!res.ok) throw new Error(`${source.repo} ${path}: HTTP ${res.status}`)
      bytes += (await res.arrayBuffer()).byteLength
    }
process.stdout.write(`${bytes} bytes\n`)
