/**
 * `cai trigger`, its action: the flow named, found (or a typo's meaning suggested), its flags checked against its
 * interface, then sent. Loaded when the command runs.
 */
import type { SharedFlags } from '../common/flags.js';
import type { Command } from 'commander';
import { flagGiven, requireOptions } from '../common/options.js';
import type { CommandContext } from '../common/runner.js';
import { callbackSecretsOf, hasSecretOptions, signingSecret } from '../common/secret-options.js';
import { openSendPool, requireSendTarget, retryPolicyOf, type TransportOptions } from '../common/send-options.js';
import { checkPlainHttp } from '../common/transport-options.js';
import { usageError } from '../../errors.js';
import type { DeliverOptions } from '../../http/deliver.js';
import type { RetryPolicy } from '../../http/retry.js';
import type { Flow } from '../../send/flows.js';
import { interfaceSpec, otherInterface } from '../../spec/interfaces.js';

export interface TriggerOptions
  extends TransportOptions,
    Pick<SharedFlags, 'to' | 'provider' | 'source' | 'leadId' | 'branchCode' | 'publicUrl'> {
  list?: boolean;
  pace: number;
  listen: { host: string; port: number };
  wait: number;
  observe: number;
}

/** Flags of one interface's flows only, by attribute: given for the other, a usage error rather than a silent no-op. */
const JOB_ONLY = [
  'source',
  'listen',
  'publicUrl',
  'wait',
  'observe',
  'callbackSecretEnv',
  'callbackSecretFile',
  'callbackSecret',
];
const EVENTS_ONLY = ['pace'];

/** The flow named, sent: its events (Interface B), or the job and its conversation (Interface A). */
export async function runTrigger(
  name: string | undefined,
  options: TriggerOptions,
  cmd: Command,
  context: CommandContext,
): Promise<number> {
  const { FLOWS, findFlow } = await import('../../send/flows.js');
  if (options.list) {
    if (name !== undefined)
      throw usageError(
        'conflicting_options',
        '--list names the flows; it takes no flow',
        `run 'cai trigger --list', then 'cai trigger ${name} …'`,
      );
    return (await import('./lines.js')).renderFlowList(FLOWS, context.output);
  }
  if (name === undefined)
    throw usageError(
      'missing_flow',
      'which flow to send?',
      "name one, e.g. 'cai trigger appointment-booked'; 'cai trigger --list' names them all",
    );
  const flow = findFlow(name);
  if (flow === undefined) {
    const { suggestValue } = await import('../../suggest.js');
    const names = FLOWS.map((known) => known.name);
    const hint = suggestValue(name, names);
    throw usageError(
      'unknown_flow',
      `no flow named ${name}${hint === undefined ? '' : ` (${hint})`}`,
      "run 'cai trigger --list' for the flows",
    );
  }
  refuseFlagsOfOtherInterface(flow, cmd);
  const policy = await retryPolicyOf(options, context.output);
  if (typeof policy === 'number') return policy;
  return interfaceSpec(flow.interface).document === 'event'
    ? triggerEvents(flow, options, policy, context)
    : triggerJobFlow(options, policy, context);
}

function refuseFlagsOfOtherInterface(flow: Flow, command: Command): void {
  const events = interfaceSpec(flow.interface).document === 'event';
  const given = flagGiven(command, events ? JOB_ONLY : EVENTS_ONLY);
  if (given === undefined) return;
  const other = otherInterface(flow.interface);
  const where = events
    ? `'cai trigger job' (Interface ${other.id})`
    : `the event flows (Interface ${other.id}), 'cai trigger --list'`;
  throw usageError('conflicting_options', `${given} does not apply to ${flow.name}`, `it is an option of ${where}`);
}

/** Interface B: the flow's events, one after another, each answer as it comes, then the summary. */
async function triggerEvents(flow: Flow, options: TriggerOptions, policy: RetryPolicy, context: CommandContext) {
  const { io, output } = context;
  const { to, identity: provider } = requireSendTarget('event', options);
  const secret = signingSecret(options, context);
  const { buildFlow } = await import('../../send/flows.js');
  const { values, events } = buildFlow(flow, {
    ...(options.leadId !== undefined ? { leadId: options.leadId } : {}),
    ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}),
    now: new Date(io.now()),
  });
  const lines = await import('./lines.js');
  if (options.dryRun) {
    const [{ signForDryRun }, { sendTarget }] = await Promise.all([
      import('../../send/dry-run.js'),
      import('../../http/send.js'),
    ]);
    const { url, headers } = sendTarget('event', to, provider);
    const requests = events.map((event) =>
      signForDryRun({ url, headers, body: Buffer.from(JSON.stringify(event.document)) }, secret, io.now()),
    );
    return lines.renderFlowDryRun(flow, requests, options.format, output);
  }
  const hooks = {
    onStop: () =>
      output.warn('interrupted: sending no further event of the flow (Ctrl-C again aborts the one in flight)'),
    onAbort: () => output.warn('aborting the event in flight: its outcome is unknown'),
  };
  return sendInterruptibly(to, options, policy, context, hooks, async (deliver) => {
    const { formatDuration } = await import('../../duration.js');
    output.info(
      `${flow.name}: ${events.length} events for lead ${values.lead_id} to ${to}, ${options.pace > 0 ? `${formatDuration(options.pace)} between an answer and the next event` : 'one after another'}`,
    );
    const { sendFlow } = await import('../../send/trigger.js');
    const outcome = await sendFlow(
      { to, provider, secret, events },
      {
        deliver,
        paceMs: options.pace,
        stopSignal: deliver.stopSignal,
        onResult: (result) => {
          if (!output.json) lines.flowEventLine(result, events.length, output);
        },
      },
    );
    return lines.renderFlowOutcome(flow, to, values, events, outcome, output);
  });
}

