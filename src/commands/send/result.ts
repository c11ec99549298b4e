/**
 * The answer to one send, in the manner of Stripe CLI: the verdict, then status, Retry-After, Content-Type, body,
 * latency and attempts; or one JSON document with --json. Returns the exit code: 0 accepted (new or duplicate),
 * 1 rejected, 3 not delivered.
 */
import { STATUS_CODES } from 'node:http';
import { ExitCode } from '../../errors.js';
import type { HttpResponse } from '../../http/client.js';
import type { AttemptRecord } from '../../http/deliver.js';

import { repeatOfOwnAttempt, type SendResult } from '../../http/send.js';
import { formatCap, NETWORK_CAPS } from '../../bounds.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import { isRejection, statusRule } from '../../spec/statuses.js';
import type { Output } from '../../output/output.js';
import { bodyForJson, bodyForTerminal, headerForTerminal } from './response-body.js';
import { safeText } from '../../output/safe-text.js';
import { formatDuration } from '../../duration.js';

/** The exit code of a send's verdict: 0 accepted (new or duplicate), 1 rejected, 3 not delivered. */
export function exitCodeOf(result: SendResult): number {
  return result.verdict === 'accepted' || result.verdict === 'duplicate'
    ? ExitCode.ok
    : result.verdict === 'rejected'
      ? ExitCode.negative
      : ExitCode.delivery;
}

/** `202 Accepted`: a status and its reason phrase (the number alone when HTTP names none). */
export function statusText(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? ''}`.trim();
}

export function renderSendResult(result: SendResult, output: Output): number {
  const exitCode = exitCodeOf(result);
  if (output.json) {
    output.printJson(sendResultJson(result, exitCode));
    return exitCode;
  }
  const { delivery } = result;
  const response = delivery.response;
  if (result.verdict === 'failed' || !response) {
    // The last answer, if one came (a 5xx, a 429, a redirect), is still worth seeing on stdout.
    if (response) {
      output.result(`${output.color.red('✘')} not delivered`);
      printExchange(result, response, output);
    }
    const error = delivery.error ?? { code: 'failed', message: 'delivery failed' };
    output.error(error.message, error.hint ?? 'check the receiver and try again');
    return exitCode;
  }
  const status = statusText(response.status);
  const c = output.color;
  if (result.verdict === 'accepted') {
    const what = interfaceSpec(result.interface).document === 'job' ? 'job accepted' : 'accepted: a new event';
    output.resultWrapped(`${c.green('✔')} ${what} (${status})`, '  ');
  } else if (result.verdict === 'duplicate') {
    output.resultWrapped(
      repeatOfOwnAttempt(result)
        ? `${c.green('✔')} accepted as a duplicate (${status}) of this send's own earlier attempt, which reached the platform though its answer never came: recorded once (§2.13)`
        : `${c.green('✔')} accepted as a duplicate (${status}): the platform already had this event_id and did not record it again (§2.13)`,
      '  ',
    );
  } else if (result.ack && !result.ack.ok) {
    output.resultWrapped(
      `${c.red('✘')} rejected: the ${response.status} answer breaks ${interfaceSpec(result.interface).acknowledgmentSections.join('/')}`,
      '  ',
    );
    for (const problem of result.ack.problems) output.resultWrapped(`    - ${safeText(problem)}`, '      ');
  } else {
    output.resultWrapped(
      `${c.red('✘')} rejected: ${status}${interfaceSpec(result.interface).refusals === 'any-4xx' ? jobRejectionAdvice(response.status) : rejectionAdvice(response.status)}`,
      '  ',
    );
  }
  for (const note of result.ack?.notes ?? []) output.resultWrapped(`  ${c.dim('note:')} ${note}`, '    ');
  printExchange(result, response, output);
  return exitCode;
}

/**
 * Interface A: §4.1 leaves the provider's error statuses open (§7 is Interface B's table), so only what a status
 * usually means there, in the terms of Interface A: the jobs secret, the clock, X-CAI-Source.
 */
const JOB_REJECTIONS: Readonly<Record<number, string>> = {
  400: 'the provider refused the job: check it against §2.2 with `cai validate job`',
  401: 'the provider refused the credential: check the jobs secret (each direction has its own, §5.1), the clock (300 s window, §5.5) and --source (X-CAI-Source, §4.1)',
  413: 'the provider found the job too large',
};

function jobRejectionAdvice(status: number): string {
  const meaning = JOB_REJECTIONS[status];
  return ` (${meaning === undefined ? '' : `${meaning}; `}not retried: §4.1 leaves the provider's error statuses open)`;
}

