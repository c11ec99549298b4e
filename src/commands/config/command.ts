import type { Command } from 'commander';
import { runHandler, type RunState } from '../common/runner.js';
import { declareCommand } from '../common/list.js';
import type { GlobalConfigFlags } from './action.js';

export function registerConfig(program: Command, state: RunState): void {
  const config = declareCommand(program, 'config').addHelpText(
    'after',
    '\nExamples:\n  $ cai config init\n  $ cai config show --env test',
  );
  config
    .command('show')
    .description(
      'Print the resolved settings of the chosen environment, secrets masked, with where each value came from',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ cai config show
  $ cai config show --env production
  $ cai --config deploy/cai.config.json --env test config show --json`,
    )
    .action(async (_options: unknown, cmd: Command) => {
      await runHandler(state, cmd, async (context) =>
        (await import('./action.js')).runConfigShow(cmd.optsWithGlobals() as GlobalConfigFlags, context),
      );
    });
  config
    .command('init')
    .description('Write a starting cai.config.json in the working directory (never overwrites one)')
    .addHelpText(
      'after',
      `
Examples:
  $ cai config init
  $ cai config init --config deploy/cai.config.json`,
    )
    .action(async (_options: unknown, cmd: Command) => {
      await runHandler(state, cmd, async (context) =>
        (await import('./action.js')).runConfigInit(cmd.optsWithGlobals() as GlobalConfigFlags, context),
      );
    });
}
