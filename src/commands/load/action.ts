/**
 * `cai load`, its action: the run (src/load) against the target or the reference receiver, shown live, then its
 * report and thresholds (exit 1 when one fails). Loaded when the command runs, not at every start-up.
 */
import { identityOf, phasesOf, refuseOtherInterface, scenarioOf, thresholdsOf, type LoadFlags } from './options.js';
import type { CommandContext } from '../common/runner.js';
import { callbackSecretsOf, hasSecretOptions, signingSecret } from '../common/secret-options.js';
import { openTransport } from '../common/transport-options.js';
import { deliveryError, usageError } from '../../errors.js';
import { interfaceSpec, type InterfaceSpec } from '../../spec/interfaces.js';

export async function runLoadCommand(options: LoadFlags, context: CommandContext): Promise<number> {
  const { io, output } = context;
  refuseOtherInterface(options);
  const spec = interfaceSpec(options.interface);
  refuseNoneOrTwoTargets(options, spec);
  const identity = identityOf(options, !options.mock);
  const phases = phasesOf(options);
  const thresholds = await thresholdsOf(options, context);
  const { checkHtmlPath, finishLoad } = await import('./finish.js');
  if (options.html !== undefined) await checkHtmlPath(options.html, context);
  if (spec.callbacks && !options.mock && !options.callbacks && options.callbackUrl === undefined) {
    output.note(
      "the jobs' callback_url is the sample's placeholder, https://platform.example/cai/events: the provider's events for them go nowhere; pass --callbacks to receive and time them, or --callback-url URL",
    );
  }
  const { secret, callbackSecrets } = loadSecrets(options, context);
  const { FIRST_CONTACT_TARGET_SECONDS } = await import('../../spec/constants.js');
  const { client } = await openTransport({ ca: options.ca, insecure: options.insecure }, context, options.to);

  const [{ runLoad, UnreachableTarget }, { interruptInTwoSteps }, { LiveLine }] = await Promise.all([
    import('../../load/run.js'),
    import('../../send/interrupt.js'),
    import('./summary.js'),
  ]);
  const live = new LiveLine(context);
  const interruption = interruptInTwoSteps(io, {
    onStop: () =>
      live.say(() =>
        output.warn(
          'interrupted: sending nothing more, finishing the requests in flight (Ctrl-C again aborts them); a run cut short does not pass',
        ),
      ),
    onAbort: () => live.say(() => output.warn('aborting the requests in flight')),
  });
  let report;
  try {
    report = await runLoad({
      scenario: scenarioOf(options, phases),
      ...(options.to !== undefined ? { target: options.to } : {}),
      mock: options.mock === true,
      ...(identity !== undefined ? { identity } : {}),
      ...(secret !== undefined ? { secret } : {}),
      maxInFlight: options.connections,
      timeoutMs: options.timeout,
      thresholds,
      ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}),
      ...(options.callbackUrl !== undefined && !options.callbacks ? { callbackUrl: options.callbackUrl } : {}),
      ...(options.callbacks && spec.callbacks
        ? {
            callbacks: {
              ...(options.callbackListen ?? { host: '127.0.0.1', port: 0 }),
              ...(options.callbackUrl !== undefined ? { publicUrl: options.callbackUrl } : {}),
              secrets: callbackSecrets,
              targetMs: FIRST_CONTACT_TARGET_SECONDS * 1000 * options.sloScale,
            },
          }
        : {}),
      client,
      stopSignal: interruption.stopSignal,
      abortSignal: interruption.signal,
      onStart: (start) => live.start(start, phases),
      onProgress: (progress) => live.update(progress),
    });
  } catch (error) {
    if (error instanceof UnreachableTarget) {
      throw deliveryError(
        'unreachable',
        `${error.message} before any answer; the run stopped`,
        options.mock
          ? 'this is a bug in cai: the reference receiver did not answer'
          : 'check the --to URL and that the receiver is running',
      );
    }
    throw error;
  } finally {
    live.stop();
    interruption.dispose();
  }
  return finishLoad(report, options.html, context);
}

/** The target is either --to or --mock: both, or neither, is a usage error. */
function refuseNoneOrTwoTargets(options: LoadFlags, spec: InterfaceSpec): void {
  if (options.mock && options.to !== undefined)
    throw usageError(
      'conflicting_options',
      '--mock and --to both name the target',
      'drop --to to load the built-in reference receiver, or --mock to load yours',
    );
  if (!options.mock && options.to === undefined) {
    const what = spec.path === '' ? spec.targetName : `the ${spec.receiver}'s base URL`;
    throw usageError(
      'missing_option',
      '--to is required',
      `pass ${what}, e.g. --to ${spec.exampleAddress}, or --mock to load the reference receiver`,
    );
  }
}

/**
 * The signing secret, and the events secrets that verify Interface A's callbacks; the reference receiver needs
 * neither unless one is given.
 */
function loadSecrets(options: LoadFlags, context: CommandContext) {
  const { io } = context;
  const secret =
    options.mock && !hasSecretOptions(options, 'secret') && !io.env.CAI_SECRET
      ? undefined
      : signingSecret(options, context);
  const callbackSecrets =
    options.callbacks && (!options.mock || hasSecretOptions(options, 'callback-secret') || io.env.CAI_CALLBACK_SECRET)
      ? callbackSecretsOf(options, context).map((s) => s.value)
      : [];
  return { secret, callbackSecrets };
}
