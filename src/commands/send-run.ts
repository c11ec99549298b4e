/**
 * The body of `cai send-job` / `cai send-event` / `cai replay`, loaded lazily by their actions:
 * body preparation, validation, transport set-up, the send itself, and rendering in the manner of
 * Stripe CLI (status, Retry-After, Content-Type, body, latency, attempts) or as one JSON document.
 */
import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import type { CommandContext } from '../cli/runner.js';
import { readBodyInput } from '../input.js';
import { openTransport } from '../cli/transport-options.js';
import { secretsFromOptions } from '../cli/secret-options.js';
import { usageError, ExitCode } from '../errors.js';
import type { Output } from '../output/output.js';
import { EVENT_TYPES, HeaderNames, type EventType } from '../spec/constants.js';
import { statusRule } from '../spec/statuses.js';
import { describeIssue } from '../spec/issues.js';
import { sign } from '../signing/sign.js';
import { originOf } from '../http/client.js';
import { ProgressLine } from '../output/progress.js';
import type { AttemptRecord, DeliverOptions } from '../http/deliver.js';
import { formatDuration, planSchedule, resolvePolicy, type PlannedAttempt, type RetryPolicy } from '../http/retry.js';
import { contactJobsUrl, sendEvent, sendJob, type SendResult } from '../http/send.js';
import type { HttpResponse } from '../http/client.js';
import type { SendOptions, TransportOptions } from './send-shared.js';

export type SendKind = 'job' | 'event';

export async function runSend(kind: SendKind, options: SendOptions, context: CommandContext): Promise<number> {
  const policy = retryPolicyOf(options);
  if (options.printSchedule) return printSchedule(policy, context.output);
  const to = requireOption(options.to, '--to', kind === 'job' ? "the provider's base URL, e.g. --to https://provider.example/cai" : 'the events URL, e.g. --to https://platform.example/cai/events');
  const identity =
    kind === 'job'
      ? requireOption(options.source, '--source', 'the X-CAI-Source value identifying the platform (§4.1), e.g. --source platform')
      : requireOption(options.provider, '--provider', 'your provider_code for X-CAI-Provider (§4.2), e.g. --provider acme');
  if (options.ndjson !== undefined) {
    const { runBatchCommand } = await import('./send-batch.js');
    return runBatchCommand(kind, { ...options, to, identity }, context);
  }
  if (options.format === 'curl' && !options.dryRun) {
    throw usageError('conflicting_options', '--format curl prints a command instead of sending, so it needs --dry-run', 'add --dry-run to print the curl command, or drop --format to send');
  }
  for (const flag of ['output', 'resume', 'rate'] as const) {
    if (options[flag] !== undefined) throw usageError('conflicting_options', `--${flag} works in batch mode only`, 'add --ndjson FILE to send a batch, or drop the option');
  }
  const secret = signingSecret(options, context);
  const prepared = await prepareBody(kind, options, context);
  if (options.validate) {
    const refused = await refuseInvalid(kind, prepared.body, context);
    if (refused !== undefined) return refused;
  }
  const url = kind === 'job' ? contactJobsUrl(to) : to;
  const headers = { 'Content-Type': 'application/json', [kind === 'job' ? HeaderNames.source : HeaderNames.provider]: identity };
  if (options.dryRun) return printDryRun({ url, headers, body: prepared.body, bodyFile: prepared.file, secret }, options, context);

  const dispatcher = await dispatcherFor(options, url, context, 1);
  try {
    const deliverOptions = await interactiveDeliverOptions(options, policy, dispatcher, context, url);
    const send = kind === 'job' ? sendJob({ to, body: prepared.body, secret, source: identity }, deliverOptions.options) : sendEvent({ to, body: prepared.body, secret, provider: identity }, deliverOptions.options);
    const result = await send.finally(deliverOptions.dispose);
    return renderResult(result, context);
  } finally {
    await dispatcher.close();
  }
}

// ---------------------------------------------------------------------------------------------- options

export function retryPolicyOf(options: TransportOptions): RetryPolicy {
  return resolvePolicy({
    enabled: options.retry,
    retryForMs: options.retryFor,
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.initialDelay !== undefined ? { initialDelayMs: options.initialDelay } : {}),
  });
}

