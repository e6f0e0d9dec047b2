/**
 * The Hub's view of a repo's dataset card: `POST /api/validate-yaml`, which
 * Python's huggingface_hub calls before any commit that holds a README.md, and
 * the parsed front matter (`cardData`) that repo info carries.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { parse } from 'yaml'
import { z } from 'zod'
import { checkCardYaml, frontMatter } from '../check/card.ts'
import { json, readJson } from './http.ts'
import { HubHttpError } from './http-error.ts'
import type { RepoView } from './repo.ts'

const ValidateBody = z.object({ content: z.string(), repoType: z.string().optional() })

/** 200 `{errors: [], warnings}` for a card the Hub would take; 400 with the errors otherwise. */
export async function validateYaml(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = ValidateBody.safeParse(await readJson<unknown>(req))
  if (!body.success) throw new HubHttpError(400, 'the body must be {"content": <README text>, "repoType": "dataset"}')
  if ((body.data.repoType ?? 'model') !== 'dataset')
    throw new HubHttpError(400, 'this local Hub holds dataset repos only (repoType: "dataset")')
  const { errors, warnings } = checkCardYaml(body.data.content.replace(/\r\n/g, '\n'))
  const list = (xs: string[]) => xs.map((message) => ({ message }))
  json(res, { errors: list(errors), warnings: list(warnings) }, errors.length ? 400 : 200)
}

/** The README.md front matter at a commit as plain data; absent when there is none or it is not a YAML mapping. */
export async function cardDataOf(view: RepoView, commit: string): Promise<Record<string, unknown> | undefined> {
  const f = await view.file(commit, 'README.md')
  const fm = f ? frontMatter((await f.read()).toString('utf8').replace(/\r\n/g, '\n')) : null
  if (fm === null) return undefined
  try {
    const data = parse(fm, { schema: 'core' }) as unknown
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
