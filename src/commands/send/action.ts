/**
 * `cai send-job` and `cai send-event`, their action: one document (a file, stdin or a sample) signed and sent with
 * the retry policy of §7, or a batch of them (`--ndjson`), and what came of it. Loaded when the command runs.
 */
import type { CommandContext } from '../common/runner.js';
import { signingSecret } from '../common/secret-options.js';
import { openSendPool, requireSendTarget, retryPolicyOf, type SendOptions } from '../common/send-options.js';
import { checkPlainHttp } from '../common/transport-options.js';
import { ExitCode, usageError } from '../../errors.js';
import type { RetryPolicy } from '../../http/retry.js';
import { readBodyInput } from '../../input.js';
import type { Output } from '../../output/output.js';
import type { BatchSummary } from '../../send/batch.js';
import type { SendKind } from '../../http/send.js';
import { describeIssue } from '../../spec/issues.js';
import type { DocumentVerdict } from '../../spec/validate.js';
import { plural } from '../../text.js';

/** The flags and the target of a send, once the required ones are known to be there. */
type Addressed = SendOptions & { to: string; identity: string };

export async function runSend(kind: SendKind, options: SendOptions, context: CommandContext): Promise<number> {
  const { io, output } = context;
  const policy = await retryPolicyOf(options, output);
  if (typeof policy === 'number') return policy;
  const addressed = { ...options, ...requireSendTarget(kind, options) };
  if (options.ndjson !== undefined) return runBatchSend(kind, addressed, policy, context);
  refuseBatchOnlyFlags(options);
  const secret = signingSecret(options, context);
  const [{ prepareBody, checkBody }, { bodySourceOf }] = await Promise.all([
    import('../../send/body.js'),
    import('./body-source.js'),
  ]);
  const prepared = await prepareBody(kind, bodySourceOf(kind, options), io);
  const placeholder = prepared.generated?.placeholderCallbackUrl;
  if (placeholder !== undefined) {
    output.warn(
      `callback_url ${placeholder} is a placeholder: the provider's events for this job would go nowhere; set your events endpoint with --callback-url URL`,
    );
  }
  if (prepared.generated) {
    const { what, eventId } = prepared.generated;
    output.info(`sending a generated ${what}, ${eventId === undefined ? 'no event_id' : `event_id ${eventId}`}`);
  }
  if (options.validate) {
    const refused = renderRefusal(kind, await checkBody(kind, prepared.body), output);
    if (refused !== undefined) return refused;
  }
  const { sendDocument, sendTarget } = await import('../../http/send.js');
  const { url, headers } = sendTarget(kind, addressed.to, addressed.identity);
  if (options.dryRun) {
    const [{ signForDryRun }, { renderDryRun }] = await Promise.all([
      import('../../send/dry-run.js'),
      import('./dry-run-view.js'),
    ]);
    const request = {
      url,
      headers,
      body: prepared.body,
      ...(prepared.file !== undefined ? { bodyFile: prepared.file } : {}),
    };
    return renderDryRun(signForDryRun(request, secret, io.now()), options.format, output);
  }
  const { deliverWatched } = await import('./delivery-progress.js');
  const request = { kind, to: addressed.to, identity: addressed.identity, secret, body: prepared.body };
  return deliverWatched(url, options, policy, context, (deliver) => sendDocument(request, deliver));
}

function refuseBatchOnlyFlags(options: SendOptions): void {
  if (options.format === 'curl' && !options.dryRun) {
    throw usageError(
      'conflicting_options',
      '--format curl prints a command instead of sending, so it needs --dry-run',
      'add --dry-run to print the curl command, or drop --format to send',
    );
  }
  for (const flag of ['output', 'resume', 'rate'] as const) {
    if (options[flag] !== undefined)
      throw usageError(
        'conflicting_options',
        `--${flag} works in batch mode only`,
        'add --ndjson FILE to send a batch, or drop the option',
      );
  }
}

