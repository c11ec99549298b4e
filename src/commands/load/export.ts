/**
 * `cai load export --engine artillery`: the scenario of `cai load`'s flags as an Artillery project, for loads one
 * machine cannot send (docs/load.md). Loaded inside the action (START-UP RULE).
 */
import type { Command } from 'commander';
import { ExitCode, usageError } from '../../errors.js';
import { describeMix } from '../../load/scenario.js';
import type { Threshold } from '../../load/thresholds.js';
import {
  DEFAULT_RATE_PER_SECOND,
  identityOf,
  phasesOf,
  refuseOtherInterface,
  scenarioOf,
  thresholdsOf,
  type ExportFlags,
  type LoadFlags,
} from './options.js';
import type { CommandContext } from '../common/runner.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import { identityFlagOf } from '../common/options.js';
import { shellQuote } from '../../shell.js';

export async function runExport(flags: ExportFlags, load: Command, context: CommandContext): Promise<number> {
  const { output } = context;
  const options = load.opts() as LoadFlags;
  const outHint = 'pass the folder to write the project to, e.g. --out load-test';
  if (flags.out === undefined) throw usageError('missing_option', '--out is required', outHint);
  // An empty path would be the working directory: refused as such, never written into (docs/limits.md).
  if (flags.out === '') throw usageError('bad_option', '--out is empty', outHint);
  refuseFlagsOfTheLiveRun(load);
  refuseOtherInterface(options);
  if (options.to === undefined)
    throw usageError(
      'missing_option',
      '--to is required',
      "pass the URL Artillery loads (config.target): the events URL (B) or the provider's base URL (A)",
    );
  const identity = identityOf(options, true) as string;
  const secretEnv = secretEnvOf(options);
  const phases = phasesOf(options);
  const thresholds = await thresholdsOf(options, context);

  const [
    { encodeBraces, planArtillery, ExportValueError, withoutCredentials },
    { projectFiles },
    { writeProject },
    { versionInfo },
  ] = await Promise.all([
    import('../../load/artillery.js'),
    import('./export-files.js'),
    import('./summary.js'),
    import('../../version.js'),
  ]);
  // The project's files are shared and committed: a URL's credentials are left out of every one of them.
  const target = withoutCredentials(options.to);
  const callback = options.callbackUrl !== undefined ? withoutCredentials(options.callbackUrl) : undefined;
  for (const [flag, url] of [
    ['--to', target],
    ['--callback-url', callback],
  ] as const) {
    if (url?.stripped)
      output.warn(
        `${flag} holds credentials (user:password@): they are left out of the project, which sends no credential but the signature`,
      );
  }
  const generator = `cai ${versionInfo().version}`;
  let plan;
  try {
    plan = planArtillery({
      scenario: scenarioOf(options, phases),
      target: target.url.href,
      identity,
      secretEnv,
      thresholds,
      timeoutMs: options.timeout,
      workers: flags.workers,
      ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}),
      ...(callback !== undefined ? { callbackUrl: callback.url.href } : {}),
      generator,
    });
  } catch (error) {
    if (error instanceof ExportValueError) throw templateError(error, options);
    throw error;
  }
  const files = projectFiles(plan, {
    generator,
    command: describeCommand(options, encodeBraces(target.url.href), secretEnv, thresholds),
  });
  await writeProject({ files, untranslated: plan.untranslated }, flags.out, flags.force === true, context);
  for (const item of plan.untranslated)
    output.warn(`threshold '${item.expression}' is not in the Artillery project: ${item.why}`);
  return ExitCode.ok;
}

