/**
 * What `cai trigger` shows: the flows (`--list`), each event's answer as it comes and the flow's summary
 * (Interface B), the job's answer, each of the provider's events as it arrives and the time to first contact against
 * §8 (Interface A, `job`); or one JSON document of each with `--json`. Whatever came from the network (bodies,
 * texts, reasons) is escaped before it is laid out.
 */
import { ExitCode } from '../../errors.js';
import type { AttemptRecord } from '../../http/deliver.js';

import { repeatOfOwnAttempt, type SendResult } from '../../http/send.js';
import type { Flow, FlowEvent, FlowValues } from '../../send/flows.js';
import type { FlowEventResult, FlowOutcome } from '../../send/trigger.js';
import type { Callback, JobOutcome } from '../../send/trigger-job.js';
import { rawHttpRequest, type DryRunRequest } from '../../send/dry-run.js';
import { curlForDryRun } from '../send/dry-run-view.js';
import { printAttemptHeaders } from '../send/delivery-progress.js';
import { SIGNATURE_WINDOW_SECONDS } from '../../spec/constants.js';
import type { Output } from '../../output/output.js';
import { bodyForJson, bodyForTerminal } from '../send/response-body.js';
import { safeText } from '../../output/safe-text.js';
import { describeAttempt, exitCodeOf, statusText } from '../send/result.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import { formatDuration } from '../../duration.js';
import { plural } from '../../text.js';

/** `cai trigger --list`. */
export async function renderFlowList(flows: readonly Flow[], output: Output): Promise<number> {
  if (output.json) {
    output.printJson({
      flows: flows.map((flow) => ({
        name: flow.name,
        interface: flow.interface,
        description: flow.description,
        events: flow.steps.map((step) => step.event),
      })),
    });
    return ExitCode.ok;
  }
  const rows = flows.map((flow) => [
    flow.name,
    flow.interface,
    interfaceSpec(flow.interface).document === 'event' ? String(flow.steps.length) : '-',
    flow.description,
  ]);
  output.result(
    await output.table(['flow', 'interface', 'events', 'what it sends'], rows, [
      { fit: 'fixed' },
      { fit: 'fixed' },
      { fit: 'fixed' },
      { fit: 'wrap', min: 20 },
    ]),
  );
  return ExitCode.ok;
}

/** `--dry-run`: every request of the flow, signed now, as raw HTTP (one after another) or curl commands; nothing sent. */
export function renderFlowDryRun(
  flow: Flow,
  requests: readonly DryRunRequest[],
  format: 'http' | 'curl',
  output: Output,
): number {
  output.info(
    `dry run: nothing sent. Each signature is valid for ${SIGNATURE_WINDOW_SECONDS} s from its timestamp (§5.5); a real send signs afresh.`,
  );
  if (output.json) {
    output.printJson({
      dryRun: true,
      flow: flow.name,
      requests: requests.map((request) => ({
        method: 'POST',
        url: request.url,
        headers: request.headers,
        body: request.body.toString('utf8'),
      })),
    });
    return ExitCode.ok;
  }
  for (const [index, request] of requests.entries()) {
    if (format === 'curl') output.result(curlForDryRun(request));
    else {
      if (index > 0) output.resultRaw('\n');
      output.resultRaw(rawHttpRequest(request).toString('utf8'));
      output.resultRaw('\n');
    }
  }
  return ExitCode.ok;
}

/** A retry of one event's delivery, on stderr; with --verbose every attempt's headers (the signature, never the secret). */
export function attemptLine(attempt: AttemptRecord, verbose: boolean, output: Output): void {
  if (verbose) printAttemptHeaders(attempt, output);
  if (attempt.decision === 'retry')
    output.info(
      `  attempt ${attempt.attempt}: ${describeAttempt(attempt)}; retrying in ${formatDuration(attempt.waitMs ?? 0)}`,
    );
}

