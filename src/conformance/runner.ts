/**
 * Runs a plan of checks against a session: the concurrent ones with a bounded pool (each uses its own fresh
 * event_ids, so they cannot interfere), then the exclusive ones alone. Applies waivers and builds the report.
 */
import { errorMessage } from '../errors.js';
import { CheckScope, type CheckDefinition } from './define.js';
import { resultBase, type PlannedCheck } from './catalogue.js';
import type { Session } from './session.js';
import type { CheckOutcome, CheckResult, Exchange, SuiteSummary, WaiverNotice } from './types.js';
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
}

export interface RunOutcome {
  results: CheckResult[];
  waiverNotices: WaiverNotice[];
  summary: SuiteSummary;
}

export async function runPlan(session: Session, planned: readonly PlannedCheck[], options: RunOptions): Promise<RunOutcome> {
  const now = options.now ?? (() => Date.now());
  const results = new Map<string, CheckResult>();
  const runOne = async (item: PlannedCheck) => {
    const result = await executeCheck(session, item, options, now);
    results.set(item.check.id, result);
    options.onFinish?.(result);
  };
  const concurrent = planned.filter((item) => item.skipReason !== undefined || !item.check.exclusive);
  const exclusive = planned.filter((item) => item.skipReason === undefined && item.check.exclusive);
  await pool(concurrent, Math.max(1, options.concurrency), runOne, session.signal);
  for (const item of exclusive) {
    if (session.signal.aborted) break;
    await runOne(item);
  }
  const ordered = planned.map((item) => results.get(item.check.id)).filter((result): result is CheckResult => result !== undefined);
  const waiverNotices = waiverReport(options.waivers ?? [], ordered, planned.map((item) => item.check.id), now());
  return { results: ordered, waiverNotices, summary: summarise(ordered) };
}

async function executeCheck(session: Session, item: PlannedCheck, options: RunOptions, now: () => number): Promise<CheckResult> {
  const { check } = item;
  const base = resultBase(check);
  if (item.skipReason !== undefined || session.signal.aborted) {
    const reason = item.skipReason ?? 'interrupted before it ran';
    return { ...base, verdict: 'skipped', expected: '-', actual: reason, durationMs: 0, notes: [], requests: 0, rateLimitedRetries: 0 };
  }
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

async function pool<T>(items: readonly T[], size: number, worker: (item: T) => Promise<void>, signal: AbortSignal): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length && !signal.aborted) {
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
