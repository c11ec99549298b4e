import type { Command } from 'commander';
import { runHandler, type RunState } from '../cli/runner.js';
import { addSendOptions, refuseIdleFlags, type SendOptions } from './send-shared.js';

export function registerSendJob(program: Command, state: RunState): void {
  const command = program
    .command('send-job')
    .description('Send a signed contact job to a provider (Interface A, §4.1) with the retry policy of §7, and check the acknowledgment (§2.3)');
  addSendOptions(command, 'job');
  command.addHelpText(
    'after',
    `
Exit codes: 0 accepted, 1 rejected (a 4xx, or a 202 whose acknowledgment breaks §2.3), 2 usage, 3 delivery failed.

Examples:
  $ cai send-job --to https://provider.example/cai --source platform --secret-env CAI_JOBS_SECRET --body job.json
  $ cai send-job --to http://127.0.0.1:8788 --source platform --sample --set contact.name="Ana Sousa"
  $ cai send-job --to https://provider.example/cai --source platform --sample --dry-run --format curl
  $ cai send-job --to https://provider.example/cai --source platform --ndjson jobs.ndjson --output results.ndjson
  $ cai send-job --print-schedule --retry-for 24h`,
  );
  command.action(async (options: SendOptions, cmd: Command) => {
    // A deployment profile supplies --callback-url and --branch-code as defaults for samples; they must not refuse a --body send.
    if (!options.sample) {
      if (cmd.getOptionValueSource('callbackUrl') === 'config') delete options.callbackUrl;
      if (cmd.getOptionValueSource('branchCode') === 'config') delete options.branchCode;
    }
    await runHandler(state, cmd, async (context) => {
      refuseIdleFlags(options, cmd);
      const { runSend } = await import('./send-run.js');
      return runSend('job', options, context);
    });
  });
}