function statusOf(result: SendResult): string {
  const status = result.delivery.response?.status;
  return status === undefined ? '' : statusText(status);
}

/** One line per answer: `✔ 2/4 conversation.message  202 new  event_id …`. */
export function flowEventLine(result: FlowEventResult, total: number, output: Output): void {
  const sent = result.sent;
  if (sent === undefined) return;
  const c = output.color;
  const head = `${result.index}/${total} ${result.event.padEnd(23)}`;
  const id = c.dim(`event_id ${safeText(result.eventId)}`);
  if (sent.verdict === 'accepted' || sent.verdict === 'duplicate') {
    const what =
      sent.verdict === 'accepted'
        ? 'new'
        : repeatOfOwnAttempt(sent)
          ? 'duplicate of its own earlier attempt, which reached the platform though its answer never came (§2.13)'
          : 'duplicate: the platform had it already (§2.13)';
    output.resultWrapped(`${c.green('✔')} ${head} ${statusOf(sent)}, ${what}  ${id}`, '  ');
    return;
  }
  notAcceptedLine(sent, head, `  ${id}`, output);
}

/** `✘ <what> rejected: <status> <why><tail>` or `✘ <what> not delivered (last answer <status>)<tail>`. */
function notAcceptedLine(sent: SendResult, what: string, tail: string, output: Output): void {
  const cross = output.color.red('✘');
  if (sent.verdict === 'rejected') {
    const response = sent.delivery.response;
    const why =
      sent.ack && !sent.ack.ok
        ? sent.ack.problems.map((problem) => safeText(problem)).join('; ')
        : response
          ? oneLine(bodyForTerminal(response.body, response.headers))
          : '';
    output.resultWrapped(`${cross} ${what} rejected: ${statusOf(sent)}${why === '' ? '' : ` ${why}`}${tail}`, '  ');
    return;
  }
  const last = statusOf(sent) === '' ? '' : ` (last answer ${statusOf(sent)})`;
  output.resultWrapped(`${cross} ${what} not delivered${last}${tail}`, '  ');
}

