/**
 * Batch mode of `cai send-job` / `cai send-event` (`--ndjson FILE|-`): loaded lazily by runSend.
 * One NDJSON result per document (stdout with --json, and/or --output FILE), a summary table at the end,
 * a progress line only on a TTY, and a clean Ctrl-C that says what was and was not sent.
 */
import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import { resolve } from 'node:path';
import type { CommandContext } from '../cli/runner.js';
import { readBodyInput, readFileInput } from '../input.js';
import { ExitCode, usageError } from '../errors.js';
import { acceptedKeysFromResults, runBatch, splitNdjson, type BatchDocument, type BatchRecord, type BatchSummary } from '../http/batch.js';
import { MAX_BODY_BYTES } from '../spec/constants.js';
import { formatDuration } from '../http/retry.js';
import { sendEvent, sendJob } from '../http/send.js';
import { ProgressBar } from '../output/progress.js';
import { LineBuffer } from '../output/line-buffer.js';
import { describeIssue } from '../spec/issues.js';
import { dispatcherFor, retryPolicyOf, signingSecret, type SendKind } from './send-run.js';
import type { SendOptions } from './send-shared.js';

export async function runBatchCommand(kind: SendKind, options: SendOptions & { to: string; identity: string }, context: CommandContext): Promise<number> {
  const { io, output } = context;
  for (const [flag, given] of [
    ['--body', options.body !== undefined],
    ['--sample', options.sample !== undefined && options.sample !== false],
    ['--set', Boolean(options.set?.length)],
    ['--unset', Boolean(options.unset?.length)],
    ['--dry-run', options.dryRun === true],
    ['--callback-url', options.callbackUrl !== undefined],
    ['--branch-code', options.branchCode !== undefined],
  ] as const) {
    if (given) throw usageError('conflicting_options', `${flag} does not work with --ndjson`, 'in batch mode every line of the --ndjson file is one document, sent as is');
  }
  const secret = signingSecret(options, context);
  const input = await readBodyInput(options.ndjson, io, 'NDJSON', '--ndjson');
  const documents = splitNdjson(input, { eventIds: !options.validate });
  if (documents.length === 0) throw usageError('empty_batch', `${options.ndjson === '-' ? 'stdin' : options.ndjson} holds no documents`, 'give one JSON document per line');
  if (options.validate) await validateDocuments(kind, documents);
  const resumed = options.resume !== undefined ? await readResume(options.resume, context) : undefined;
  const results = options.output !== undefined ? openOutput(options.output, options.resume, context) : undefined;
  const outputFile = results?.stream;

  const policy = retryPolicyOf(options);
  const dispatcher = await dispatcherFor(options, options.to, context, options.concurrency);
  const stop = new AbortController();
  const abort = new AbortController();
  const unsubscribe = io.onInterrupt(() => {
    if (!stop.signal.aborted) {
      output.warn('interrupted: finishing the requests in flight, starting no new ones (Ctrl-C again aborts them)');
      stop.abort();
    } else if (!abort.signal.aborted) {
      output.warn('aborting the requests in flight: their outcome is unknown, and they are reported as failed');
      abort.abort();
      dispatcher.destroy().catch(() => {});
    }
  });
  const progress = new ProgressBar(documents.length, context);
  // NDJSON results on stdout in chunks: one write per record costs more than the request itself at thousands a second.
  const ndjson = new LineBuffer((text) => output.resultRaw(text), { delayMs: 0, maxLines: 512 });
  try {
    const { records, summary } = await runBatch(
      documents,
      (document, signals) => {
        // No per-request abort listener (thousands of them on one signal cost more than the requests):
        // a second Ctrl-C destroys the pool instead, which fails every request in flight at once.
        const deliverOptions = { retry: policy, timeoutMs: options.timeout, dispatcher, stopSignal: signals.stopSignal };
        return kind === 'job'
          ? sendJob({ to: options.to, body: document.body, secret, source: options.identity, ...known(document.eventId) }, deliverOptions)
          : sendEvent({ to: options.to, body: document.body, secret, provider: options.identity, ...known(document.eventId) }, deliverOptions);
      },
      {
        concurrency: options.concurrency,
        ...(options.rate !== undefined ? { ratePerSecond: options.rate } : {}),
        stopSignal: stop.signal,
        signal: abort.signal,
        ...(resumed ? { alreadyAccepted: resumed } : {}),
        onRecord: (record) => {
          progress.count(record.verdict === 'accepted' || record.verdict === 'duplicate' || record.verdict === 'skipped' ? 'ok' : 'problem');
          if (outputFile) outputFile.write(`${JSON.stringify(record)}\n`);
          if (output.json) ndjson.json(record);
          else if (record.verdict === 'rejected' || record.verdict === 'failed' || record.verdict === 'invalid') progress.log(describeRecord(record));
        },
      },
    );
    ndjson.flush();
    progress.stop();
    if (outputFile) await closeStream(outputFile);
    await renderSummary(summary, records, options, context);
    const writeFailure = results?.failure();
    if (writeFailure) {
      // An incomplete results file would make a later --resume send documents again: fail the run.
      throw usageError('unwritable_file', `the results file ${options.output} is incomplete: ${writeFailure.message}`, 'free space or fix permissions, then check the summary above before resuming');
    }
    return exitCodeOf(summary);
  } finally {
    progress.stop();
    unsubscribe();
    if (!abort.signal.aborted) await dispatcher.close();
  }
}

