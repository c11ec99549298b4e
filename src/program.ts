import { Command } from 'commander';
import type { RunState } from './cli/runner.js';
import { registerSign } from './commands/sign.js';
import { registerVerify } from './commands/verify.js';
import { registerValidate } from './commands/validate.js';
import { registerSample } from './commands/sample.js';
import { registerSchema } from './commands/schema.js';
import { registerSendJob } from './commands/send-job.js';
import { registerSendEvent } from './commands/send-event.js';
import { registerReplay } from './commands/replay.js';
import { registerConfig } from './commands/config.js';
import { registerDoctor } from './commands/doctor.js';
import { registerReport } from './commands/report.js';
import { installConfigDefaults } from './cli/config-defaults.js';

export const VERSION = '0.1.0';

/**
 * Builds the commander program. Each command module declares its own flags and lazy-imports its
 * domain code inside the action, so `cai sign` loads no zod, undici, ora or mock code (issue #2).
 */
export function buildProgram(state: RunState): Command {
  const program = new Command('cai')
    .description('Sign, verify, validate, send, mock and conformance-test the CAI push interface (spec v1.0).')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--json', 'print exactly one JSON document on stdout (errors included)')
    .option('--no-color', 'no colour (also NO_COLOR, or when the output is not a terminal)')
    .option('--quiet', 'print only the result and errors')
    .option('--debug', 'add stack traces to errors')
    .option('--config <file>', 'the deployment profile to use (default: $CAI_CONFIG, else ./cai.config.json when present)')
    .option('--env <name>', 'the environment of the profile whose values are the defaults (default: $CAI_ENV)')
    .helpOption('-h, --help', 'show help')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => state.io.stdout.write(text),
      writeErr: (text) => state.io.stderr.write(text),
      // main.ts prints usage errors itself, as `error:` + `hint:` (or JSON).
      outputError: () => {},
    });

  registerSign(program, state);
  registerVerify(program, state);
  registerValidate(program, state);
  registerSample(program, state);
  registerSchema(program, state);
  registerSendJob(program, state);
  registerSendEvent(program, state);
  registerReplay(program, state);
  registerConfig(program, state);
  registerDoctor(program, state);
  registerReport(program, state);
  // After every command is registered: one preAction hook applies cai.config.json defaults to any of them.
  installConfigDefaults(program, state);
  return program;
}