/** The flags of `cai load` that only a run in this process has (the mock, the listener, TLS, a secret's value). */
function refuseFlagsOfTheLiveRun(load: Command): void {
  const given = (name: string) =>
    load.getOptionValueSource(name) === 'cli' || load.getOptionValueSource(name) === 'env';
  for (const [flag, key] of [
    ['--mock', 'mock'],
    ['--callbacks', 'callbacks'],
    ['--callback-listen', 'callbackListen'],
    ['--html', 'html'],
    ['--connections', 'connections'],
    ['--ca', 'ca'],
    ['--insecure', 'insecure'],
    ['--secret', 'secret'],
    ['--secret-file', 'secretFile'],
  ] as const) {
    if (given(key))
      throw usageError('conflicting_options', `${flag} does not apply to cai load export`, exportHint(flag));
  }
}

/** The one environment variable the processor reads the secret from: the secret itself stays out of the files. */
function secretEnvOf(options: LoadFlags): string {
  const secretEnvs = (options.secretEnv as { ref: string }[] | undefined) ?? [];
  if (secretEnvs.length > 1)
    throw usageError(
      'conflicting_options',
      '--secret-env is given more than once',
      'the processor signs with one secret: give one --secret-env NAME',
    );
  const secretEnv = secretEnvs[0]?.ref ?? 'CAI_SECRET';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretEnv))
    throw usageError(
      'bad_option',
      `--secret-env ${secretEnv} is not an environment variable name`,
      'use letters, digits and _, such as CAI_SECRET',
    );
  return secretEnv;
}

/** A value Artillery would template (src/load/artillery-values.ts), as the flag that gave it. */
function templateError(
  error: InstanceType<typeof import('../../load/artillery.js').ExportValueError>,
  options: LoadFlags,
) {
  const spec = interfaceSpec(options.interface);
  const flag = { target: '--to', callbackUrl: '--callback-url', identity: identityFlagOf(spec) }[error.role];
  if (error.code === 'template_in_host')
    return usageError(
      'bad_option',
      `${flag} holds '{{' in its host, which Artillery would read as a template (its value would be sent instead)`,
      'pass the host name alone',
    );
  return usageError(
    'bad_option',
    `${flag} holds '{{', which Artillery would read as a template (its value would be sent instead)`,
    `pass the ${spec.identityName} as the receiver knows it, without '{{'`,
  );
}

function exportHint(flag: string): string {
  if (flag === '--secret' || flag === '--secret-file')
    return 'the project reads the secret from an environment variable: pass --secret-env NAME (default CAI_SECRET)';
  if (flag === '--mock') return 'Artillery loads a real target: pass --to URL (e.g. a cai mock platform you started)';
  return 'drop it: Artillery has no counterpart for it (docs/load.md)';
}

/**
 * The `cai load` command the project stands for, from the parsed flags: the target without credentials, and never
 * the secret (only its variable).
 */
function describeCommand(
  options: LoadFlags,
  target: string,
  secretEnv: string,
  thresholds: readonly Threshold[],
): string {
  const words = ['cai', 'load', '--interface', options.interface, '--to', target];
  const spec = interfaceSpec(options.interface);
  words.push(identityFlagOf(spec), options[spec.identityOption] ?? '');
  words.push('--secret-env', secretEnv);
  for (const ramp of options.ramp ?? [])
    words.push('--ramp', `${ramp.fromPerSecond}..${ramp.toPerSecond}/s:${ramp.durationMs / 1000}s`);
  if (options.duration > 0)
    words.push(
      '--rate',
      `${options.rate ?? options.ramp?.at(-1)?.toPerSecond ?? DEFAULT_RATE_PER_SECOND}/s`,
      '--duration',
      `${options.duration / 1000}s`,
    );
  if (options.mix) words.push('--mix', describeMix(options.mix));
  if (options.repeat) words.push('--repeat', `${Math.round(options.repeat * 10000) / 100}%`);
  for (const threshold of thresholds.filter((item) => item.description === undefined))
    words.push('--threshold', threshold.expression);
  if (options.slo) words.push('--slo', options.slo);
  if (options.sloScale !== 1) words.push('--slo-scale', String(options.sloScale));
  return words.map(shellQuote).join(' ');
}
