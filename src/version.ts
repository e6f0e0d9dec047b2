import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The package's own folder, wherever it is installed: the nearest folder above this module with a package.json
 * (src/ and dist/ sit right below it; the tests' compiled copy one level deeper).
 */
export const PACKAGE_ROOT = nearestPackage(dirname(fileURLToPath(import.meta.url)))

function nearestPackage(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`)
  }
}

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string }

/** The builder's identity as the manifest records it. */
export const BUILDER = { name: pkg.name, version: pkg.version } as const

/** The recipe a command reads when none is named: the package's own, from any working folder. */
export const DEFAULT_RECIPE = join(PACKAGE_ROOT, 'recipes', 'jev-bench.json')
