import type { Command } from 'commander';
import { runHandler, type RunState } from '../cli/runner.js';
import { addSendOptions, refuseIdleFlags, type SendOptions } from './send-shared.js';

export function registerSendEvent(program: Command, state: RunState): void {
  const command = program
    .command('send-event')
    .description('Send a signed event to the platform (Interface B, §4.2) with the retry policy of §7, and say whether it counted as new or duplicate (§2.13)');
  addSendOptions(command, 'event');
  command.addHelpText(
    'after',
    `
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
  );
  command.action(async (options: SendOptions, cmd: Command) => {
    await runHandler(state, cmd, async (context) => {
      refuseIdleFlags(options, cmd);
      const { runSend } = await import('./send-run.js');
      return runSend('event', options, context);
    });
  });
}