/**
 * Validates every document before anything is sent, parsing each once: the parsed value also gives its
 * event_id. Bodies that do not parse (or are over the size limit) go through validateBody for its messages.
 */
async function validateDocuments(kind: SendKind, documents: BatchDocument[]): Promise<void> {
  const { validateBody, validateDocument } = await import('../spec/validate.js');
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  for (const document of documents) {
    let value: unknown;
    if (document.body.length <= MAX_BODY_BYTES) {
      try {
        value = JSON.parse(decoder.decode(document.body));
      } catch {
        value = undefined;
      }
    }
    const verdict = value !== undefined ? validateDocument(value, { kind }) : validateBody(document.body, { kind });
    if (typeof value === 'object' && value !== null && typeof (value as { event_id?: unknown }).event_id === 'string') {
      document.eventId = (value as { event_id: string }).event_id;
    }
    if (!verdict.valid) document.invalid = verdict.errors.map(describeIssue);
  }
}

const known = (eventId: string | undefined) => (eventId !== undefined ? { eventId } : {});

async function readResume(path: string, context: CommandContext): Promise<Set<string>> {
  const text = (await readFileInput(path, context.io, 'resume')).toString('utf8');
  const { keys, records, unreadable } = acceptedKeysFromResults(text);
  if (records === 0 && text.trim() !== '') {
    throw usageError('bad_resume_file', `${path} holds no result records`, 'pass the file a previous run wrote with --output');
  }
  if (unreadable > 0) context.output.warn(`${path}: ${unreadable} line(s) are not result records and were ignored`);
  return keys;
}

function openOutput(path: string, resumePath: string | undefined, { io, output }: CommandContext): { stream: WriteStream; failure(): Error | undefined } {
  const full = resolve(io.cwd, path);
  // Resuming into the same file appends, so it keeps the record of what was accepted before.
  const append = resumePath !== undefined && resolve(io.cwd, resumePath) === full;
  let fd: number;
  try {
    // Opened before anything is sent: a results file that cannot be written must stop the run, not lose records.
    fd = openSync(full, append ? 'a' : 'w');
  } catch (error) {
    throw usageError('unwritable_file', `cannot write the results file ${path}: ${error instanceof Error ? error.message : String(error)}`, 'check the path and its permissions', error);
  }
  const stream = createWriteStream(full, { fd });
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure ??= error;
    output.warn(`cannot write ${path}: ${error.message}`);
  });
  return { stream, failure: () => failure };
}

