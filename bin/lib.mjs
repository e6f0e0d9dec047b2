// The library's entry (package.json "exports"): src/index.ts's functions, from
// dist/ when it was compiled from the src/ there is now, otherwise from src/
// through tsx — the same choice bin/jev.mjs makes for the CLIs.
import { fileURLToPath, pathToFileURL } from 'node:url'
import { entryFor } from './src-hash.mjs'

const lib = await import(pathToFileURL(await entryFor(fileURLToPath(new URL('..', import.meta.url)), 'index')).href)

export const { buildDataset, checkDataset, verifyDataset, diffDatasets, publishDataset, serveHub, JevError, isJevError, ERROR_CODES } = lib
export const { terminalProgress, progressFor, NO_PROGRESS } = lib
export const { BuildOptions, CheckOptions, VerifyOptions, DiffOptions, PublishOptions, ServeOptions } = lib
