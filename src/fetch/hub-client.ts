/**
 * The Hub client, loaded on first use: a build from a mirror never needs it
 * (~40 ms of start-up). Errors can only be the client's once it is loaded.
 */
type HubLib = typeof import('@huggingface/hub')

let loaded: HubLib | undefined

export async function hubClient(): Promise<HubLib> {
  return (loaded ??= await import('@huggingface/hub'))
}

export function isHubApiError(e: unknown): e is import('@huggingface/hub').HubApiError {
  return loaded !== undefined && e instanceof loaded.HubApiError
}

export function isInvalidApiResponse(e: unknown): boolean {
  return loaded !== undefined && e instanceof loaded.InvalidApiResponseFormatError
}
