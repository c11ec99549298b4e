/**
 * `cai conformance run --role sender`: the command glue of a sender run (src/conformance/sender). It checks the
 * flags of the role, resolves the secrets, tells a person sending by hand what to send and when, shows each
 * scenario as it ends on a terminal, and hands the report to the command's renderer (the same table, --json,
 * --junit as a receiver run).
 */
import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { InterfaceId } from '../../spec/constants.js';
import { identityHint, interfaceSpec, otherInterface } from '../../spec/interfaces.js';
import type { ScenarioSummary } from '../../conformance/types.js';
import type { ScenarioStart } from '../../conformance/run-sender.js';
import type { Selection } from '../../conformance/catalogue.js';
import { EXPLORE_CAPS } from '../../bounds.js';
import type { CommandContext } from '../common/runner.js';
import { flagGiven } from '../common/options.js';
import { secretKeys, signingSecrets } from '../common/secret-options.js';
import { checkServerTlsPair, readServerTls } from '../common/transport-options.js';
import { reproducerOf } from './repro.js';
import type { RoleDeps, RunOptions, SenderFlags } from './run-options.js';
import { plural } from '../../text.js';
import { formatDuration } from '../../duration.js';

/** Interface A's callback listener and its waits (§4.2), of the receiver role alone. */
const CALLBACK_FLAGS = ['callbackListen', 'callbackUrl', 'callbackWait'];
/** Flags of the receiver role (cai sends to a target) that mean nothing when cai is the receiver. */
const RECEIVER_ONLY = [
  'to',
  'mock',
  'break',
  'branchCode',
  'leadId',
  ...CALLBACK_FLAGS,
  'timeout',
  'ca',
  'insecure',
  'proxy',
  'sourceAddress',
  ...secretKeys('callback-secret'),
  'failFast',
  'maxFailures',
];
/** Flags of the sender role. */
const SENDER_ONLY = ['trigger', 'listen', 'publicUrl', 'wait', 'tlsCert', 'tlsKey'];

/** A flag given on the command line for the other role: a usage error rather than a silent no-op. */
export function refuseFlagsOfOtherRole(role: 'receiver' | 'sender', command: Command): void {
  const given = flagGiven(command, role === 'sender' ? RECEIVER_ONLY : SENDER_ONLY);
  if (given === undefined) return;
  throw role === 'sender'
    ? usageError(
        'conflicting_options',
        `${given} does not apply to --role sender`,
        'in a sender run cai is the receiver: the sender under test posts to CAI_TARGET_URL (see --trigger)',
      )
    : usageError(
        'conflicting_options',
        `${given} applies to --role sender only`,
        'add --role sender to judge a sender, or drop the option',
      );
}

/**
 * In the receiver role, the flags of one interface only (A's callback listener and X-CAI-Source, §4.1; B's lead_id),
 * given on the command line for the other: a usage error rather than a silent no-op, as a flag of the other role is.
 */
const INTERFACE_ONLY: Readonly<Record<InterfaceId, readonly string[]>> = {
  A: ['source', ...CALLBACK_FLAGS, ...secretKeys('callback-secret')],
  B: ['leadId'],
};

export function refuseFlagsOfOtherInterface(iface: InterfaceId | undefined, command: Command): void {
  if (iface === undefined) return;
  const other = otherInterface(iface);
  const given = flagGiven(command, INTERFACE_ONLY[other.id]);
  if (given === undefined) return;
  throw usageError(
    'conflicting_options',
    `${given} is for interface ${other.id}, not ${iface}`,
    `pass --interface ${other.id} to check ${other.endpointKind}, or drop the option`,
  );
}

export async function runSenderRole(
  options: RunOptions,
  command: Command,
  context: CommandContext,
  deps: RoleDeps,
): Promise<number> {
  const { io, output } = context;
  refuseFlagsOfOtherRole('sender', command);
  const { iface, identity } = checkSenderOptions(options);
  const selection = await planSenderRun(iface, options, deps.explore, context);
  const secrets = signingSecrets(options, context);
  const waivers = options.waivers !== undefined ? await deps.loadWaivers(options.waivers) : undefined;
  const tls = await readServerTls(options, io);
  const { checkRunFiles, runAndReport, INTERRUPTED_REPORT } = await import('./report.js');
  await checkRunFiles(options, context);

  const byHand = byHandRun(options);
  const { runSenderConformance } = await import('../../conformance/run-sender.js');
  const secretValues = secrets.map((secret) => secret.value);
  return runAndReport(
    { interface: iface, role: 'sender', startedAt: new Date(), mock: false },
    options,
    context,
    secretValues,
    {
      interrupted: () =>
        output.warn(`interrupted: ending the scenario under way, skipping the rest; ${INTERRUPTED_REPORT}`),
      // A sender that sent nothing (exit 3): the report files still say so.
      execute: (signal) =>
        runSenderConformance({
          interface: iface,
          identity,
          secrets: secretValues,
          secretLabel: secrets[0]?.label,
          trigger: options.trigger,
          listen: options.listen,
          publicUrl: options.publicUrl,
          tls,
          waitMs: options.wait,
          observeMs: options.observe,
          selection,
          concurrency: options.concurrency,
          waivers,
          reproDir: options.reproDir,
          reproducer: reproducerOf(deps.invocation, () => deps.rerun),
          explore: deps.explore,
          env: io.env,
          cwd: io.cwd,
          signal,
          onListening: byHand
            ? (url) =>
                output.info(
                  `listening as ${interfaceSpec(iface).endpointName} on ${url}; waiting for the sender, one scenario at a time`,
                )
            : undefined,
          onScenarioStart: byHand ? (start) => instruct(start, iface, context) : undefined,
          onScenarioEnd:
            byHand || (output.stderrIsTTY && !output.json) ? (summary) => showEnd(summary, context) : undefined,
        }),
    },
  );
}

