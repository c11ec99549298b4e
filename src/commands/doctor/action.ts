/**
 * `cai doctor`, its action: the checks run, each shown with its verdict and next step. Loaded when the
 * command runs, not at every start-up.
 */
import type { CommandContext } from '../common/runner.js';
import { readPem } from '../../input.js';
import { usageError } from '../../errors.js';
import type { InterfaceId } from '../../spec/constants.js';
import type { CheckResult } from '../../doctor/types.js';
import { safeText } from '../../output/safe-text.js';
import { plural } from '../../text.js';

export interface DoctorOptions {
  /** The URL to probe (`--to`; `--target` is its other name, src/commands/common/target-alias.ts). */
  to?: string;
  interface?: InterfaceId;
  timeout: number;
  ca?: string;
}

export async function runDoctorCommand(
  options: DoctorOptions,
  globals: { config?: string; env?: string },
  { io, output }: CommandContext,
): Promise<number> {
  const [{ loadProfile }, { configSearch }, { tmpdir }] = await Promise.all([
    import('../../config/load.js'),
    import('../../config/locate.js'),
    import('node:os'),
  ]);
  const { runDoctor, targetsOf } = await import('../../doctor/run.js');
  const profile = loadProfile(globals, io.env, io.cwd);
  if (profile.loaded && !profile.chosen) {
    throw usageError(
      'no_environment',
      `${profile.loaded.location.path} defines several environments and none is chosen`,
      `pass --env NAME (one of: ${Object.keys(profile.loaded.config.environments).join(', ')}) or set CAI_ENV`,
    );
  }
  const environment = profile.chosen;
  const interfaces: InterfaceId[] = options.interface ? [options.interface] : ['A', 'B'];
  const targets = options.to
    ? [{ url: options.to, interface: options.interface }]
    : environment
      ? targetsOf(environment, interfaces)
      : [];
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
      local: {
        nodeVersion: process.version,
        tempDir: tmpdir(),
        cwd: io.cwd,
        ...(profile.loaded ? {} : { search: configSearch(io.cwd) }),
      },
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
      output.resultWrapped(
        `${safeText(check.target)}${check.interface ? ` (interface ${check.interface})` : ''}`,
        '  ',
      );
      lastTarget = check.target;
    }
    renderCheck(check, output);
  }
  const { pass, warn, fail, skip } = report.summary;
  output.result('');
  output.result(`${pass} passed, ${plural(warn, 'warning')}, ${fail} failed, ${skip} skipped`);
  return report.ok ? 0 : 1;
}

function renderCheck(check: CheckResult, output: CommandContext['output']): void {
  const color = output.color;
  const label = {
    pass: color.green('pass'),
    warn: color.yellow('warn'),
    fail: color.red('FAIL'),
    skip: color.dim('skip'),
  }[check.verdict];
  const scope = check.target === undefined && check.interface ? ` ${check.interface}` : '';
  // Messages quote what the server sent (its certificate's names, its errors): escaped before colouring.
  // On a terminal, a long message wraps under itself (past the verdict and the check's name), the hint under its text.
  output.resultWrapped(`  ${label}  ${(check.id + scope).padEnd(12)} ${safeText(check.message)}`, ' '.repeat(21));
  if (check.hint && check.verdict !== 'pass')
    output.resultWrapped(`        ${''.padEnd(12)} ${color.dim('hint:')} ${safeText(check.hint)}`, ' '.repeat(27));
}
