import { readFileSync } from 'node:fs'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string }

/** The builder's identity as the manifest records it. */
export const BUILDER = { name: pkg.name, version: pkg.version } as const
