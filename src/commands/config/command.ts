import type { Command } from 'commander';
import { runHandler, type RunState } from '../common/runner.js';
import { declareCommand } from '../common/list.js';
import type { GlobalConfigFlags } from './action.js';

export function registerConfig(program: Command, state: RunState): void {
  const config = declareCommand(program, 'config').addHelpText(
    'after',
    '\nExamples:\n  $ cai config init\n  $ cai config show --env test',
  );
  for (const sub of SUBCOMMANDS)
    config
      .command(sub.name)
      .description(sub.description)
      .addHelpText('after', `\nExamples:${sub.examples.map((example) => `\n  $ ${example}`).join('')}`)
      .action(async (_options: unknown, cmd: Command) => {
        await runHandler(state, cmd, async (context) =>
          (await import('./action.js'))[sub.run](cmd.optsWithGlobals() as GlobalConfigFlags, context),
        );
      });
}

/** `show` and `init`: what each does, its examples, and its function in ./action.ts. */
const SUBCOMMANDS = [
  {
    name: 'show',
    description:
      'Print the resolved settings of the chosen environment, secrets masked, with where each value came from',
    examples: [
      'cai config show',
      'cai config show --env production',
      'cai --config deploy/cai.config.json --env test config show --json',
    ],
    run: 'runConfigShow',
  },
  {
    name: 'init',
    description: 'Write a starting cai.config.json in the working directory (never overwrites one)',
    examples: ['cai config init', 'cai config init --config deploy/cai.config.json'],
    run: 'runConfigInit',
  },
] as const;
