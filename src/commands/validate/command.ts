import type { Command } from 'commander';
import { runHandler, type RunState } from '../common/runner.js';
import { declareCommand } from '../common/list.js';
import type { ValidateCommandOptions } from './action.js';

export function registerValidate(program: Command, state: RunState): void {
  declareCommand(program, 'validate')
    .argument('[kind]', 'job, event, ack, duplicate-ack, or auto (default: decide by shape)')
    .argument('[files...]', 'JSON files; - or none reads stdin; .ndjson/.jsonl files are one document a line')
    .option('--ndjson', 'one document a line, streamed in constant memory (every message names its line)')
    .option('--strict', 'also list fields the spec does not define, as warnings (§9.2 accepts them)')
    .option('--catalog <file>', 'branch catalog, a JSON list of {branch_code, name}: other branch codes are errors')
    .addHelpText(
      'after',
      `
Exit status: 0 every document valid, 1 any invalid, 2 unreadable or empty input, or bad usage.
Warnings (fields a type usually carries where the spec says "not shown", unknown fields with --strict)
never make a document invalid.

Examples:
  $ cai validate job.json
  $ cai validate event events/*.json
  $ cai sample event job.closed | cai validate
  $ cai validate --ndjson --strict --catalog branches.json events.ndjson
  $ cai validate --json event.json | jq '.documents[].errors'`,
    )
    .action(async (kind: string | undefined, files: string[], options: ValidateCommandOptions, cmd: Command) => {
      await runHandler(state, cmd, async (context) =>
        (await import('./action.js')).runValidate(kind, files, options, context),
      );
    });
}
