/**
 * `cai trigger <flow>`: the events a provider sends for a whole flow (Interface B: a conversation then a booking, a
 * reschedule, a cancellation, job.closed with each outcome), signed and paced, to a platform's events endpoint; or
 * (`job`, Interface A) one contact job to a provider, with its conversation shown as the provider sends it back.
 * The flows are data (src/send/flows.ts); the sending is src/send/trigger.ts and src/send/trigger-job.ts, loaded
 * inside the action (action.ts, loaded when the command runs); the lines are lines.ts. The flags are declared here.
 */
import { addFlags } from '../common/flags.js';
import { Option, type Command } from 'commander';
import { durationOption, nonEmpty, parseHostPort } from '../common/options.js';
import { runHandler, type RunState } from '../common/runner.js';
import { addTransportOptions } from '../common/send-options.js';
import { declareCommand } from '../common/list.js';
import type { TriggerOptions } from './action.js';
import { TRIGGER_HINTS } from './hints.js';

export function registerTrigger(program: Command, state: RunState): void {
  const command = declareCommand(program, 'trigger')
    .argument('[flow]', 'the flow to send (cai trigger --list names them)')
    .option('--list', 'list the flows and what each sends');
  addFlags(command, {
    to: 'B: the events URL (§4.2); job: the provider endpoint (/contact-jobs is appended, §4.1)',
    provider: "B: the X-CAI-Provider header (§4.2); job: the code the provider's events must carry (§5.6)",
    source: 'job: the X-CAI-Source header, the platform id (§4.1)',
  })
    .option(
      '--lead-id <id>',
      'the lead_id of every event (B) or of the job (default: a fresh one)',
      nonEmpty('a lead_id such as lead_4f1c2a'),
    )
    .option(
      '--branch-code <code>',
      'the branch_code of the appointment events (B) or of the job (a code from the deployment catalog)',
      nonEmpty('a branch_code from the deployment catalog, such as BR-001'),
    )
    .addOption(durationOption('--pace <duration>', 'B: the pause between an answer and the next event', '1s'))
    .addOption(
      new Option('--listen <host:port>', "job: where the listener of the provider's events listens")
        .argParser(parseHostPort)
        .default({ host: '127.0.0.1', port: 0 }, '127.0.0.1:0'),
    );
  addFlags(command, {
    publicUrl:
      "job: the address the provider reaches the listener at (a tunnel), when not its own; the job's callback_url is it with /events appended",
  })
    .addOption(
      durationOption(
        '--wait <duration>',
        "job: how long the provider's events are waited for, from the job's acceptance",
        '10m',
      ),
    )
    .addOption(
      durationOption(
        '--observe <duration>',
        'job: after an appointment or job.closed, how long nothing more must come for the conversation to be over',
        '10s',
      ),
    );
  addTransportOptions(command);
  addFlags(command, {
    secret: 'signing secret: B the events secret, job the jobs secret (default: $CAI_SECRET)',
    callbackSecret: "job: the events secret, to verify the provider's events (default: $CAI_CALLBACK_SECRET)",
  });
  command.addHelpText(
    'after',
    `
Exit codes: 0 every event accepted (job: the job accepted and its first contact within the 5 min of §8), 1 an event
or the job rejected, or the flow stopped before its end (job: no first contact in time, or an event of the
provider's refused), 2 usage, 3 delivery failed.

Examples:
  $ cai trigger --list
  $ cai trigger appointment-booked --to http://127.0.0.1:8787/events \\
      --provider acme --secret-env CAI_SECRET
  $ cai trigger job-closed-no-answer --to https://platform.example/cai/events \\
      --provider acme --secret-env CAI_EVENTS_SECRET --pace 200ms --json
  $ cai trigger job --to http://127.0.0.1:8788 --source platform-eu --provider acme \\
      --secret-env CAI_JOBS_SECRET --callback-secret-env CAI_EVENTS_SECRET`,
  );
  command.action(async (name: string | undefined, options: TriggerOptions, cmd: Command) => {
    await runHandler(
      state,
      cmd,
      async (context) => (await import('./action.js')).runTrigger(name, options, cmd, context),
      TRIGGER_HINTS,
    );
  });
}