/** The schema's warnings as notes; an invalid body is not sent (exit 1), unless --no-validate. */
function renderRefusal(kind: SendKind, verdict: DocumentVerdict, output: Output): number | undefined {
  for (const warning of verdict.warnings) output.note(describeIssue(warning));
  if (verdict.valid) return undefined;
  if (output.json) {
    output.printJson({
      ok: false,
      verdict: 'invalid',
      sent: false,
      errors: verdict.errors,
      warnings: verdict.warnings,
      exitCode: ExitCode.negative,
    });
    return ExitCode.negative;
  }
  output.result(
    `${output.color.red('not sent')}: the body is not a valid ${kind === 'job' ? 'contact job (§2.2)' : 'event (§2.4–2.7)'}`,
  );
  for (const error of verdict.errors) output.result(`  ${describeIssue(error)}`);
  const count = verdict.errors.length;
  output.error(
    `the body is invalid (${plural(count, 'error')}): not sent`,
    'correct the body, or pass --no-validate to send it anyway (to test a receiver on purpose)',
  );
  return ExitCode.negative;
}

// ---------------------------------------------------------------------------------------------- batch

/** Flags of a single send that say nothing in batch mode, where every line of the file is one document sent as is. */
function refuseSingleOnlyFlags(options: SendOptions): void {
  for (const [flag, given] of [
    ['--body', options.body !== undefined],
    ['--sample', options.sample !== undefined && options.sample !== false],
    ['--set', Boolean(options.set?.length)],
    ['--unset', Boolean(options.unset?.length)],
    ['--dry-run', options.dryRun === true],
    ['--callback-url', options.callbackUrl !== undefined],
    ['--branch-code', options.branchCode !== undefined],
  ] as const) {
    if (given)
      throw usageError(
        'conflicting_options',
        `${flag} does not work with --ndjson`,
        'in batch mode every line of the --ndjson file is one document, sent as is',
      );
  }
}

/**
 * `--ndjson FILE|-`: one result per document (NDJSON on stdout with --json, and/or --output FILE), a summary
 * table at the end, a progress bar only on a terminal, and a clean Ctrl-C that says what was and was not sent.
 */
