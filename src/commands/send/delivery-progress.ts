/**
 * One request delivered (send-job, send-event, replay), and what the terminal shows meanwhile: a status line until
 * the first answer, a line for each retry, each attempt's headers with --verbose; and Ctrl-C in two steps, the first
 * stopping before the next attempt, the second aborting the one in flight.
 */
import { originOf } from '../../http/address.js';
import type { AttemptRecord, DeliverOptions } from '../../http/deliver.js';
import { RetryRuns, type RetryPolicy } from '../../http/retry.js';
import { interruptInTwoSteps } from '../../send/interrupt.js';
import type { Output } from '../../output/output.js';
import { ProgressLine, type Terminal } from '../../output/progress.js';
import { waitNotice } from '../../output/wait-notice.js';
import type { SendResult } from '../../http/send.js';
import type { CommandContext } from '../common/runner.js';
import { openSendPool, type TransportOptions } from '../common/send-options.js';
import { checkPlainHttp } from '../common/transport-options.js';
import { describeAttempt, renderSendResult } from './result.js';
import { formatDuration } from '../../duration.js';

/** The deliver options that report progress and listen for Ctrl-C (`hooks`), and what clears the line and stops listening. */
export function watchDelivery(
  terminal: Terminal,
  url: string,
  verbose: boolean,
  policy: RetryPolicy,
  timeoutMs?: number,
): { hooks: Pick<DeliverOptions, 'signal' | 'stopSignal' | 'onAttempt'>; dispose(): void } {
  const { output, io } = terminal;
  const interruption = interruptInTwoSteps(io, {
    onStop: () =>
      output.warn('interrupted: no further attempt will be made (press Ctrl-C again to abort the one in flight)'),
  });
  const status = new ProgressLine(terminal);
  const origin = originOf(url);
  status.update(`sending to ${origin}…`);
  // Where no line is redrawn, a long wait is told every 10 s: the answer of an attempt, or the next attempt.
  const waiting = waitNotice(output, io.now);
  const answerOf = (attempt: number, from: number) => ({
    what: `the answer of ${origin} (attempt ${attempt})`,
    ...(timeoutMs !== undefined ? { until: from + timeoutMs } : {}),
  });
  waiting.set(answerOf(1, io.now()));
  let told = false;
  // A run of the same answer is said twice: its first retry, and when it ends, one line for the rest (with
  // --verbose, every attempt's headers are shown anyway).
  const runs = new RetryRuns<AttemptRecord>((attempt, repeats) => {
    if (repeats) {
      output.info(
        `attempts ${repeats.first.attempt}–${attempt.attempt}: the same answer (${repeats.count} times); waits ${formatDuration(repeats.first.waitMs ?? 0)} to ${formatDuration(attempt.waitMs ?? 0)}`,
      );
      return;
    }
    output.info(
      `attempt ${attempt.attempt}: ${describeAttempt(attempt)}; retrying in ${formatDuration(attempt.waitMs ?? 0)} (${whyWait(attempt.reason)})`,
    );
    if (!told) output.note(retryPeriodNote(policy));
    told = true;
  });
  return {
    hooks: {
      signal: interruption.signal,
      stopSignal: interruption.stopSignal,
      onAttempt: (attempt) => {
        status.clear();
        waiting.set();
        if (verbose) printAttemptHeaders(attempt, output);
        if (attempt.decision === 'retry') {
          runs.retry(answerKey(attempt), attempt);
          const next = io.now() + (attempt.waitMs ?? 0);
          waiting.set(
            { what: `attempt ${attempt.attempt + 1} to ${origin} (${whyWait(attempt.reason)})`, until: next },
            answerOf(attempt.attempt + 1, next),
          );
        } else runs.end();
      },
    },
    dispose: () => {
      status.clear();
      waiting.stop();
      runs.end();
      interruption.dispose();
    },
  };
}

/** What makes two answers "the same" for the runs of retries: the status and whether it said Retry-After, or the error. */
export function answerKey(attempt: AttemptRecord): string {
  return attempt.status !== undefined
    ? `${attempt.status}${attempt.retryAfter === undefined ? '' : ' retry-after'}`
    : (attempt.error?.code ?? '?');
}

function whyWait(reason: string | undefined): string {
  if (reason?.startsWith('Retry-After')) return 'as Retry-After asks';
  return reason?.includes('raised to the backoff') ? 'backoff: Retry-After asked for less' : 'backoff';
}

/**
 * Said once, at the first failure: how long the sender keeps trying, and why (§7: 429 and 5xx are retried; §8: with
 * exponential backoff for up to 24 hours; --retry-for bounds it here).
 */
export function retryPeriodNote(policy: RetryPolicy): string {
  const attempts = Number.isFinite(policy.maxAttempts)
    ? ` or ${policy.maxAttempts} attempts in all (--max-attempts)`
    : '';
  return `retrying with backoff for up to ${formatDuration(policy.retryForMs)} (--retry-for)${attempts}; the spec retries 429, 5xx and connection failures for up to 24 h (§7, §8). Ctrl-C stops.`;
}

/** One request as send-job, send-event and replay deliver it: over the flags' pool, watched, its result rendered. */
export async function deliverWatched(
  url: string,
  options: TransportOptions,
  policy: RetryPolicy,
  context: CommandContext,
  send: (deliver: DeliverOptions) => Promise<SendResult>,
): Promise<number> {
  checkPlainHttp(url, options, context.output);
  const dispatcher = await openSendPool(options, context, url);
  try {
    const watch = watchDelivery(context, url, options.verbose === true, policy, options.timeout);
    const deliver = { retry: policy, timeoutMs: options.timeout, dispatcher, ...watch.hooks };
    const result = await send(deliver).finally(watch.dispose);
    return renderSendResult(result, context.output);
  } finally {
    await dispatcher.close();
  }
}

/** `--verbose`: an attempt's request headers on stderr (the signature, never the secret). */
export function printAttemptHeaders(attempt: AttemptRecord, output: Output): void {
  output.info(`> attempt ${attempt.attempt} at ${attempt.startedAt}`);
  for (const [name, value] of Object.entries(attempt.requestHeaders)) output.info(`> ${name}: ${value}`);
}
