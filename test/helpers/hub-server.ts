/**
 * The loopback Hub the tests use: the same server `npm run serve-hub` runs
 * (src/hub-server/), serving `<root>/datasets/<owner>/<name>/<path>` read-only
 * and accepting repo creation, uploads and tags into memory.
 */
export {
  type FaultKind,
  type HubRequest,
  type HubServer,
  type HubServerOptions,
  isWriteRequest,
  startHubServer,
} from '../../src/hub-server/index.ts'
