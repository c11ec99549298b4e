import { Option, type Command } from 'commander';
import { runHandler, type CommandContext, type RunState } from '../runner.js';
import { DOCTOR_HINTS } from './hints.js';
import { parseHttpUrl, parsePositiveDurationMs } from '../options.js';
import { readPem } from '../../input.js';
import { usageError } from '../../errors.js';
import type { InterfaceId } from '../../spec/constants.js';
import type { CheckResult } from '../../doctor/types.js';
import { safeText } from '../../output/safe-text.js';

interface DoctorOptions {
  /** The URL to probe (`--to`; `--target` is its other name, src/commands/target-alias.ts). */
  to?: string;
  interface?: InterfaceId;
  timeout: number;
  ca?: string;
}

export function registerDoctor(program: Command, state: RunState): void {
  program
    .command('doctor')
    .description('Check this machine and an environment before blaming the code: Node.js, secrets, configuration, then DNS, TCP, TLS ≥ 1.2 (§5.8), certificate, clock offset (§5.5)')
    .option('--to <url>', 'the URL to probe (default: the environment\'s provider_endpoint/contact-jobs and events_url)', parseHttpUrl)
    .addOption(new Option('--interface <id>', 'check only interface A (contact jobs) or B (events)').choices(['A', 'B']))
    .addOption(new Option('--timeout <duration>', 'time allowed for each network step').argParser(parsePositiveDurationMs).default(5000, '5s'))
    .option('--ca <file>', 'also trust this CA certificate (PEM), e.g. a test environment\'s own')
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
      await runHandler(state, cmd, (context) => runDoctorCommand(options, cmd.optsWithGlobals() as { config?: string; env?: string }, context), DOCTOR_HINTS);
    });
}

async function runDoctorCommand(options: DoctorOptions, globals: { config?: string; env?: string }, { io, output }: CommandContext): Promise<number> {
  const [{ loadProfile }, { configSearch }, { tmpdir }] = await Promise.all([import('../../config/load.js'), import('../../config/locate.js'), import('node:os')]);
  const { runDoctor, targetsOf } = await import('../../doctor/run.js');
  const profile = loadProfile(globals, io.env, io.cwd);
  if (profile.loaded && !profile.chosen) {
    throw usageError('no_environment', `${profile.loaded.location.path} defines several environments and none is chosen`, `pass --env NAME (one of: ${Object.keys(profile.loaded.config.environments).join(', ')}) or set CAI_ENV`);
  }
  const environment = profile.chosen;
  const interfaces: InterfaceId[] = options.interface ? [options.interface] : ['A', 'B'];
  const targets = options.to ? [{ url: options.to, interface: options.interface }] : environment ? targetsOf(environment, interfaces) : [];
  const ca = options.ca ? await readPem(options.ca, io, 'ca') : undefined;
  if (environment) output.info(`environment ${environment.name} of ${environment.location.path}`);
  const spinner = await output.spinner('checking…');
  let report;
  try {
    report = await runDoctor({
      environment,
      interfaces,
      targets,
      env: io.env,
      local: { nodeVersion: process.version, tempDir: tmpdir(), cwd: io.cwd, ...(profile.loaded ? {} : { search: configSearch(io.cwd) }) },
      now: () => io.now(),
      timeoutMs: options.timeout,
      ca,
      onCheck: (check) => spinner.update(`${check.id} ${check.target ?? ''}`),
    });
  } finally {
    spinner.stop();
  }
  if (output.json) {
    output.printJson(report);
    return report.ok ? 0 : 1;
  }
  let lastTarget: string | undefined;
  for (const check of report.checks) {
    if (check.target !== undefined && check.target !== lastTarget) {
      output.result('');
      output.resultWrapped(`${safeText(check.target)}${check.interface ? ` (interface ${check.interface})` : ''}`, '  ');
      lastTarget = check.target;
    }
    renderCheck(check, output);
  }
  const { pass, warn, fail, skip } = report.summary;
  output.result('');
  output.result(`${pass} passed, ${warn} warning${warn === 1 ? '' : 's'}, ${fail} failed, ${skip} skipped`);
  return report.ok ? 0 : 1;
}

function renderCheck(check: CheckResult, output: CommandContext['output']): void {
  const color = output.color;
  const label = { pass: color.green('pass'), warn: color.yellow('warn'), fail: color.red('FAIL'), skip: color.dim('skip') }[check.verdict];
  const scope = check.target === undefined && check.interface ? ` ${check.interface}` : '';
  // Messages quote what the server sent (its certificate's names, its errors): escaped before colouring.
  // On a terminal, a long message wraps under itself (past the verdict and the check's name), the hint under its text.
  output.resultWrapped(`  ${label}  ${(check.id + scope).padEnd(12)} ${safeText(check.message)}`, ' '.repeat(21));
  if (check.hint && check.verdict !== 'pass') output.resultWrapped(`        ${''.padEnd(12)} ${color.dim('hint:')} ${safeText(check.hint)}`, ' '.repeat(27));
}
