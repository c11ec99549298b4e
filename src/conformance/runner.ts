/**
 * Runs a plan of checks against a session: the concurrent ones with a bounded pool (each uses its own fresh
 * event_ids, so they cannot interfere), then the exclusive ones alone. Applies waivers and builds the report.
 */
import { formatCap, NETWORK_CAPS } from '../bounds.js';
import { errorMessage } from '../errors.js';
import { recordExchange } from './evidence.js';
import { CheckScope, type CheckDefinition } from './define.js';
import { resultBase, type PlannedCheck } from './catalogue.js';
import type { Session } from './session.js';
import type { CheckOutcome, CheckResult, Exchange, StopReport, SuiteSummary, WaiverNotice } from './types.js';
import { isExpired, waiverReport, type Waiver } from './waivers.js';

export interface RunHooks {
  onStart?(check: CheckDefinition): void;
  onFinish?(result: CheckResult): void;
}

export interface RunOptions extends RunHooks {
  concurrency: number;
  waivers?: readonly Waiver[];
  now?: () => number;
  /** Turns a failing check's evidence into a reproduction (written to disk by the caller's reproducer). */
  reproduce?: (result: CheckResult, evidence: Exchange) => Promise<CheckResult['repro']>;
  /**
   * Start no new check once this many must checks have failed (`--fail-fast` is 1, `--max-failures N`); the checks
   * in flight finish, the rest are reported as skipped with the reason.
   */
  maxFailures?: number;
}

export interface RunOutcome {
  results: CheckResult[];
  waiverNotices: WaiverNotice[];
  summary: SuiteSummary;
  /** Set when `maxFailures` stopped the run early. */
  stopped?: StopReport;
}

export async function runPlan(session: Session, planned: readonly PlannedCheck[], options: RunOptions): Promise<RunOutcome> {
  const now = options.now ?? (() => Date.now());
  const results = new Map<string, CheckResult>();
  let failures = 0;
  let stopped: StopReport | undefined;
  const halted = () => session.signal.aborted || stopped !== undefined;
  const runOne = async (item: PlannedCheck) => {
    const result = await executeCheck(session, item, options, now);
    results.set(item.check.id, result);
    if (result.verdict === 'failed') failures += 1;
    if (stopped === undefined && options.maxFailures !== undefined && failures >= options.maxFailures) {
      stopped = { after: result.id, failures, limit: options.maxFailures };
    }
    options.onFinish?.(result);
  };
  const concurrent = planned.filter((item) => item.skipReason !== undefined || !item.check.exclusive);
  const exclusive = planned.filter((item) => item.skipReason === undefined && item.check.exclusive);
  await pool(concurrent, Math.max(1, options.concurrency), runOne, halted);
  for (const item of exclusive) {
    if (halted()) break;
    await runOne(item);
  }
  // Checks never started (Ctrl-C, or the failure limit) are reported as skipped, with the reason, in every format.
  const notRun = stopped
    ? `not run: the run stopped after ${stopped.limit} failed must check${stopped.limit === 1 ? '' : 's'} (--fail-fast / --max-failures)`
    : 'not run: interrupted before it started';
  const ordered = planned.map((item) => results.get(item.check.id) ?? skippedResult(item, item.skipReason ?? notRun));
  const waiverNotices = waiverReport(options.waivers ?? [], ordered, planned.map((item) => item.check.id), now());
  return { results: ordered, waiverNotices, summary: summarise(ordered), ...(stopped ? { stopped } : {}) };
}

/** Said of a failure whose answer was longer than cai reads (the actual value and the evidence show its start). */
export const TRUNCATED_NOTE = `the answer's body was longer than ${formatCap(NETWORK_CAPS.responseBodyBytes)}: cai kept its start, discarded the rest and closed the connection (docs/limits.md)`;

function skippedResult(item: PlannedCheck, reason: string): CheckResult {
  return { ...resultBase(item.check), verdict: 'skipped', expected: '-', actual: reason, durationMs: 0, notes: [], requests: 0, rateLimitedRetries: 0 };
}

async function executeCheck(session: Session, item: PlannedCheck, options: RunOptions, now: () => number): Promise<CheckResult> {
  const { check } = item;
  const base = resultBase(check);
  if (item.skipReason !== undefined || session.signal.aborted) return skippedResult(item, item.skipReason ?? 'not run: interrupted before it started');
  options.onStart?.(check);
  const scope = new CheckScope(session, check);
  const started = performance.now();
  let outcome: CheckOutcome;
  try {
    outcome = await check.run(scope);
  } catch (error) {
    // A check that throws is a bug in cai, not a verdict on the target: say so in the result.
    outcome = { verdict: 'failed', expected: 'the check to run', actual: `the check itself failed (a bug in cai): ${errorMessage(error)}` };
  }
  if (session.signal.aborted && outcome.verdict === 'failed') {
    // Its requests were cut off by Ctrl-C: no verdict on the target.
    outcome = { verdict: 'skipped', expected: '-', actual: 'interrupted while it ran' };
  }
  const durationMs = Math.round(performance.now() - started);
  const notes = [...(outcome.notes ?? [])];
  if (outcome.verdict === 'failed' && outcome.evidence?.bodyTruncated) notes.push(TRUNCATED_NOTE);
  if (scope.rateLimitedRetries > 0) notes.push(`${scope.rateLimitedRetries} answer(s) of 429 honoured (waited Retry-After and sent again); not counted as failures`);
  let verdict: CheckResult['verdict'] = outcome.verdict === 'failed' ? (check.level === 'must' ? 'failed' : 'warning') : outcome.verdict;
  let waiver: CheckResult['waiver'];
  if (verdict === 'failed' || verdict === 'warning') {
    const found = (options.waivers ?? []).find((entry) => entry.id === check.id && !isExpired(entry, now()));
    if (found) {
      verdict = 'waived';
      waiver = { reason: found.reason, ...(found.expires ? { expires: found.expires } : {}) };
    }
  }
  const result: CheckResult = {
    ...base,
    verdict,
    expected: outcome.expected,
    actual: outcome.actual,
    durationMs,
    notes,
    requests: scope.requests,
    rateLimitedRetries: scope.rateLimitedRetries,
    ...(waiver ? { waiver } : {}),
    ...(outcome.verdict === 'failed' && outcome.evidence ? { exchange: recordExchange(outcome.evidence) } : {}),
  };
  if (outcome.verdict === 'failed' && outcome.evidence && options.reproduce) {
    try {
      const repro = await options.reproduce(result, outcome.evidence);
      if (repro) result.repro = repro;
    } catch (error) {
      // The verdict stands without its reproduction; say why it is missing.
      result.notes.push(`no reproduction: the body could not be saved (${errorMessage(error)})`);
    }
  }
  return result;
}

async function pool<T>(items: readonly T[], size: number, worker: (item: T) => Promise<void>, halted: () => boolean): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length && !halted()) {
      const item = items[next++] as T;
      await worker(item);
    }
  });
  await Promise.all(lanes);
}

export function summarise(results: readonly CheckResult[]): SuiteSummary {
  const count = (verdict: CheckResult['verdict']) => results.filter((result) => result.verdict === verdict).length;
  return {
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    warnings: count('warning'),
    waived: count('waived'),
    total: results.length,
  };
}
