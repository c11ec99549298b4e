import type { Command } from 'commander';
import { runHandler, type RunState } from '../common/runner.js';
import { DOCTOR_HINTS } from './hints.js';
import { durationOption, interfaceOption, parseHttpUrl } from '../common/options.js';
import { declareCommand } from '../common/list.js';
import type { DoctorOptions } from './action.js';

export function registerDoctor(program: Command, state: RunState): void {
  declareCommand(program, 'doctor')
    .option(
      '--to <url>',
      "the URL to probe (default: the environment's provider_endpoint/contact-jobs and events_url)",
      parseHttpUrl,
    )
    .addOption(interfaceOption('check only interface A (contact jobs) or B (events)'))
    .addOption(durationOption('--timeout <duration>', 'time allowed for each network step', '5s', true))
    .option('--ca <file>', "also trust this CA certificate (PEM), e.g. a test environment's own")
    .addHelpText(
      'after',
      `
Examples:
  $ cai doctor
  $ cai doctor --env test
  $ cai doctor --env production --interface B
  $ cai doctor --to https://provider.example/cai/contact-jobs --ca test-ca.pem
  $ cai doctor --env test --json`,
    )
    .action(async (options: DoctorOptions, cmd: Command) => {
      await runHandler(
        state,
        cmd,
        async (context) =>
          (await import('./action.js')).runDoctorCommand(
            options,
            cmd.optsWithGlobals() as { config?: string; env?: string },
            context,
          ),
        DOCTOR_HINTS,
      );
    });
}