export function requireOption(value: string | undefined, flag: string, hint: string): string {
  if (value === undefined || value === '') throw usageError('missing_option', `${flag} is required`, `pass ${hint}`);
  return value;
}

export function signingSecret(options: Record<string, unknown>, { io, output }: CommandContext): string {
  const secrets = secretsFromOptions(options, { prefix: 'secret', defaultEnv: 'CAI_SECRET' }, io.env, io.cwd, output);
  const first = secrets[0];
  if (!first) throw usageError('missing_secret', 'no signing secret', 'pass --secret-env NAME or --secret-file PATH (or set CAI_SECRET)');
  if (secrets.length > 1) output.info(`signing with the first of ${secrets.length} secrets (${first.label})`);
  return first.value;
}

/** The connection pool, with TLS (§5.8), --ca, --insecure, the proxy and the local address. */
export async function dispatcherFor(options: TransportOptions, url: string, context: CommandContext, connections: number): Promise<Dispatcher> {
  const flags = { ca: options.ca, insecure: options.insecure, proxy: options.proxy, localAddress: options.localAddress, connectTimeoutMs: options.timeout, connections };
  const transport = await openTransport(flags, context, url);
  const { openDispatcher } = await import('../http/transport.js');
  return openDispatcher(transport);
}

// ---------------------------------------------------------------------------------------------- body

interface PreparedBody {
  body: Buffer;
  /** The file the body came from, when it did (for --format curl). */
  file?: string;
}

async function prepareBody(kind: SendKind, options: SendOptions, { io, output }: CommandContext): Promise<PreparedBody> {
  const sampling = options.sample !== undefined && options.sample !== false;
  if (sampling && options.body !== undefined) throw usageError('conflicting_options', '--body and --sample both give the body', 'pass one of them');
  if (!sampling) {
    if (options.set?.length || options.unset?.length) {
      throw usageError('conflicting_options', '--set and --unset work with --sample only', 'a --body file is sent byte for byte (§5.2): edit the file instead');
    }
    if (options.callbackUrl !== undefined) throw usageError('conflicting_options', '--callback-url works with --sample only', 'set callback_url in the body file instead');
    if (options.branchCode !== undefined) throw usageError('conflicting_options', '--branch-code works with --sample only', 'set branch_code in the body file instead');
    const body = await readBodyInput(options.body, io, 'body', '--body');
    if (body.length === 0) throw usageError('empty_body', 'the body is empty', 'pass --body FILE, pipe the body on stdin, or use --sample');
    return { body, ...(options.body !== undefined && options.body !== '-' ? { file: options.body } : {}) };
  }
  const { sampleJob, sampleEvent, applyOverrides } = await import('../spec/sample.js');
  let document: Record<string, unknown>;
  if (kind === 'job') {
    document = sampleJob({
      ...(options.callbackUrl !== undefined ? { callbackUrl: options.callbackUrl } : {}),
      ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}),
    });
  } else {
    const type = options.sample === true ? 'conversation.message' : String(options.sample);
    if (!(EVENT_TYPES as readonly string[]).includes(type)) {
      throw usageError('bad_option', `--sample ${type}: not an event type`, `use one of: ${EVENT_TYPES.join(', ')}`);
    }
    document = sampleEvent(type as EventType);
  }
  const set = (options.set ?? []).map(parseSet);
  if (set.length || options.unset?.length) document = applyOverrides(document, { set, unset: options.unset ?? [] });
  const body = Buffer.from(JSON.stringify(document), 'utf8');
  output.info(`sending a generated ${kind === 'job' ? 'contact job' : `${String(document.event ?? 'event')} event`}, event_id ${String(document.event_id)}`);
  return { body };
}

/** `path=value`: the value is JSON when it parses as JSON, else the string itself (as `cai sample --set`). */
export function parseSet(text: string): [string, unknown] {
  const equals = text.indexOf('=');
  if (equals <= 0) throw usageError('bad_override', `--set ${text}: expected path=value`, 'e.g. --set contact.name="Ana Sousa" or --set attempts=4');
  const raw = text.slice(equals + 1);
  try {
    return [text.slice(0, equals), JSON.parse(raw) as unknown];
  } catch {
    return [text.slice(0, equals), raw];
  }
}