function oneLine(text: string): string {
  const line = text.replace(/\s*\n\s*/g, ' ');
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * The summary of a flow of Interface B, and its exit code: 0 every event accepted, 1 one rejected or the flow stopped
 * before its end (Ctrl-C, SIGTERM: an interrupted run does not pass, docs/cli.md), 3 one not delivered.
 */
export function renderFlowOutcome(
  flow: Flow,
  to: string,
  values: FlowValues,
  events: readonly FlowEvent[],
  outcome: FlowOutcome,
  output: Output,
): number {
  const { summary } = outcome;
  const exitCode =
    outcome.stoppedBy === undefined
      ? ExitCode.ok
      : outcome.stoppedBy === 'failed'
        ? ExitCode.delivery
        : ExitCode.negative;
  const failed = outcome.results.find((result) => result.sent?.verdict === 'failed')?.sent;
  if (output.json) {
    output.printJson({
      ok: exitCode === ExitCode.ok,
      flow: flow.name,
      interface: flow.interface,
      to,
      leadId: values.lead_id,
      providerJobId: values.provider_job_id,
      events: outcome.results.map((result) => eventJson(result, events[result.index - 1]?.document)),
      summary,
      ...(outcome.stoppedBy !== undefined ? { stoppedBy: outcome.stoppedBy } : {}),
      ...(failed?.delivery.error ? { error: failed.delivery.error } : {}),
      exitCode,
    });
    return exitCode;
  }
  const notSent = summary.notSent > 0 ? `, ${summary.notSent} not sent` : '';
  output.result(
    `${flow.name}: ${summary.sent} of ${summary.events} events sent for lead ${safeText(values.lead_id)}: ${summary.accepted} new, ${plural(summary.duplicates, 'duplicate')}, ${summary.rejected} rejected, ${summary.failed} not delivered${notSent}`,
  );
  if (failed?.delivery.error)
    output.error(failed.delivery.error.message, failed.delivery.error.hint ?? 'check the receiver and try again');
  else if (outcome.stoppedBy === 'rejected')
    output.info(
      'the flow stops at the first event not accepted: the events after it would tell a story with a hole in it',
    );
  else if (outcome.stoppedBy === 'interrupted')
    output.info('interrupted before the end of the flow: the run does not pass');
  return exitCode;
}

function eventJson(result: FlowEventResult, document: Record<string, unknown> | undefined): Record<string, unknown> {
  const sent = result.sent;
  const response = sent?.delivery.response;
  return {
    index: result.index,
    event: result.event,
    eventId: result.eventId,
    verdict: sent?.verdict ?? 'not-sent',
    ...(response
      ? {
          status: response.status,
          response: {
            contentType: response.headers['content-type'] ?? null,
            ...bodyForJson(response.body, response.headers),
          },
        }
      : {}),
    ...(sent ? { attempts: sent.delivery.attempts.length } : {}),
    ...(sent?.ack && !sent.ack.ok ? { problems: sent.ack.problems } : {}),
    ...(sent?.delivery.error ? { error: sent.delivery.error } : {}),
    ...(document ? { document } : {}),
  };
}

/** The job's answer, on stdout, as it comes. */
export function jobLine(sent: SendResult, output: Output): void {
  const c = output.color;
  if (sent.verdict === 'accepted' || sent.verdict === 'duplicate') {
    const ack = sent.ack;
    const facts = [
      ack?.providerJobId !== undefined ? `provider_job_id ${safeText(ack.providerJobId)}` : '',
      ack?.assignedNumberE164 !== undefined ? `number ${safeText(ack.assignedNumberE164)}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    output.resultWrapped(
      `${c.green('✔')} job accepted (${statusOf(sent)})${facts === '' ? '' : `: ${facts}`}; waiting for the provider's events`,
      '  ',
    );
    return;
  }
  notAcceptedLine(sent, 'job', '', output);
}

/** One of the provider's events as it arrives: `+3 s   agent: Hello …`, `+41 s  appointment.booked: …`. */
export function callbackLine(callback: Callback, output: Output): void {
  const c = output.color;
  const at = `+${formatDuration(callback.afterMs)}`.padEnd(9);
  const lead = callback.otherLead
    ? c.yellow(` (lead ${safeText(String(callback.document?.lead_id ?? '?'))}: not the job's)`)
    : '';
  if (callback.verdict === 'rejected') {
    output.resultWrapped(
      `${at}${c.red('✘')} refused ${callback.status} ${safeText(callback.reason ?? '')}: ${safeText(callback.message ?? '')}`,
      ' '.repeat(11),
    );
    return;
  }
  if (callback.verdict === 'duplicate') {
    output.resultWrapped(
      `${at}${c.dim(`duplicate of ${safeText(callback.event ?? 'an event')} ${safeText(callback.eventId ?? '')} (a retry; answered as §2.13 says)`)}`,
      ' '.repeat(9),
    );
    return;
  }
  output.resultWrapped(`${at}${describeEvent(callback.document ?? {})}${lead}`, ' '.repeat(9));
}

function describeEvent(document: Record<string, unknown>): string {
  const text = (key: string) =>
    typeof document[key] === 'string' || typeof document[key] === 'number' ? safeText(String(document[key])) : '';
  switch (document.event) {
    case 'conversation.message': {
      const who = text('author') || (document.direction === 'inbound' ? 'contact' : 'agent');
      return `${who}${document.channel !== undefined ? ` (${text('channel')})` : ''}: ${text('text')}`;
    }
    case 'job.closed':
      return `job.closed: ${text('outcome')}${document.attempts !== undefined ? ` after ${text('attempts')} attempt${document.attempts === 1 ? '' : 's'}` : ''}`;
    default:
      return `${text('event')}: ${[text('scheduled_at'), text('service'), text('branch_code')].filter(Boolean).join(', ')}`;
  }
}

/** The end of `cai trigger job`: the time to first contact against §8, what came, and the exit code. */
export function renderJobOutcome(to: string, outcome: JobOutcome, output: Output): number {
  const accepted = outcome.sent.verdict === 'accepted' || outcome.sent.verdict === 'duplicate';
  const refused = outcome.callbacks.filter((callback) => callback.verdict === 'rejected').length;
  const within = outcome.firstContactMs !== undefined && outcome.firstContactMs <= outcome.targetMs;
  const exitCode = !accepted ? exitCodeOf(outcome.sent) : within && refused === 0 ? ExitCode.ok : ExitCode.negative;
  if (output.json) {
    output.printJson({
      ok: exitCode === ExitCode.ok,
      flow: 'job',
      interface: 'A',
      to,
      callbackUrl: outcome.callbackUrl,
      job: outcome.job,
      verdict: outcome.sent.verdict,
      ...(outcome.sent.ack?.providerJobId !== undefined ? { providerJobId: outcome.sent.ack.providerJobId } : {}),
      ...(outcome.sent.delivery.error ? { error: outcome.sent.delivery.error } : {}),
      callbacks: outcome.callbacks,
      firstContactMs: outcome.firstContactMs ?? null,
      targetMs: outcome.targetMs,
      withinTarget: within,
      end: outcome.end,
      exitCode,
    });
    return exitCode;
  }
  if (!accepted) {
    const error = outcome.sent.delivery.error;
    if (error) output.error(error.message, error.hint ?? 'check the provider endpoint and try again');
    return exitCode;
  }
  const target = formatDuration(outcome.targetMs);
  const c = output.color;
  if (outcome.firstContactMs === undefined)
    output.result(`${c.red('✘')} no first contact: no outbound message came (§8: within ${target} of the job)`);
  else if (within)
    output.result(
      `${c.green('✔')} first contact after ${formatDuration(outcome.firstContactMs)}: within the ${target} of §8`,
    );
  else
    output.result(
      `${c.red('✘')} first contact after ${formatDuration(outcome.firstContactMs)}: over the ${target} of §8`,
    );
  output.result(`${eventsSummary(outcome.callbacks)}; ${endWords(outcome.end)}`);
  if (refused > 0)
    output.warn(
      `${refused} of the provider's requests ${refused === 1 ? 'was' : 'were'} refused by the platform's receiver (a signature, the provider code or the document): see the lines marked ✘`,
    );
  return exitCode;
}

function endWords(end: JobOutcome['end']): string {
  return {
    'conversation-over': 'the conversation ended',
    refused: 'stopped after a refused event and the quiet after it (--observe): the run has failed',
    waited: 'the wait is over (--wait)',
    interrupted: 'interrupted',
    'not-accepted': 'the job was not accepted',
  }[end];
}

function eventsSummary(callbacks: readonly Callback[]): string {
  const accepted = callbacks.filter((callback) => callback.verdict === 'accepted');
  const messages = accepted.filter((callback) => callback.event === 'conversation.message');
  const outbound = messages.filter((callback) => callback.document?.direction === 'outbound').length;
  const results = accepted
    .filter((callback) => callback.event !== 'conversation.message')
    .map((callback) => safeText(callback.event ?? '?'));
  const duplicates = callbacks.filter((callback) => callback.verdict === 'duplicate').length;
  const last = callbacks.at(-1)?.afterMs ?? 0;
  const parts = [
    `${plural(messages.length, 'message')} (${outbound} outbound, ${messages.length - outbound} inbound)`,
    ...results,
  ];
  return `${plural(accepted.length, 'event')} from the provider in ${formatDuration(last)}: ${parts.join(', ')}${duplicates > 0 ? `; ${duplicates} repeated` : ''}`;
}
