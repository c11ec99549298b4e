import type { Command } from 'commander';
import { runHandler, type RunState } from '../common/runner.js';
import { addSecretOptions } from '../common/secret-options.js';
import { interfaceOption, parseUnixSeconds, wholeNumber } from '../common/options.js';
import { FLAG_BOUNDS } from '../../bounds-flags.js';
import { SIGNATURE_WINDOW_SECONDS } from '../../spec/constants.js';
import { declareCommand } from '../common/list.js';
import type { VerifyOptions } from './action.js';

export function registerVerify(program: Command, state: RunState): void {
  const command = declareCommand(program, 'verify')
    .option('--signature <value>', 'the X-CAI-Signature header value, sha256=<hex>')
    .option('--timestamp <seconds>', 'the X-CAI-Timestamp header value')
    .option('--body <file>', 'the body exactly as received; - or omitted reads stdin')
    .option('--request <file>', 'a raw HTTP request as captured (request line, headers, blank line, body)')
    .option('--now <seconds>', 'the time to verify at, in unix seconds (default: now)', parseUnixSeconds)
    .option(
      '--window <seconds>',
      'the validity window either side of now',
      wholeNumber(0, FLAG_BOUNDS.windowSeconds),
      SIGNATURE_WINDOW_SECONDS,
    )
    .addOption(interfaceOption("A or B: which direction's secrets to take from cai.config.json (§5.1)"))
    .option(
      '--example [file]',
      'reproduce the worked signature example of §5.10 (default: the one shipped in fixtures/)',
    );
  addSecretOptions(command, 'secret', 'verification secret (default: $CAI_SECRET); several = rotation overlap');
  addSecretOptions(command, 'other-secret', "the other direction's secret, to recognise a mix-up");
  command.addHelpText(
    'after',
    `
Examples:
  $ cai verify --secret-env CAI_SECRET --body event.json \\
      --timestamp 1767225600 --signature sha256=9f2c…
  $ cai verify --secret-file new.secret --secret-file old.secret --request captured.http
  $ cai verify --example`,
  );
  command.action(async (options: VerifyOptions, cmd: Command) => {
    await runHandler(state, cmd, async (context) => (await import('./action.js')).runVerify(options, context));
  });
}