/**
 * The §7 client action for a rejection, in brackets. A status the table does not name is not retried either
 * (classifyStatus): a 4xx, or one outside HTTP's 100–599 (999).
 */
function rejectionAdvice(status: number): string {
  const rule = statusRule(status);
  if (rule?.action === 'do-not-retry') return ` (${rule.advice})`;
  return isRejection(status)
    ? ' (a 4xx is not retried, §7)'
    : ` (${status} is in neither §7's table nor HTTP's classes: taken as a rejection, not retried)`;
}

function printExchange(result: SendResult, response: HttpResponse, output: Output): void {
  const { delivery } = result;
  const c = output.color;
  const text = (value: string | undefined) => (value === undefined ? undefined : safeText(value));
  const header = (name: string) => {
    const value = response.headers[name];
    return value === undefined ? undefined : headerForTerminal(value);
  };
  const statuses = delivery.attempts.map((a) => (a.status !== undefined ? String(a.status) : (a.error?.code ?? '?')));
  // Every value below but the status and the timings comes from the body sent or the answer: escaped.
  const rows: [string, string | undefined][] = [
    ['event_id', text(result.eventId)],
    ['provider_job_id', text(result.ack?.providerJobId)],
    ['assigned_number', text(result.ack?.assignedNumberE164)],
    ['url', safeText(result.url)],
    ['status', statusText(response.status)],
    ['retry-after', header('retry-after')],
    ['location', header('location')],
    ['content-type', header('content-type') ?? '(none)'],
    ['encoding', header('content-encoding')],
    ['latency', formatDuration(response.latencyMs)],
    [
      'attempts',
      delivery.attempts.length === 1
        ? '1'
        : `${delivery.attempts.length} (${statuses.join(' → ')}) in ${formatDuration(delivery.elapsedMs)}`,
    ],
  ];
  for (const [name, value] of rows)
    if (value !== undefined) output.resultWrapped(`  ${c.dim(name.padEnd(16))}${value}`, ' '.repeat(18));
  output.result(`  ${c.dim('body')}`);
  // The body as received, escaped, or summarised when binary; on a terminal its long lines wrap under the indent.
  const body = bodyForTerminal(response.body, response.headers);
  output.result(output.fit(`    ${body.split('\n').join('\n    ')}`, '    '));
  if (response.bodyTruncated)
    output.result(
      `    ${c.dim(`(cut at ${formatCap(NETWORK_CAPS.responseBodyBytes)}: the rest was discarded and the connection closed)`)}`,
    );
}

function sendResultJson(result: SendResult, exitCode: number): Record<string, unknown> {
  const { delivery } = result;
  const response = delivery.response;
  const shown = response ? bodyForJson(response.body, response.headers) : undefined;
  return {
    ok: exitCode === ExitCode.ok,
    verdict: result.verdict,
    interface: result.interface,
    url: result.url,
    eventId: result.eventId ?? null,
    // null: not known (the part of the body that would say was not read).
    ...(interfaceSpec(result.interface).repeatAnswer === 'duplicate-ack' && result.ack
      ? { duplicate: result.ack.duplicate === undefined && result.ack.notes ? null : result.ack.duplicate === true }
      : {}),
    ...(result.ack?.providerJobId !== undefined ? { providerJobId: result.ack.providerJobId } : {}),
    ...(result.ack?.assignedNumberE164 !== undefined ? { assignedNumberE164: result.ack.assignedNumberE164 } : {}),
    problems: result.ack?.problems ?? [],
    ...(result.ack?.notes ? { notes: result.ack.notes } : {}),
    response: response
      ? {
          status: response.status,
          contentType: response.headers['content-type'] ?? null,
          retryAfter: response.headers['retry-after'] ?? null,
          headers: response.headers,
          body: shown?.body ?? null,
          ...(shown?.json !== undefined ? { json: shown.json } : {}),
          ...(shown?.binary ? { bodyBinary: shown.binary } : {}),
          ...(response.bodyTruncated ? { bodyTruncated: true } : {}),
          latencyMs: Math.round(response.latencyMs * 10) / 10,
        }
      : null,
    attempts: delivery.attempts,
    elapsedMs: Math.round(delivery.elapsedMs),
    ...(delivery.error ? { error: delivery.error } : {}),
    exitCode,
  };
}

/** One attempt in a line: the status (and Retry-After) with its latency, or what went wrong. */
export function describeAttempt(attempt: AttemptRecord): string {
  if (attempt.error) return attempt.error.message;
  const retryAfter = attempt.retryAfter !== undefined ? `, Retry-After ${headerForTerminal(attempt.retryAfter)}` : '';
  return `${statusText(attempt.status ?? 0)}${retryAfter} in ${formatDuration(attempt.latencyMs)}`;
}
