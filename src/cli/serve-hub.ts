import { JevError } from '../errors.ts'
import { type HubRequest, type HubServer, startHubServer } from '../hub-server/index.ts'
import { defineCommand } from './common/command.ts'
import { requireFolder } from './common/source-options.ts'
import type { Io } from './run.ts'

export const serveCommand = defineCommand({
  name: 'serve-hub',
  about: ['A local Hugging Face Hub on the loopback interface, for any client pointed at it with HF_ENDPOINT=http://127.0.0.1:P.'],
  options: {
    port: { type: 'string', number: true, arg: 'P', default: '0', help: 'port to listen on (0: any free port, printed)' },
    mirror: { type: 'string', arg: 'DIR', help: 'serve DIR/datasets/<owner>/<name>/<path> read-only (e.g. ../shared/hub-mirror)' },
    store: { type: 'string', arg: 'DIR', help: 'keep repos created through the API in DIR (default: in memory, gone on exit)' },
    host: { type: 'string', arg: 'HOST', default: '127.0.0.1', help: '127.0.0.1, ::1 or localhost; other addresses are refused' },
    'require-token': { type: 'boolean', default: false, help: "accept only requests carrying this process's HF_TOKEN (never printed)" },
    log: { type: 'boolean', default: false, help: 'print one line per request (method and path; never headers)' },
  },
})

export const parseServe = (argv: string[], io: Io) => serveCommand.parse(argv, io)

/** Starts the server for parsed options and says where it is; `close()` stops it. */
export async function startServe(
  values: NonNullable<ReturnType<typeof parseServe>>['values'],
  env: NodeJS.ProcessEnv,
  io: Io,
): Promise<HubServer> {
  const port = /^\d+$/.test(values.port) ? Number(values.port) : NaN
  if (!(port >= 0 && port <= 65535)) throw new JevError('USAGE', `--port must be 0..65535, got ${JSON.stringify(values.port)}`)
  if (values['require-token'] && !env.HF_TOKEN)
    throw new JevError('USAGE', '--require-token needs HF_TOKEN set in the environment of serve-hub')
  // a mirror that is not there would serve nothing but 404s, silently
  if (values.mirror) await requireFolder(values.mirror, '--mirror')
  const server = await startHubServer({
    port,
    host: values.host,
    ...(values.mirror ? { root: values.mirror } : {}),
    ...(values.store ? { store: values.store } : {}),
    ...(values['require-token'] ? { token: env.HF_TOKEN } : {}),
    ...(values.log ? { onRequest: (r: HubRequest) => io.out(`${r.method} ${r.url.split('?')[0]}`) } : {}),
  }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'EADDRINUSE')
      throw new JevError('IO', `cannot listen on port ${port}: it is in use`, {
        hint: 'stop what listens there, or choose another --port (--port 0 takes any free one)',
      })
    if (e.code === 'EACCES')
      throw new JevError('IO', `cannot listen on port ${port}: EACCES`, {
        hint: 'ports below 1024 need privileges; choose another --port (--port 0 takes any free one)',
      })
    throw e
  })
  io.out(`local Hub at ${server.url}`)
  io.out(`  mirror (read-only): ${values.mirror ?? '(none)'}`)
  io.out(`  store (writable):   ${values.store ?? '(memory; lost on exit)'}`)
  io.out(`use it with: HF_ENDPOINT=${server.url}`)
  return server
}

/** Starts the server and resolves when it has closed (SIGINT/SIGTERM, or `stop` for tests). */
/** serve-hub as a library function: a local Hub on the loopback interface, until `close()`. */
export const serveHub = serveCommand.library(({ values, env, io }) => startServe(values, env, io))

export async function serveHubCli(argv: string[], env: NodeJS.ProcessEnv, io: Io, stop?: Promise<void>): Promise<number> {
  return serveCommand.main(argv, env, io, async ({ params }, io) => {
    const server = await serveHub(params, io)
    await (stop ??
      new Promise<void>((ok) => {
        process.once('SIGINT', () => ok())
        process.once('SIGTERM', () => ok())
      }))
    await server.close()
    io.out('local Hub stopped')
    return { json: { url: server.url } }
  })
}
