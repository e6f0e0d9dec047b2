// The floor a build is compared with: only read every file the recipe's build reads (its source files and the
// training files of `contamination.against` the mirror has) and hash them (`read`), or only decode them to rows
// (`decode`). Plain JS, no tsx.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'

const [mode, recipePath, mirror] = process.argv.slice(2)
const recipe = JSON.parse(readFileSync(recipePath, 'utf8'))
const files = [
  ...recipe.sources.flatMap((s) =>
    Object.values(s.files)
      .flat()
      .map((path) => join(mirror, 'datasets', s.repo, path)),
  ),
  // an optional training file the mirror lacks is one the build does not read either
  ...(recipe.contamination?.against ?? []).map((t) => join(mirror, 'datasets', t.repo, t.path)).filter((f) => existsSync(f)),
]
let rows = 0
for (const file of files) {
  const bytes = readFileSync(file)
  if (mode === 'read') {
    createHash('sha256').update(bytes).digest('hex')
    continue
  }
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  rows += (await parquetReadObjects({ file: buffer, compressors })).length
}
if (mode === 'decode') process.stdout.write(`${files.length} files, ${rows} rows\n`)
