/** HF_TOKEN never reaches a line, a file or an error message: every scrub goes through here. */

/** What a token is shown as, wherever it would have been. */
export const TOKEN_PLACEHOLDER = '<HF_TOKEN>'

/** `text` with every occurrence of `token` replaced by `placeholder` (none when there is no token). */
export function scrubToken(text: string, token: string | undefined, placeholder: string = TOKEN_PLACEHOLDER): string {
  return token ? text.split(token).join(placeholder) : text
}

/** `text` with the environment's HF_TOKEN replaced. */
export function scrub(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return scrubToken(text, env.HF_TOKEN || undefined)
}
