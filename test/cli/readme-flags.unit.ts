/** The README's flags are the commands' flags: every declared option is documented, under its declared placeholder. */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildCommand } from '../../src/cli/build-dataset.ts'
import { checkCommand } from '../../src/cli/check-dataset.ts'
import type { Options } from '../../src/cli/common/command.ts'
import { compareBuildsCommand } from '../../src/cli/compare-builds.ts'
import { compareResultsCommand } from '../../src/cli/compare-results.ts'
import { diffCommand } from '../../src/cli/diff-dataset.ts'
import { evalCommand } from '../../src/cli/eval-model.ts'
import { judgeCommand } from '../../src/cli/judge.ts'
import { publishCommand } from '../../src/cli/publish-dataset.ts'
import { recipeSchemaCommand } from '../../src/cli/recipe-schema.ts'
import { screenCommand } from '../../src/cli/screen.ts'
import { serveCommand } from '../../src/cli/serve-hub.ts'
import { verifyCommand } from '../../src/cli/verify-dataset.ts'
import { ROOT } from '../helpers/cli.ts'

const COMMANDS = [
  buildCommand,
  checkCommand,
  compareBuildsCommand,
  compareResultsCommand,
  diffCommand,
  evalCommand,
  judgeCommand,
  publishCommand,
  recipeSchemaCommand,
  screenCommand,
  serveCommand,
  verifyCommand,
]

test('every option a command declares is in the README, and a placeholder written after it is the one --help shows', async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  const declared = new Map<string, Set<string>>()
  for (const c of COMMANDS)
    for (const [name, o] of Object.entries(c.spec.options as Options)) {
      const args = declared.get(name) ?? new Set<string>()
      if (o.type === 'string') args.add(o.arg)
      declared.set(name, args)
    }
  const written = [...readme.matchAll(/(?<![\w-])--([a-z][a-z-]*)(?: ([A-Z][A-Z_/]*)\b)?/g)]
  const names = new Set(written.map((m) => m[1]))
  for (const name of declared.keys()) assert.ok(names.has(name), `--${name} is declared but the README never names it`)
  // HEAD is a value in the examples (--rev HEAD), not a placeholder
  const wrong = written.filter(
    ([, name, arg]) => arg !== undefined && arg !== 'HEAD' && declared.get(name!)?.size && !declared.get(name!)!.has(arg),
  )
  assert.deepEqual(
    wrong.map((m) => m[0]),
    [],
    'placeholders the commands do not use',
  )
  assert.ok(
    written.some((m) => m[0] === '--min-rate N'),
    'the bounds table names --min-rate as --help does',
  )
})
