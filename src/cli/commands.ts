/** The commands `jev` runs, by name; each module is loaded only when its command runs. */
import type { Io } from './run.ts'

export type Cli = (argv: string[], env: NodeJS.ProcessEnv, io: Io) => Promise<number>

export const COMMANDS: Record<string, () => Promise<Cli>> = {
  'build-dataset': async () => (await import('./build-dataset.ts')).buildDatasetCli,
  'check-dataset': async () => (await import('./check-dataset.ts')).checkDatasetCli,
  'compare-builds': async () => (await import('./compare-builds.ts')).compareBuildsCli,
  'compare-results': async () => (await import('./compare-results.ts')).compareResultsCli,
  'diff-dataset': async () => (await import('./diff-dataset.ts')).diffDatasetCli,
  'eval-model': async () => (await import('./eval-model.ts')).evalModelCli,
  judge: async () => (await import('./judge.ts')).judgeCli,
  'publish-dataset': async () => (await import('./publish-dataset.ts')).publishDatasetCli,
  'recipe-schema': async () => (await import('./recipe-schema.ts')).recipeSchemaCli,
  screen: async () => (await import('./screen.ts')).screenCli,
  'serve-hub': async () => (await import('./serve-hub.ts')).serveHubCli,
  'verify-dataset': async () => (await import('./verify-dataset.ts')).verifyDatasetCli,
}
