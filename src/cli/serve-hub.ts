import { JevError } from '../errors.ts'
import { type HubRequest, type HubServer, startHubServer } from '../hub-server/index.ts'
import { type Io, isMain, parseCli, runMain, stdio } from './run.ts'

const USAGE = `usage: npm run serve-hub -- [--port P] [--mirror DIR] [--store DIR] [--host 127.0.0.1] [--require-token] [--log] [--debug]
  A local Hugging Face Hub on the loopback interface, for any client pointed at it with HF_ENDPOINT=http://127.0.0.1:P.
  --port P          port to listen on (default 0: any free port, printed)
  --mirror DIR      serve DIR/datasets/<owner>/<name>/<path> read-only (e.g. ../shared/hub-mirror)
  --store DIR       keep repos created through the API in DIR (default: in memory, gone on exit)
  --host HOST       127.0.0.1 (default), ::1 or localhost; other addresses are refused
  --require-token   accept only requests carrying this process's HF_TOKEN (never printed)
  --log             print one line per request (method and path; never headers)`

export const SERVE_OPTIONS = {
  port: { type: 'string', default: '0' },
  mirror: { type: 'string' },
  store: { type: 'string' },
  host: { type: 'string', default: '127.0.0.1' },
  'require-token': { type: 'boolean', default: false },
  log: { type: 'boolean', default: false },
} as const
export const parseServe = (argv: string[], io: Io) => parseCli(argv, SERVE_OPTIONS, USAGE, 0, io)

/** Starts the server for parsed options and says where it is; `close()` stops it. */
export async function startServe(values: NonNullable<ReturnType<typeof parseServe>>['values'], env: NodeJS.ProcessEnv, io: Io): Promise<HubServer> {
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new JevError('USAGE', `--port must be 0..65535, got ${JSON.stringify(values.port)}`)
  if (values['require-token'] && !env.HF_TOKEN) throw new JevError('USAGE', '--require-token needs HF_TOKEN set in the environment of serve-hub')
  const server = await startHubServer({
    port,
    host: values.host as string,
    ...(values.mirror ? { root: values.mirror as string } : {}),
    ...(values.store ? { store: values.store as string } : {}),
    ...(values['require-token'] ? { token: env.HF_TOKEN } : {}),
    ...(values.log ? { onRequest: (r: HubRequest) => io.out(`${r.method} ${r.url.split('?')[0]}`) } : {}),
  }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'EADDRINUSE' || e.code === 'EACCES') throw new JevError('IO', `cannot listen on port ${port}: ${e.code}`)
    throw e
  })
  io.out(`local Hub at ${server.url}`)
  io.out(`  mirror (read-only): ${values.mirror ?? '(none)'}`)
  io.out(`  store (writable):   ${values.store ?? '(memory; lost on exit)'}`)
  io.out(`use it with: HF_ENDPOINT=${server.url}`)
  return server
}

/** Starts the server and resolves when it has closed (SIGINT/SIGTERM, or `stop` for tests). */
export async function serveHubCli(argv: string[], env: NodeJS.ProcessEnv, io: Io, stop?: Promise<void>): Promise<number> {
  const parsed = parseServe(argv, io)
  if (!parsed) return 0
  const server = await startServe(parsed.values, env, io)
  await (stop ??
    new Promise<void>((ok) => {
      process.once('SIGINT', () => ok())
      process.once('SIGTERM', () => ok())
    }))
  await server.close()
  io.out('local Hub stopped')
  return 0
}

if (isMain(import.meta.url)) {
  await runMain(() => serveHubCli(process.argv.slice(2), process.env, stdio))
}
