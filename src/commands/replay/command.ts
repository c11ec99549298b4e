/**
 * `cai replay`: a captured raw HTTP request sent again (src/send/replay.ts), with the transport, retry and dry-run
 * flags of the sending commands, and their rendering.
 */
import { addFlags } from '../common/flags.js';
import type { Command } from 'commander';

import { runHandler, type RunState } from '../common/runner.js';
import { addTransportOptions } from '../common/send-options.js';
import { declareCommand } from '../common/list.js';
import type { ReplayOptions } from './action.js';

export function registerReplay(program: Command, state: RunState): void {
  const command = declareCommand(program, 'replay').option(
    '--request <file>',
    'the captured request (request line, headers, blank line, body), as `cai verify --request` reads it',
  );
  addFlags(command, { to: "where to send it; a URL without a path takes the captured request's path" }).option(
    '--keep-timestamp',
    'send the captured X-CAI-Timestamp and X-CAI-Signature unchanged (to test staleness on purpose, §5.5)',
  );
  addTransportOptions(command);
  addFlags(command, {
    secret: "signing secret of the request's direction (default: $CAI_SECRET); not needed with --keep-timestamp",
  });
  command.addHelpText(
    'after',
    `
Exit codes: 0 accepted, 1 rejected, 2 usage, 3 delivery failed.

Examples:
  $ cai replay --request captured.http --to http://127.0.0.1:8787 --secret-env CAI_SECRET
  $ cai replay --request captured.http --to https://platform.example/cai/events --keep-timestamp
  $ cai replay --request captured.http --to http://127.0.0.1:8787 --dry-run`,
  );
  command.action(async (options: ReplayOptions, cmd: Command) => {
    await runHandler(state, cmd, async (context) => (await import('./action.js')).runReplay(options, context));
  });
}