async function runBatchSend(
  kind: SendKind,
  options: Addressed,
  policy: RetryPolicy,
  context: CommandContext,
): Promise<number> {
  const { io, output } = context;
  refuseSingleOnlyFlags(options);
  checkPlainHttp(options.to, options, output);
  const secret = signingSecret(options, context);
  const { documents, resumed, results } = await openBatchFiles(kind, options, context);
  const dispatcher = await openSendPool(options, context, options.to, options.concurrency);
  const { interruptInTwoSteps } = await import('../../send/interrupt.js');
  const interruption = interruptInTwoSteps(io, {
    onStop: () =>
      output.warn('interrupted: finishing the requests in flight, starting no new ones (Ctrl-C again aborts them)'),
    onAbort: () => {
      output.warn('aborting the requests in flight: their outcome is unknown, and they are reported as failed');
      dispatcher.destroy().catch(() => {});
    },
  });
  const [
    { sendBatch },
    { ProgressBar },
    { LineBuffer },
    { describeRecord, renderBatchSummary },
    { retryPeriodNote },
    { describeAttempt },
  ] = await Promise.all([
    import('../../send/batch.js'),
    import('../../output/progress.js'),
    import('../../output/line-buffer.js'),
    import('./batch-summary.js'),
    import('./delivery-progress.js'),
    import('./result.js'),
  ]);
  const progress = new ProgressBar(documents.length, context);
  // NDJSON results on stdout in chunks: one write per record costs more than the request itself at thousands a second.
  const ndjson = new LineBuffer((text) => output.resultRaw(text), { delayMs: 0, maxLines: 512 });
  let toldRetryPeriod = false;
  try {
    const { records, summary } = await sendBatch(
      { kind, to: options.to, identity: options.identity, secret },
      documents,
      { retry: policy, timeoutMs: options.timeout, dispatcher },
      {
        concurrency: options.concurrency,
        ...(options.rate !== undefined ? { ratePerSecond: options.rate } : {}),
        stopSignal: interruption.stopSignal,
        signal: interruption.signal,
        ...(resumed ? { alreadyAccepted: resumed.keys } : {}),
        onStart: (document) => progress.start(document.line),
        onAttempt: (document, attempt) => {
          progress.attempt(document.line, attempt.decision === 'retry');
          if (attempt.decision === 'retry' && !toldRetryPeriod) {
            toldRetryPeriod = true;
            progress.say(() =>
              output.note(`line ${document.line}: ${describeAttempt(attempt)}; ${retryPeriodNote(policy)}`),
            );
          }
        },
        // Nothing listens at a local target, or the target is no endpoint: every other document would fare the same.
        stopWhen: (record) => STOPS_A_BATCH.has(record.error?.code ?? ''),
        onRecord: (record) => {
          progress.count(
            record.verdict === 'accepted' || record.verdict === 'duplicate' || record.verdict === 'skipped'
              ? 'ok'
              : 'problem',
            record.line,
          );
          results?.write(record);
          if (output.json) ndjson.json(record);
          // Said once, after the summary; each document refused would only repeat it.
          else if (STOPS_A_BATCH.has(record.error?.code ?? '')) return;
          else if (record.verdict === 'rejected' || record.verdict === 'failed' || record.verdict === 'invalid')
            progress.log(describeRecord(record));
        },
      },
    );
    ndjson.flush();
    progress.stop();
    await results?.close();
    await renderBatchSummary(summary, records, options.output, output);
    const writeFailure = results?.failure();
    if (writeFailure) {
      // An incomplete results file would make a later --resume send documents again: fail the run.
      throw usageError(
        'unwritable_file',
        `the results file ${options.output} is incomplete: ${writeFailure.message}`,
        'free space or fix permissions, then check the summary above before resuming',
      );
    }
    return exitCodeOf(summary);
  } finally {
    progress.stop();
    interruption.dispose();
    if (!interruption.signal.aborted) await dispatcher.close();
  }
}

/**
 * The files of a batch: its documents (each validated first with --validate), the documents an earlier run's
 * results say were accepted (--resume), and the results file this run writes (--output).
 */
async function openBatchFiles(kind: SendKind, options: Addressed, { io, output }: CommandContext) {
  const files = await import('../../send/batch-files.js');
  const documents = files.splitNdjson(await readBodyInput(options.ndjson, io, 'NDJSON', '--ndjson', 'batch'), {
    eventIds: !options.validate,
  });
  if (documents.length === 0)
    throw usageError(
      'empty_batch',
      `${options.ndjson === '-' ? 'stdin' : options.ndjson} holds no documents`,
      'give one JSON document per line',
    );
  if (options.validate) await files.validateDocuments(kind, documents);
  const resumed = options.resume !== undefined ? await files.readResume(options.resume, io) : undefined;
  if (resumed && resumed.unreadable > 0)
    output.warn(`${options.resume}: ${resumed.unreadable} line(s) are not result records and were ignored`);
  const results =
    options.output !== undefined
      ? files.openResultsFile(options.output, options.resume, io.cwd, (error) =>
          output.warn(`cannot write ${options.output}: ${error.message}`),
        )
      : undefined;
  return { documents, resumed, results };
}

/** Delivery errors that any other document of the batch would get too: the batch stops at the first. */
const STOPS_A_BATCH: ReadonlySet<string> = new Set(['nothing_listens', 'not_an_endpoint']);

function exitCodeOf(summary: BatchSummary): number {
  if (summary.failed > 0 || summary.notSent > 0) return ExitCode.delivery;
  if (summary.rejected > 0 || summary.invalid > 0) return ExitCode.negative;
  return ExitCode.ok;
}