/** Sends over the flags' pool, with Ctrl-C in two steps and a line per retry; closes the pool unless aborted. */
async function sendInterruptibly(
  to: string,
  options: TriggerOptions,
  policy: RetryPolicy,
  context: CommandContext,
  hooks: { onStop: () => void; onAbort: () => void },
  send: (deliver: DeliverOptions) => Promise<number>,
): Promise<number> {
  const { io, output } = context;
  checkPlainHttp(to, options, output);
  const dispatcher = await openSendPool(options, context, to);
  const [{ interruptInTwoSteps }, lines] = await Promise.all([import('../../send/interrupt.js'), import('./lines.js')]);
  const interruption = interruptInTwoSteps(io, hooks);
  try {
    return await send({
      retry: policy,
      timeoutMs: options.timeout,
      dispatcher,
      signal: interruption.signal,
      stopSignal: interruption.stopSignal,
      onAttempt: (attempt) => lines.attemptLine(attempt, options.verbose === true, output),
    });
  } finally {
    interruption.dispose();
    if (!interruption.signal.aborted) await dispatcher.close();
  }
}

/** Interface A: one job, the provider's events as they come back, the time to first contact against §8. */
async function triggerJobFlow(options: TriggerOptions, policy: RetryPolicy, context: CommandContext): Promise<number> {
  const { io, output } = context;
  if (options.dryRun)
    throw usageError(
      'conflicting_options',
      '--dry-run applies to the event flows',
      "'cai send-job --sample --dry-run' prints a contact job as it would be sent",
    );
  if (options.wait <= 0) throw usageError('bad_option', '--wait must be more than 0', 'pass a duration such as 10m');
  const [to, source, providerCode] = requireOptions([
    { flag: '--to', value: options.to, how: "the provider's base URL, e.g. --to https://provider.example/cai" },
    {
      flag: '--source',
      value: options.source,
      how: 'the X-CAI-Source value identifying the platform (§4.1), e.g. --source platform-eu',
    },
    {
      flag: '--provider',
      value: options.provider,
      how: 'the provider code its events must carry (X-CAI-Provider, §5.6), e.g. --provider acme',
    },
  ]) as [string, string, string];
  const secret = signingSecret(options, context);
  const callbackSecrets = eventsSecretsOf(options, context);
  const host = options.listen.host;
  if (options.publicUrl === undefined && (host === '0.0.0.0' || host === '::')) {
    throw usageError(
      'missing_option',
      `the listener on ${host} has no address the provider can reach`,
      'pass --public-url with the address that forwards to it',
    );
  }
  const hooks = {
    onStop: () =>
      output.warn("interrupted: no longer waiting for the provider's events (Ctrl-C again aborts a request in flight)"),
    onAbort: () => output.warn('aborting the request in flight'),
  };
  return sendInterruptibly(to, options, policy, context, hooks, async (deliver) => {
    const [{ triggerJob }, lines] = await Promise.all([import('../../send/trigger-job.js'), import('./lines.js')]);
    const outcome = await triggerJob(
      {
        to,
        source,
        secret,
        providerCode,
        callbackSecrets,
        listen: options.listen,
        ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
        ...(options.leadId !== undefined ? { leadId: options.leadId } : {}),
        ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}),
      },
      {
        deliver,
        waitMs: options.wait,
        quietMs: options.observe,
        stopSignal: deliver.stopSignal,
        onListening: (callbackUrl, job) =>
          output.info(
            `sending a contact job, lead ${String(job.lead_id)}, event_id ${String(job.event_id)}; the provider's events are received at ${callbackUrl}`,
          ),
        onJob: (sent) => {
          if (!output.json) lines.jobLine(sent, output);
        },
        onCallback: (callback) => {
          if (!output.json) lines.callbackLine(callback, output);
        },
        clock: io.now,
      },
    );
    return lines.renderJobOutcome(to, outcome, output);
  });
}

/** The secrets of Interface B that verify the provider's events (§5.1): at least one, else a usage error. */
function eventsSecretsOf(options: TriggerOptions, context: CommandContext): string[] {
  const secrets = callbackSecretsOf(options, context);
  if (secrets.length === 0) {
    throw usageError(
      'missing_secret',
      "no events secret to verify the provider's events",
      `pass --callback-secret-env NAME${hasSecretOptions(options, 'callback-secret') ? '' : ' (or set CAI_CALLBACK_SECRET)'}: the secret of Interface B (§5.1)`,
    );
  }
  return secrets.map((entry) => entry.value);
}
