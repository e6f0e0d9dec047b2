import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string }

/** The builder's identity as the manifest records it. */
export const BUILDER = { name: pkg.name, version: pkg.version } as const

/** The package's own folder (src/ and dist/ sit one level below it), wherever it is installed. */
export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The recipe a command reads when none is named: the package's own, from any working folder. */
export const DEFAULT_RECIPE = join(PACKAGE_ROOT, 'recipes', 'jev-bench.json')
