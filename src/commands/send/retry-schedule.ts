/**
 * `--print-schedule`: the retry waits the policy plans for back-to-back 5xx or time-outs (§7, §8), as lines or as
 * one JSON document.
 */
import { planSchedule, type PlannedAttempt, type RetryPolicy } from '../../http/retry.js';
import type { Output } from '../../output/output.js';
import { formatDuration } from '../../duration.js';

/** On a narrow terminal, the rest of an attempt's line wraps under its wait. */
const WRAPPED = ' '.repeat(15);

export function renderSchedule(policy: RetryPolicy, output: Output): number {
  const plan = planSchedule(policy);
  if (output.json) {
    output.printJson({
      policy: { ...policy, maxAttempts: Number.isFinite(policy.maxAttempts) ? policy.maxAttempts : null },
      attempts: plan.attempts,
      truncated: plan.truncated,
    });
    return 0;
  }
  output.resultWrapped(
    `retry schedule for back-to-back 5xx or time-outs: ${policy.enabled ? `within --retry-for ${formatDuration(policy.retryForMs)}` : 'retries off'}` +
      `${Number.isFinite(policy.maxAttempts) ? `, at most ${policy.maxAttempts} attempts` : ''}`,
  );
  const range = (min: number, max: number) =>
    min === max ? formatDuration(max) : `${formatDuration(min)}–${formatDuration(max)}`;
  const line = (attempt: PlannedAttempt) =>
    attempt.attempt === 1
      ? '  attempt 1    at 0 s'
      : `  attempt ${String(attempt.attempt).padEnd(4)} after ${range(attempt.waitMinMs, attempt.waitMs).padEnd(22)} at ${range(attempt.atMinMs, attempt.atMaxMs)}${attempt.certain ? '' : '  (only if time remains)'}`;
  const attempts = plan.attempts;
  for (let index = 0; index < attempts.length; index += 1) {
    const attempt = attempts[index] as PlannedAttempt;
    // A long run of capped waits is shown as its first two, a summary line, and its last.
    let end = index;
    while (
      end + 1 < attempts.length &&
      (attempts[end + 1] as PlannedAttempt).waitMs === attempt.waitMs &&
      attempt.attempt > 1
    )
      end += 1;
    if (end - index >= 4) {
      output.resultWrapped(line(attempt), WRAPPED);
      output.resultWrapped(line(attempts[index + 1] as PlannedAttempt), WRAPPED);
      output.resultWrapped(
        `  …            (attempts ${attempt.attempt + 2}–${(attempts[end - 1] as PlannedAttempt).attempt}: the same wait each time)`,
        WRAPPED,
      );
      output.resultWrapped(line(attempts[end] as PlannedAttempt), WRAPPED);
      index = end;
      continue;
    }
    output.resultWrapped(line(attempt), WRAPPED);
  }
  if (plan.truncated) output.result(`  … (${plan.attempts.length} shown)`);
  output.resultWrapped(
    `waits double from ${formatDuration(policy.initialDelayMs)} up to ${formatDuration(policy.maxDelayMs)}, each shortened by up to ${Math.round(policy.jitter * 100)}% at random (jitter);` +
      ' a 429 waits its Retry-After when that is longer, never less (§7); 400, 401, 413 and other 4xx are never retried; the attempts themselves also count against --retry-for.',
  );
  return 0;
}
