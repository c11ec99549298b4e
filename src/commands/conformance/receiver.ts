/**
 * `cai conformance run` in the receiver role (the default): cai sends to a receiver (--to, or the built-in one with
 * --mock) and judges its answers. The command glue of src/conformance/run-receiver.ts, in named steps: the usage
 * errors, the plan, the secrets, then the run itself, interruptible, its report handed to the command's renderer
 * (./report.ts, as a sender run's is).
 */
import type { ConformanceOptions } from '../../conformance/run-receiver.js';
import type { Selection } from '../../conformance/catalogue.js';
import { usageError } from '../../errors.js';
import type { InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import { identityFlagOf, requireOptions } from '../common/options.js';
import type { CommandContext } from '../common/runner.js';
import { callbackSecretsOf, hasSecretOptions, signingSecrets } from '../common/secret-options.js';
import { checkPlainHttp, openTransport } from '../common/transport-options.js';
import type { RoleDeps, RunOptions } from './run-options.js';

type Secrets = ReturnType<typeof signingSecrets>;

export async function runReceiverRole(options: RunOptions, context: CommandContext, deps: RoleDeps): Promise<number> {
  const { output } = context;
  const iface = await checkRunOptions(options);
  const { runConformance } = await import('../../conformance/run-receiver.js');
  const { selection, planned } = await planReceiverRun(iface, options, deps.explore);
  const { secrets, callbackSecrets } = readSecrets(iface, options, context);
  const waivers = options.waivers !== undefined ? await deps.loadWaivers(options.waivers) : undefined;
  const { checkRunFiles, runAndReport, INTERRUPTED_REPORT } = await import('./report.js');
  await checkRunFiles(options, context);
  if (options.to !== undefined) checkPlainHttp(options.to, options, output);
  const { client } = await openTransport(
    { ca: options.ca, insecure: options.insecure, proxy: options.proxy },
    context,
    options.to,
  );
  const secretValues = [...secrets, ...callbackSecrets].map((secret) => secret.value);

  const { conformanceProgress } = await import('./progress.js');
  const progress = conformanceProgress(context, planned, {
    ...(callsBack(iface) ? { callbackWaitMs: options.callbackWait } : {}),
  });
  const { reproducerOf } = await import('./repro.js');
  return runAndReport(
    {
      interface: iface,
      role: 'receiver',
      startedAt: new Date(),
      mock: options.mock === true,
      ...(options.to !== undefined ? { target: options.to } : {}),
    },
    options,
    context,
    secretValues,
    {
      interrupted: () =>
        progress.say(() =>
          output.warn(`interrupted: finishing the checks in flight, skipping the rest; ${INTERRUPTED_REPORT}`),
        ),
      execute: (signal) =>
        runConformance({
          ...runOptionsOf(iface, options, { secrets, callbackSecrets, selection }),
          waivers,
          client,
          signal,
          reproducer: reproducerOf(deps.invocation, () => deps.rerun),
          explore: deps.explore,
          ...(progress.onStart ? { onStart: progress.onStart } : {}),
          ...(progress.onFinish ? { onFinish: progress.onFinish } : {}),
        }),
      done: () => progress.stop(),
    },
  );
}

/** An interface whose receiver is the provider calls back with its events (§4.2): Interface A. */
const callsBack = (iface: InterfaceId) => interfaceSpec(iface).receiver === 'provider';

/** The checks the selection leaves to run (their count, for the progress); an unknown id or tag is a usage error. */
async function planReceiverRun(
  iface: InterfaceId,
  options: RunOptions,
  explore: RoleDeps['explore'],
): Promise<{ selection: Selection; planned: number }> {
  const { planFor } = await import('../../conformance/run-receiver.js');
  const { describeCatalogue, splitSelectors } = await import('../../conformance/catalogue.js');
  const selection = {
    only: splitSelectors(options.only),
    skip: splitSelectors(options.skip),
    include: splitSelectors(options.include),
  };
  const plan = planFor({ interface: iface, selection, explore });
  if (plan.unknownSelectors.length > 0) {
    const { listUnknown, selectorWords } = await import('../../suggest.js');
    const known = selectorWords(describeCatalogue('receiver', iface));
    throw usageError(
      'unknown_check',
      `no interface ${iface} check or tag matches: ${listUnknown(plan.unknownSelectors, known)}`,
      `run 'cai conformance list --interface ${iface}' for the ids and tags`,
    );
  }
  if (plan.planned.every((item) => item.skipReason !== undefined))
    throw usageError('nothing_to_run', 'the selection leaves no check to run', 'loosen --only / --skip');
  return { selection, planned: plan.planned.length };
}

/**
 * The signing secrets (none needed with --mock: it generates its own), and for Interface A the events secret that
 * turns the callback checks on; without it those checks are skipped, and said so.
 */
function readSecrets(
  iface: InterfaceId,
  options: RunOptions,
  context: CommandContext,
): { secrets: Secrets; callbackSecrets: Secrets } {
  const { io, output } = context;
  const secrets = options.mock && !hasSecretOptions(options, 'secret') ? [] : signingSecrets(options, context);
  const wantsCallbacks =
    callsBack(iface) &&
    !options.mock &&
    (hasSecretOptions(options, 'callback-secret') || Boolean(io.env.CAI_CALLBACK_SECRET));
  const callbackSecrets = wantsCallbacks ? callbackSecretsOf(options, context) : [];
  if (wantsCallbacks) requireCallbackOptions(options);
  if (callsBack(iface) && !options.mock && !wantsCallbacks) {
    output.note(
      "no callback secret: the checks of the provider's events (tagged callback) are skipped; pass --callback-secret-env NAME to check the events the provider sends back",
    );
  }
  return { secrets, callbackSecrets };
}

/** The engine's options that the flags, the secrets and the selection give. */
function runOptionsOf(
  iface: InterfaceId,
  options: RunOptions,
  { secrets, callbackSecrets, selection }: { secrets: Secrets; callbackSecrets: Secrets; selection: Selection },
): ConformanceOptions {
  return {
    interface: iface,
    target: options.to,
    mock: options.mock === true,
    faults: options.break,
    identity: options[interfaceSpec(iface).identityOption],
    secrets: secrets.map((secret) => secret.value),
    secretLabel: secrets[0]?.label,
    callbackSecrets: callbackSecrets.map((secret) => secret.value),
    callbackSecretLabel: callbackSecrets[0]?.label,
    providerCode: callsBack(iface) ? options.provider : undefined,
    branchCode: options.branchCode,
    leadId: options.leadId,
    callbackListen: options.callbackListen,
    callbackUrl: options.callbackUrl,
    callbackWaitMs: options.callbackWait,
    ...(options.observe !== undefined ? { observeMs: options.observe } : {}),
    selection,
    concurrency: options.concurrency,
    timeoutMs: options.timeout,
    reproDir: options.reproDir,
    sourceAddress: options.sourceAddress,
    ...(options.failFast || options.maxFailures !== undefined
      ? { maxFailures: options.failFast ? 1 : options.maxFailures }
      : {}),
  };
}

/** The usage errors of `conformance run`, before anything is planned; returns the interface to check. */
async function checkRunOptions(options: RunOptions): Promise<InterfaceId> {
  const iface = options.interface;
  if (!iface)
    throw usageError(
      'missing_option',
      'which interface to check?',
      'pass --interface B (a platform events endpoint) or --interface A (a provider contact-jobs endpoint)',
    );
  if (options.mock && options.to)
    throw usageError('conflicting_options', '--mock and --to both name the receiver', 'pass one of them');
  if (!options.mock && !options.to)
    throw usageError(
      'missing_target',
      'no receiver to check',
      'pass --to URL, or --mock to run against the built-in reference receiver',
    );
  if (options.break?.length && !options.mock)
    throw usageError('conflicting_options', '--break only applies to --mock', 'add --mock, or drop --break');
  if (!options.mock) requireTargetOptions(iface, options);
  if (options.timeout <= 0)
    throw usageError('bad_option', '--timeout must be more than 0', 'pass a duration such as 10s');
  if (options.callbackWait <= 0)
    throw usageError('bad_option', '--callback-wait must be more than 0', 'pass a duration such as 30s');
  if (options.failFast && options.maxFailures !== undefined)
    throw usageError(
      'conflicting_options',
      '--fail-fast and --max-failures both set the failure limit',
      'pass one of them (--fail-fast is --max-failures 1)',
    );
  if (options.sourceAddress !== undefined) {
    const { isIP } = await import('node:net');
    if (isIP(options.sourceAddress) === 0)
      throw usageError(
        'bad_option',
        `--source-address ${options.sourceAddress} is not an IP address`,
        'pass a local IPv4 or IPv6 address of this machine',
      );
  }
  return iface;
}

function requireTargetOptions(iface: InterfaceId, options: RunOptions): void {
  const spec = interfaceSpec(iface);
  const flag = identityFlagOf(spec);
  const how = `${flag} ${spec.identityValue} (the ${spec.identityHeaderName} value, ${spec.identitySection})`;
  // §2.2: every job names a branch of the deployment's catalog.
  const branch = {
    flag: '--branch-code',
    value: options.branchCode,
    how: '--branch-code CODE from the deployment catalog (a branch_code the jobs carry)',
  };
  requireOptions([{ flag, value: options[spec.identityOption], how }, ...(callsBack(iface) ? [branch] : [])]);
}

function requireCallbackOptions(options: RunOptions): void {
  if (!options.provider)
    throw usageError(
      'missing_option',
      'the callback checks need the provider code to expect',
      'pass --provider CODE (the X-CAI-Provider the provider must send, §4.2)',
    );
  const host = options.callbackListen?.host;
  if (!options.callbackUrl && host !== undefined && (host === '0.0.0.0' || host === '::')) {
    throw usageError(
      'missing_option',
      `the listener on ${host} has no address the provider can reach`,
      'pass --callback-url with the public address that forwards to it',
    );
  }
}
