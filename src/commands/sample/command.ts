import { Command } from 'commander';
import { runHandler, type RunState } from '../common/runner.js';
import { collectValues, oneOf, parseHttpUrl, wholeNumber } from '../common/options.js';
import { FLAG_BOUNDS } from '../../bounds-flags.js';
import { EVENT_TYPES, type EventType } from '../../spec/constants.js';
import { declareCommand } from '../common/list.js';
import type { SampleOptions, Target } from './action.js';

const EXAMPLES = `
Values given to --set are used as JSON when they parse as JSON (4, true, null, {"a":1}, "\\"quoted\\""),
otherwise as text. An override (--set, --unset, --lead-id, --branch-code …) that makes the document
invalid is reported on stderr (exit 0); with --strict it is an error (exit 1) and nothing is printed.

Examples:
  $ cai sample job --callback-url https://platform.example/cai/events
  $ cai sample event appointment.booked --lead-id lead_123 --set service="Dental check-up"
  $ cai sample event conversation.message --unset text --set direction=inbound --set author=contact
  $ cai sample event job.closed --count 1000 > events.ndjson`;

export function registerSample(program: Command, state: RunState): void {
  const sample = declareCommand(program, 'sample').addHelpText('after', EXAMPLES);
  const run = (target: Target, options: SampleOptions, cmd: Command) =>
    runHandler(state, cmd, async (context) => (await import('./action.js')).runSample(target, options, context));
  const declare = (name: string, description: string, help = EXAMPLES) =>
    sample.command(name).description(description).addHelpText('after', help);
  addCommon(
    declare('job', 'a contact job (§2.2), the Interface A request body')
      .option('--callback-url <url>', 'callback_url (default: https://platform.example/cai/events)', parseHttpUrl)
      .option('--branch-code <code>', 'branch_code (default: BR-001)'),
  ).action((options: SampleOptions, cmd: Command) => run({ kind: 'job' }, options, cmd));
  addCommon(
    declare('event', 'an Interface B event (§2.4–2.7)').argument(
      '<type>',
      `the event type: ${EVENT_TYPES.join(', ')}`,
      oneOf(EVENT_TYPES),
    ),
  )
    .option('--lead-id <id>', 'the lead_id of the job the event belongs to (default: a fresh one)')
    .option('--provider-job-id <id>', 'the provider_job_id (conversation.message)')
    .option('--branch-code <code>', 'branch_code (appointment events)')
    .action((type: EventType, options: SampleOptions, cmd: Command) => run({ kind: 'event', type }, options, cmd));
  const ackExamples =
    '\nExamples:\n  $ cai sample ack\n  $ cai sample ack --set assigned_number_e164=+34911000111 --compact';
  addCommon(declare('ack', 'a job acknowledgment (§2.3), the Interface A 202 body', ackExamples)).action(
    (options: SampleOptions, cmd: Command) => run({ kind: 'ack' }, options, cmd),
  );
  addCommon(
    declare(
      'duplicate-ack',
      'the duplicate acknowledgment (§2.13)',
      '\nExamples:\n  $ cai sample duplicate-ack --compact',
    ),
  ).action((options: SampleOptions, cmd: Command) => run({ kind: 'duplicate-ack' }, options, cmd));
}

/** The flags of every sample: overrides, the count, the layout, and how an invalid override is taken. */
function addCommon(command: Command): Command {
  return command
    .option('--set <path=value>', 'set a field (dotted path); repeatable', collectValues)
    .option('--unset <path>', 'remove a field (dotted path); repeatable', collectValues)
    .option(
      '--count <n>',
      'print N documents, one a line (NDJSON), each with fresh ids',
      wholeNumber(1, FLAG_BOUNDS.count),
      1,
    )
    .option('--compact', 'print a single document on one line')
    .option('--strict', 'refuse (exit 1) instead of warning when the overrides make the document invalid');
}