function closeStream(stream: WriteStream): Promise<void> {
  return new Promise((resolvePromise) => stream.end(() => resolvePromise()));
}

function describeRecord(record: BatchRecord): string {
  const id = record.eventId !== undefined ? ` (${record.eventId})` : '';
  if (record.verdict === 'invalid') return `line ${record.line}${id}: not sent, invalid: ${(record.problems ?? []).join('; ')}`;
  if (record.verdict === 'failed') return `line ${record.line}${id}: failed: ${record.error?.message ?? 'delivery failed'}`;
  const why = record.problems?.length ? record.problems.join('; ') : `status ${record.status ?? '?'}`;
  return `line ${record.line}${id}: rejected: ${why}`;
}

function exitCodeOf(summary: BatchSummary): number {
  if (summary.failed > 0 || summary.notSent > 0) return ExitCode.delivery;
  if (summary.rejected > 0 || summary.invalid > 0) return ExitCode.negative;
  return ExitCode.ok;
}

async function renderSummary(summary: BatchSummary, records: readonly BatchRecord[], options: SendOptions, { output }: CommandContext): Promise<void> {
  const notSentLines = records.filter((record) => record.verdict === 'not-sent').map((record) => record.line);
  if (output.json) {
    output.printJson({ summary: { ...summary, notSentLines: compressLines(notSentLines) } });
    return;
  }
  const rows: (string | number)[][] = [
    ['accepted', summary.accepted],
    ['duplicates (already received, §2.13)', summary.duplicate],
  ];
  const rejectedStatuses = Object.keys(summary.rejectedBy).sort();
  if (rejectedStatuses.length === 0) rows.push(['rejected', 0]);
  for (const status of rejectedStatuses) rows.push([status === 'ack' ? 'rejected: bad acknowledgment' : `rejected ${status}`, summary.rejectedBy[status] ?? 0]);
  rows.push(['failed (delivery)', summary.failed]);
  if (summary.invalid) rows.push(['invalid (not sent)', summary.invalid]);
  if (summary.skipped) rows.push(['skipped (accepted before, --resume)', summary.skipped]);
  if (summary.notSent || summary.interrupted) rows.push(['not sent (interrupted)', summary.notSent]);
  rows.push(['total', summary.total]);
  output.result(await output.table(['result', 'documents'], rows));
  const rate = summary.elapsedMs > 0 ? ` (${Math.round(((summary.total - summary.skipped - summary.invalid) * 1000) / summary.elapsedMs)}/s)` : '';
  output.result(`${summary.attempts} request(s) in ${formatDuration(summary.elapsedMs)}${rate}`);
  if (summary.interrupted) {
    output.result(
      notSentLines.length === 0
        ? 'interrupted: every document had been dealt with'
        : `interrupted: ${notSentLines.length} document(s) not sent: line(s) ${compressLines(notSentLines)}`,
    );
    const hint = options.output !== undefined ? `send the rest with --resume ${options.output} --output ${options.output}` : 'next time pass --output FILE, then --resume FILE sends only what was not accepted';
    output.info(`hint: ${hint}`);
  }
}

/** `1-3, 7, 9-12` */
export function compressLines(lines: readonly number[]): string {
  const parts: string[] = [];
  let start: number | undefined;
  let previous: number | undefined;
  for (const line of [...lines].sort((a, b) => a - b)) {
    if (start !== undefined && previous !== undefined && line === previous + 1) {
      previous = line;
      continue;
    }
    if (start !== undefined) parts.push(start === previous ? String(start) : `${start}-${previous}`);
    start = line;
    previous = line;
  }
  if (start !== undefined) parts.push(start === previous ? String(start) : `${start}-${previous}`);
  return parts.join(', ');
}