/** The usage errors of a sender run, before anything is planned; returns the interface and the identity to expect. */
function checkSenderOptions(options: RunOptions): { iface: InterfaceId; identity: string } {
  const iface = options.interface;
  if (!iface)
    throw usageError(
      'missing_option',
      "which interface's sender to judge?",
      "pass --interface B (a provider's event sender) or --interface A (a platform's job sender)",
    );
  const spec = interfaceSpec(iface);
  const identity = options[spec.identityOption];
  if (!identity)
    throw usageError(
      'missing_option',
      `interface ${iface} needs the ${spec.identityName} the sender must send`,
      identityHint(iface),
    );
  if (options.wait !== undefined && options.wait <= 0)
    throw usageError('bad_option', '--wait must be more than 0', 'pass a duration such as 60s');
  if (options.observe !== undefined && options.observe <= 0)
    throw usageError('bad_option', '--observe must be more than 0', 'pass a duration such as 2s');
  if (options.trigger !== undefined && options.trigger.trim() === '')
    throw usageError(
      'bad_option',
      '--trigger is empty',
      'pass the command that makes the sender send, e.g. --trigger \'my-sender --to "$CAI_TARGET_URL"\'',
    );
  if (options.publicUrl !== undefined && new URL(options.publicUrl).pathname !== '/') {
    throw usageError(
      'bad_option',
      `--public-url ${options.publicUrl} has a path`,
      'pass only the origin (https://host[:port]) that forwards to the listener with paths unchanged',
    );
  }
  checkServerTlsPair(options);
  return { iface, identity };
}

/** The checks a sender run selects: an unknown id or tag, or a stateful phase past its cap, is a usage error. */
async function planSenderRun(
  iface: InterfaceId,
  options: RunOptions,
  explore: RoleDeps['explore'],
  { output }: CommandContext,
): Promise<Selection> {
  const { planRun, splitSelectors } = await import('../../conformance/catalogue.js');
  const selection = {
    only: splitSelectors(options.only),
    skip: splitSelectors(options.skip),
    include: splitSelectors(options.include),
  };
  const plan = planRun('sender', iface, selection);
  if (plan.unknownSelectors.length > 0) {
    throw usageError(
      'unknown_check',
      `no interface ${iface} sender check or tag matches: ${plan.unknownSelectors.join(', ')}`,
      `run 'cai conformance list --role sender --interface ${iface}' for the ids and tags`,
    );
  }
  if (plan.planned.every((item) => item.skipReason !== undefined))
    throw usageError('nothing_to_run', 'the selection leaves no check to run', 'loosen --only / --skip');
  if (explore && (explore.requests ?? 0) > EXPLORE_CAPS.sender.conversations) {
    throw usageError(
      'bad_option',
      `--generate ${explore.requests} is more conversations than a sender run plays (at most ${EXPLORE_CAPS.sender.conversations})`,
      `pass --generate ${EXPLORE_CAPS.sender.conversations} or fewer: each is a run of the trigger`,
    );
  }
  if (
    explore &&
    byHandRun(options) &&
    plan.planned.some((item) => item.skipReason === undefined && /-STATE-/.test(item.check.id))
  ) {
    output.note(
      'sending by hand: the stateful phase needs --trigger (it plays generated conversations through it); its checks are not judged',
    );
  }
  return selection;
}

const byHandRun = (options: SenderFlags) => options.trigger === undefined;

/** What a person sending by hand is told at the start of each scenario (stderr). */
function instruct(start: ScenarioStart, iface: InterfaceId, { output }: CommandContext): void {
  const spec = interfaceSpec(iface);
  const where = spec.path === '' ? start.targetUrl : `${start.targetUrl} (it posts to ${spec.path} there)`;
  output.info('');
  output.info(`scenario ${start.index}/${start.total} ${start.id}: ${start.purpose}`);
  output.info(`  send one or more ${spec.documentName}s to ${where} now, and let the sender retry as it would`);
  output.info(
    `  answers to each ${spec.documentName}'s attempts: ${start.script}; waiting up to ${Math.round(start.waitMs / 1000)} s (--wait)`,
  );
}

/** One line per finished scenario: on a terminal with --trigger, and always by hand. */
function showEnd(summary: ScenarioSummary, { output }: CommandContext): void {
  const count = summary.attempts.length;
  const answers = summary.attempts.map((attempt) => attempt.answer).join(', ');
  const documents = `${plural(summary.deliveries, 'document')}, `;
  output.info(
    `${count === 0 ? output.errColor.red('✗') : output.errColor.green('•')} ${summary.id}: ${count > 0 ? documents : ''}${plural(count, 'attempt')} in ${formatDuration(summary.durationMs)}${count > 0 ? ` (answered ${answers})` : ''}`,
  );
}
