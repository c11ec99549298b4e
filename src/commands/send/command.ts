/**
 * `cai send-job` (Interface A, §4.1) and `cai send-event` (Interface B, §4.2): one command for the two directions. Here
 * the flags (most in src/commands/common/send-options.ts, shared with replay and trigger) and the help; the action is
 * action.ts, loaded when the command runs (START-UP RULE: `cai --help` and the other commands do not pay for it or for
 * undici), with its views beside it and src/send underneath.
 */
import type { Command } from 'commander';
import { runHandler, type RunState } from '../common/runner.js';
import { SEND_HINTS } from './hints.js';
import { addSendOptions, refuseIdleFlags, type SendOptions } from '../common/send-options.js';
import { declareCommand } from '../common/list.js';
import type { SendKind } from '../../http/send.js';

/** The help after the flags of each: its exit codes and examples (and the event types of --sample). */
const HELP: Readonly<Record<SendKind, string>> = {
  job: `
Exit codes: 0 accepted, 1 rejected (a 4xx, or a 202 whose acknowledgment breaks §2.3), 2 usage, 3 delivery failed.

Examples:
  $ cai send-job --to https://provider.example/cai --source platform --secret-env CAI_JOBS_SECRET --body job.json
  $ cai send-job --to http://127.0.0.1:8788 --source platform --sample --set contact.name="Ana Sousa"
  $ cai send-job --to https://provider.example/cai --source platform --sample --dry-run --format curl
  $ cai send-job --to https://provider.example/cai --source platform --ndjson jobs.ndjson --output results.ndjson
  $ cai send-job --print-schedule --retry-for 24h`,
  event: `
Event types for --sample: conversation.message (default), appointment.booked, appointment.rescheduled,
appointment.cancelled, job.closed.

Exit codes: 0 accepted (new or duplicate), 1 rejected (a 4xx, or a 2xx that breaks §2.13), 2 usage, 3 delivery failed.

Examples:
  $ cai send-event --to https://platform.example/cai/events --provider acme --secret-env CAI_EVENTS_SECRET --body event.json
  $ cai send-event --to http://127.0.0.1:8787/events --provider acme --sample job.closed --set outcome=opted_out
  $ cai send-event --to https://platform.example/cai/events --provider acme --body event.json --retry-for 24h --json
  $ cai send-event --to https://platform.example/cai/events --provider acme --ndjson events.ndjson \\
      --concurrency 16 --rate 50/s --output results.ndjson
  $ cai send-event --to https://platform.example/cai/events --provider acme --ndjson events.ndjson \\
      --resume results.ndjson --output results.ndjson`,
};

/** `send-job` or `send-event`, as the registry loads it. */
export function registerSend(kind: SendKind): (program: Command, state: RunState) => void {
  return (program, state) => {
    const name = kind === 'job' ? 'send-job' : 'send-event';
    const command = declareCommand(program, name);
    addSendOptions(command, kind);
    command.addHelpText('after', HELP[kind]);
    command.action(async (options: SendOptions, cmd: Command) => {
      // A deployment profile supplies a job's --callback-url and --branch-code as defaults for samples; they must
      // not refuse a --body send.
      if (!options.sample) {
        if (cmd.getOptionValueSource('callbackUrl') === 'config') delete options.callbackUrl;
        if (cmd.getOptionValueSource('branchCode') === 'config') delete options.branchCode;
      }
      await runHandler(
        state,
        cmd,
        async (context) => {
          refuseIdleFlags(options, cmd);
          return (await import('./action.js')).runSend(kind, options, context);
        },
        SEND_HINTS,
      );
    });
  };
}
