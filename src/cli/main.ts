#!/usr/bin/env node
/** The `jev` command: the first argument names a command, the rest are its options. */
import { COMMANDS } from './commands.ts'
import { dispatch } from './dispatch.ts'
import { runMain, stdio } from './run.ts'

await runMain(() =>
  dispatch(process.argv.slice(2), stdio, Object.keys(COMMANDS).sort(), async (command, args) => {
    // --debug prints the stack through the source maps, so that it names src/*.ts lines
    if (args.includes('--debug')) process.setSourceMapsEnabled(true)
    return (await COMMANDS[command]!())(args, process.env, stdio)
  }),
)
