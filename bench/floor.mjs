// The floor a build is compared with: only read the recipe's source files and
// hash them (`read`), or only decode them to rows (`decode`). Plain JS, no tsx.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'

const [mode, recipePath, mirror] = process.argv.slice(2)
const recipe = JSON.parse(readFileSync(recipePath, 'utf8'))
let rows = 0
for (const source of recipe.sources) {
  for (const paths of Object.values(source.files)) {
    for (const path of paths) {
      const bytes = readFileSync(join(mirror, 'datasets', source.repo, path))
      if (mode === 'read') {
        createHash('sha256').update(bytes).digest('hex')
        continue
      }
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
      rows += (await parquetReadObjects({ file: buffer, compressors })).length
    }
  }
}
if (mode === 'decode') process.stdout.write(`${rows} rows\n`)
