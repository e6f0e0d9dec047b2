/**
 * Names of Hub repos and refs, checked in one place: a repo id a recipe may name (safe to
 * join into a mirror or cache path), a name the Hub accepts for a repo it creates, a branch or tag.
 */

/** owner/name; the owner starts with a letter or digit, the name is not "." or "..", which would leave the repo's folder in a mirror or cache. */
export const REPO_ID_RE = /^[A-Za-z0-9][\w.-]*\/(?!\.\.?$)[\w.-]+$/

export const isRepoId = (s: string): boolean => REPO_ID_RE.test(s)

/** One part of a repo name as the Hub allows it: letters, digits, `-`, `_`, `.`, up to 96, starting with a letter or digit. */
const NAME_PART_RE = /^[A-Za-z0-9][\w.-]{0,95}$/

export const isHubNamePart = (s: string): boolean => NAME_PART_RE.test(s)

/** owner/name, both parts as the Hub allows them: what publishing may create. */
export const isHubRepoName = (s: string): boolean => {
  const parts = s.split('/')
  return parts.length === 2 && parts.every(isHubNamePart)
}

/** Branch and tag names: a conservative subset of git's rules (and never `__proto__`, a key of plain objects). */
const REF_RE = /^(?!.*\.\.)(?!.*\/\/)(?!__proto__$)[A-Za-z0-9][\w.\-/]{0,199}(?<![/.])$/

export const isRefName = (s: string): boolean => REF_RE.test(s)