/** Validates before sending (unless --no-validate). Returns the exit code when the body is refused. */
async function refuseInvalid(kind: SendKind, body: Buffer, { output }: CommandContext): Promise<number | undefined> {
  const { validateBody } = await import('../spec/validate.js');
  const verdict = validateBody(body, { kind });
  for (const warning of verdict.warnings) output.note(`${warning.path || '(document)'}: ${warning.message}`);
  if (verdict.valid) return undefined;
  if (output.json) {
    output.printJson({ ok: false, verdict: 'invalid', sent: false, errors: verdict.errors, warnings: verdict.warnings, exitCode: ExitCode.negative });
    return ExitCode.negative;
  }
  output.result(`${output.color.red('not sent')}: the body is not a valid ${kind === 'job' ? 'contact job (§2.2)' : 'event (§2.4–2.7)'}`);
  for (const error of verdict.errors) output.result(`  ${describeIssue(error)}`);
  output.info('hint: correct the body, or pass --no-validate to send it anyway (to test a receiver on purpose)');
  return ExitCode.negative;
}

// ---------------------------------------------------------------------------------------------- dry run

interface DryRunRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  bodyFile?: string;
  /** Absent when the captured signature is kept as is. */
  secret?: string;
}

export async function printDryRun(request: DryRunRequest, options: TransportOptions, { io, output }: CommandContext): Promise<number> {
  const headers = { ...request.headers };
  if (request.secret !== undefined) {
    const timestamp = String(Math.floor(io.now() / 1000));
    headers[HeaderNames.timestamp] = timestamp;
    headers[HeaderNames.signature] = sign(request.secret, timestamp, request.body);
  }
  output.info('dry run: nothing sent. The signature is valid for 300 s from its timestamp (§5.5); a real send signs afresh.');
  if (output.json) {
    if (options.format === 'curl') output.note('--json prints the request as one JSON document; --format curl applies without --json');
    output.printJson({ dryRun: true, method: 'POST', url: request.url, headers, body: request.body.toString('utf8'), bodyBytes: request.body.length });
    return 0;
  }
  if (options.format === 'curl') {
    const { curlCommand } = await import('../http/curl.js');
    const data = request.bodyFile !== undefined ? { file: request.bodyFile } : { text: request.body.toString('utf8') };
    output.result(curlCommand({ url: request.url, headers: Object.entries(headers), data }));
    return 0;
  }
  const url = new URL(request.url);
  const head = [`POST ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `Content-Length: ${request.body.length}`];
  output.resultRaw(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), request.body]));
  if (request.body.length === 0 || request.body[request.body.length - 1] !== 0x0a) output.resultRaw('\n');
  return 0;
}

// ---------------------------------------------------------------------------------------------- schedule

export function printSchedule(policy: RetryPolicy, output: Output): number {
  const plan = planSchedule(policy);
  if (output.json) {
    output.printJson({ policy: { ...policy, maxAttempts: Number.isFinite(policy.maxAttempts) ? policy.maxAttempts : null }, attempts: plan.attempts, truncated: plan.truncated });
    return 0;
  }
  output.result(
    `retry schedule for back-to-back 5xx or time-outs: ${policy.enabled ? `within --retry-for ${formatDuration(policy.retryForMs)}` : 'retries off'}` +
      `${Number.isFinite(policy.maxAttempts) ? `, at most ${policy.maxAttempts} attempts` : ''}`,
  );
  const range = (min: number, max: number) => (min === max ? formatDuration(max) : `${formatDuration(min)}–${formatDuration(max)}`);
  const line = (attempt: PlannedAttempt) =>
    attempt.attempt === 1
      ? '  attempt 1    at 0 s'
      : `  attempt ${String(attempt.attempt).padEnd(4)} after ${range(attempt.waitMinMs, attempt.waitMs).padEnd(22)} at ${range(attempt.atMinMs, attempt.atMaxMs)}${attempt.certain ? '' : '  (only if time remains)'}`;
  const attempts = plan.attempts;
  for (let index = 0; index < attempts.length; index += 1) {
    const attempt = attempts[index] as PlannedAttempt;
    // A long run of capped waits is shown as its first two, a summary line, and its last.
    let end = index;
    while (end + 1 < attempts.length && (attempts[end + 1] as PlannedAttempt).waitMs === attempt.waitMs && attempt.attempt > 1) end += 1;
    if (end - index >= 4) {
      output.result(line(attempt));
      output.result(line(attempts[index + 1] as PlannedAttempt));
      output.result(`  …            (attempts ${attempt.attempt + 2}–${(attempts[end - 1] as PlannedAttempt).attempt}: the same wait each time)`);
      output.result(line(attempts[end] as PlannedAttempt));
      index = end;
      continue;
    }
    output.result(line(attempt));
  }
  if (plan.truncated) output.result(`  … (${plan.attempts.length} shown)`);
  output.result(
    `waits double from ${formatDuration(policy.initialDelayMs)} up to ${formatDuration(policy.maxDelayMs)}, each shortened by up to ${Math.round(policy.jitter * 100)}% at random (jitter);` +
      ' a 429 waits its Retry-After instead (§7); 400, 401, 413 and other 4xx are never retried; the attempts themselves also count against --retry-for.',
  );
  return 0;
}

// ---------------------------------------------------------------------------------------------- sending

/**
 * Deliver options for one interactive send: progress lines on stderr, and Ctrl-C handling (the first
 * stops before the next attempt, the second aborts the attempt in flight).
 */
export async function interactiveDeliverOptions(
  options: TransportOptions,
  policy: RetryPolicy,
  dispatcher: Dispatcher,
  { io, output }: CommandContext,
  url: string,
): Promise<{ options: DeliverOptions; dispose: () => void }> {
  const stop = new AbortController();
  const abort = new AbortController();
  const unsubscribe = io.onInterrupt(() => {
    if (!stop.signal.aborted) {
      output.warn('interrupted: no further attempt will be made (press Ctrl-C again to abort the one in flight)');
      stop.abort();
    } else abort.abort();
  });
  const status = new ProgressLine({ io, output });
  status.update(`sending to ${originOf(url)}…`);
  return {
    options: {
      retry: policy,
      timeoutMs: options.timeout,
      dispatcher,
      signal: abort.signal,
      stopSignal: stop.signal,
      onAttempt: (attempt) => {
        status.clear();
        if (options.verbose) printAttemptHeaders(attempt, output);
        if (attempt.decision === 'retry') output.info(`attempt ${attempt.attempt}: ${describeAttempt(attempt)}; retrying in ${formatDuration(attempt.waitMs ?? 0)} (${attempt.reason?.startsWith('Retry-After') ? 'as Retry-After asks' : 'backoff'})`);
      },
    },
    dispose: () => {
      status.clear();
      unsubscribe();
    },
  };
}

function printAttemptHeaders(attempt: AttemptRecord, output: Output): void {
  output.info(`> attempt ${attempt.attempt} at ${attempt.startedAt}`);
  for (const [name, value] of Object.entries(attempt.requestHeaders)) output.info(`> ${name}: ${value}`);
}

export function describeAttempt(attempt: AttemptRecord): string {
  if (attempt.error) return attempt.error.message;
  const status = attempt.status ?? 0;
  const retryAfter = attempt.retryAfter !== undefined ? `, Retry-After ${attempt.retryAfter}` : '';
  return `${status} ${STATUS_CODES[status] ?? ''}`.trim() + `${retryAfter} in ${formatLatency(attempt.latencyMs)}`;
}

function formatLatency(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : formatDuration(ms);
}

// ---------------------------------------------------------------------------------------------- rendering

export function renderResult(result: SendResult, { output }: CommandContext): number {
  const exitCode = result.verdict === 'accepted' || result.verdict === 'duplicate' ? ExitCode.ok : result.verdict === 'rejected' ? ExitCode.negative : ExitCode.delivery;
  if (output.json) {
    output.printJson(jsonResult(result, exitCode));
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
  const status = `${response.status} ${STATUS_CODES[response.status] ?? ''}`.trim();
  const c = output.color;
  if (result.verdict === 'accepted') {
    const what = result.interface === 'A' ? 'job accepted' : 'accepted: a new event';
    output.result(`${c.green('✔')} ${what} (${status})`);
  } else if (result.verdict === 'duplicate') {
    output.result(`${c.green('✔')} accepted as a duplicate (${status}): the platform already had this event_id and did not record it again (§2.13)`);
  } else if (result.ack && !result.ack.ok) {
    output.result(`${c.red('✘')} rejected: the ${response.status} answer breaks ${result.interface === 'A' ? '§2.3/§4.1' : '§2.13'}`);
    for (const problem of result.ack.problems) output.result(`    - ${problem}`);
  } else {
    output.result(`${c.red('✘')} rejected: ${status}${rejectionAdvice(response.status)}`);
  }
  printExchange(result, response, output);
  return exitCode;
}

/** The §7 client action for a rejection, in brackets; a 4xx the table does not name is not retried either. */
function rejectionAdvice(status: number): string {
  const rule = statusRule(status);
  return rule?.action === 'do-not-retry' ? ` (${rule.advice})` : ' (a 4xx is not retried, §7)';
}

function printExchange(result: SendResult, response: HttpResponse, output: Output): void {
  const { delivery } = result;
  const c = output.color;
  const status = `${response.status} ${STATUS_CODES[response.status] ?? ''}`.trim();
  const rows: [string, string][] = [];
  if (result.eventId !== undefined) rows.push(['event_id', result.eventId]);
  if (result.ack?.providerJobId !== undefined) rows.push(['provider_job_id', result.ack.providerJobId]);
  if (result.ack?.assignedNumberE164 !== undefined) rows.push(['assigned_number', result.ack.assignedNumberE164]);
  rows.push(['url', result.url]);
  rows.push(['status', status]);
  if (response.headers['retry-after'] !== undefined) rows.push(['retry-after', response.headers['retry-after']]);
  if (response.headers.location !== undefined) rows.push(['location', response.headers.location]);
  rows.push(['content-type', response.headers['content-type'] ?? '(none)']);
  rows.push(['latency', formatLatency(response.latencyMs)]);
  const statuses = delivery.attempts.map((a) => (a.status !== undefined ? String(a.status) : (a.error?.code ?? '?')));
  rows.push(['attempts', delivery.attempts.length === 1 ? '1' : `${delivery.attempts.length} (${statuses.join(' → ')}) in ${formatDuration(delivery.elapsedMs)}`]);
  for (const [name, value] of rows) output.result(`  ${c.dim(name.padEnd(16))}${value}`);
  output.result(`  ${c.dim('body')}`);
  output.result(indent(bodyText(response.body, response.headers['content-type'])));
}

function bodyText(body: Buffer, contentType: string | undefined): string {
  if (body.length === 0) return '(empty)';
  const text = body.toString('utf8');
  if (contentType?.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }
  return text;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

export function jsonResult(result: SendResult, exitCode: number): Record<string, unknown> {
  const { delivery } = result;
  const response = delivery.response;
  let bodyJson: unknown;
  if (response && response.body.length > 0) {
    try {
      bodyJson = JSON.parse(response.body.toString('utf8'));
    } catch {
      bodyJson = undefined;
    }
  }
  return {
    ok: exitCode === ExitCode.ok,
    verdict: result.verdict,
    interface: result.interface,
    url: result.url,
    eventId: result.eventId ?? null,
    ...(result.interface === 'B' && result.ack ? { duplicate: result.ack.duplicate === true } : {}),
    ...(result.ack?.providerJobId !== undefined ? { providerJobId: result.ack.providerJobId } : {}),
    ...(result.ack?.assignedNumberE164 !== undefined ? { assignedNumberE164: result.ack.assignedNumberE164 } : {}),
    problems: result.ack?.problems ?? [],
    response: response
      ? {
          status: response.status,
          contentType: response.headers['content-type'] ?? null,
          retryAfter: response.headers['retry-after'] ?? null,
          headers: response.headers,
          body: response.body.toString('utf8'),
          ...(bodyJson !== undefined ? { json: bodyJson } : {}),
          latencyMs: Math.round(response.latencyMs * 10) / 10,
        }
      : null,
    attempts: delivery.attempts,
    elapsedMs: Math.round(delivery.elapsedMs),
    ...(delivery.error ? { error: delivery.error } : {}),
    exitCode,
  };
}

