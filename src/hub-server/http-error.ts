/** A failure a handler wants sent as the Hub sends it: status, `{"error": …}` and an X-Error-Code. */
export class HubHttpError extends Error {
  readonly status: number
  readonly errorCode: string | undefined

  constructor(status: number, message: string, errorCode?: string) {
    super(message)
    this.status = status
    this.errorCode = errorCode
  }
}
