/**
 * A run as the reporters print it: the sections several of them show, computed once from the report; a reporter
 * (table, compact, markdown, html, junit) only words and lays them out, in its own order.
 */
import type { InterfaceId } from '../../spec/constants.js';
import type { FailureCause } from '../diagnose/types.js';
import { causesByCheck, diagnosisBlock, type Block } from '../diagnose/words.js';
import type { CheckResult, ScenarioSummary, SuiteReport } from '../types.js';
import { countLine, hasDetails, preflightWarning, stoppedLine, unfinishedChecks } from './text.js';

/** What the reports read of a check result (src/conformance/types.ts CheckResult, and any extra fields). */
export interface CheckView
  extends Pick<CheckResult, 'id' | 'title' | 'verdict' | 'sections' | 'expected' | 'actual' | 'durationMs'>,
    Partial<Pick<CheckResult, 'waiver' | 'requests' | 'rateLimitedRetries' | 'exchange'>> {
  /** A receiver run also judges the provider's callbacks with sender checks. */
  role?: string;
  level: string;
  tags?: readonly string[];
  notes?: readonly string[];
  repro?: { command: string; bodyFile: string };
}

/** What the reports read of a run (src/conformance/types.ts SuiteReport, plus `role` and any extra fields). */
export interface ConformanceView
  extends Pick<SuiteReport, 'ok'>,
    Partial<Pick<SuiteReport, 'version' | 'target' | 'mock' | 'startedAt' | 'durationMs' | 'probeStatus' | 'clock'>>,
    Partial<Pick<SuiteReport, 'reproDir' | 'interrupted' | 'stopped' | 'preflight' | 'diagnosis'>> {
  interface: string;
  role?: string;
  summary: Omit<SuiteReport['summary'], 'notJudged'> & { notJudged?: number };
  checks: readonly CheckView[];
  waivers?: readonly { id: string; kind: string; message: string }[];
  failOn?: string;
  /** Sender runs: each scenario, its URL, its script and every attempt the sender made. */
  scenarios?: readonly ScenarioSummary[];
  /** The run stopped before any check (exit 3: the target is plainly not the endpoint, or unreachable). */
  error?: { code: string; message: string; hint?: string };
  /** Failures that share one cause, each with the checks it explains. */
  causes?: readonly FailureCause[];
}

export interface RunDocument<C> {
  /** The block of a run stopped by its diagnosis (its first valid request refused). */
  diagnosis?: Block;
  /** The warning of refused credentials, to read before the failures. */
  refused?: string;
  /** Why the run stopped early (`--fail-fast`, `--max-failures`). */
  stopped?: string;
  /** The checks a stopped or interrupted run never finished. */
  unfinished: C[];
  /** The failed, warned and waived checks, each with the cause that explains it, a cause at its first check only. */
  details: { check: C; cause?: FailureCause }[];
  /** The count line CI logs are grepped for, and the checks a diagnosis left not run. */
  counts: string;
}

export function documentOf<V extends ConformanceView>(view: V): RunDocument<V['checks'][number]> {
  const { diagnosis, stopped } = view;
  return {
    ...(diagnosis ? { diagnosis: diagnosisBlock(diagnosis, view.interface as InterfaceId) } : {}),
    refused: preflightWarning(view),
    ...(stopped ? { stopped: stoppedLine(stopped) } : {}),
    unfinished: stopped || view.interrupted ? unfinishedChecks(view.checks) : [],
    details: withCauses(view.checks.filter(hasDetails), view.causes),
    counts: withNotRun(view, countLine(view.summary)),
  };
}

/** Counts, and the checks a run stopped by its diagnosis never ran. */
export const withNotRun = (view: Pick<ConformanceView, 'diagnosis'>, counts: string): string =>
  view.diagnosis ? `${counts} (${view.diagnosis.notRun} checks not run)` : counts;

/** Each check with the cause that explains it, a cause once: at its first check (the others it explains left out). */
export function withCauses<T extends { id: string }>(
  checks: readonly T[],
  causes: readonly FailureCause[] | undefined,
): { check: T; cause?: FailureCause }[] {
  const causeOf = causesByCheck(causes);
  return checks.flatMap((check) => {
    const cause = causeOf.get(check.id);
    if (cause === undefined) return [{ check }];
    return cause.checks[0] === check.id ? [{ check, cause }] : [];
  });
}
