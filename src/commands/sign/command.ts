import type { Command } from 'commander';
import { runHandler, type RunState } from '../common/runner.js';
import { addSecretOptions } from '../common/secret-options.js';
import { choiceOption, interfaceOption, parseHttpUrl, parseUnixSeconds } from '../common/options.js';
import { declareCommand } from '../common/list.js';
import type { SignOptions } from './action.js';

export function registerSign(program: Command, state: RunState): void {
  const command = declareCommand(program, 'sign')
    .option('--body <file>', 'the body to sign, exactly as it will be sent; - or omitted reads stdin')
    .option('--timestamp <seconds>', 'unix seconds to sign with (default: now)', parseUnixSeconds)
    .addOption(
      choiceOption('--format <format>', 'headers, json, or a ready-to-run curl command', ['headers', 'json', 'curl']),
    )
    .option('--url <url>', 'with --format curl: the full URL to POST to', parseHttpUrl)
    .addOption(interfaceOption('A (contact jobs, X-CAI-Source) or B (events, X-CAI-Provider)'))
    .option('--provider <code>', 'interface B: the X-CAI-Provider header for the curl command')
    .option('--source <id>', 'interface A: the X-CAI-Source header for the curl command')
    .option(
      '--example [file]',
      'print the worked signature example of §5.10 step by step (default: the one shipped in fixtures/)',
    );
  addSecretOptions(command, 'secret', 'signing secret (default: $CAI_SECRET); the first one signs');
  command.addHelpText(
    'after',
    `
Examples:
  $ CAI_SECRET=whsec_test cai sign --body event.json
  $ cai sign --secret-env CAI_EVENTS_SECRET --body event.json --json
  $ cai sign --secret-file events.secret --body event.json --format curl \\
      --interface B --provider acme --url https://platform.example/cai/events
  $ cai sign --example`,
  );
  command.action(async (options: SignOptions, cmd: Command) => {
    await runHandler(state, cmd, async (context) => (await import('./action.js')).runSign(options, context));
  });
}
