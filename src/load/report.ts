/**
 * The result of a load run, as `cai load --json` prints it and the summary table and the HTML page show it: counts
 * per status, latency percentiles, rejections by reason, repeats and duplicates, the rate targeted and achieved,
 * the thresholds judged, and the timeline for the charts.
 */
import type { CallbackSummary } from './callbacks.js';
import type { EngineOutcome } from './engine.js';
import { summariseLatency, type LatencySummary, type LoadMetrics, type TimelineWindow } from './metrics.js';
import { describeMix, type Scenario } from './scenario.js';
import { describeRate, type Phase, type Schedule } from './schedule.js';
import { judgeThreshold, type Threshold, type ThresholdVerdict } from './thresholds.js';
import { interfaceSpec } from '../spec/interfaces.js';

export interface LoadReport {
  ok: boolean;
  interface: 'A' | 'B';
  /** The URL the requests were POSTed to. */
  target: string;
  /** The in-process reference receiver was the target. */
  mock: boolean;
  startedAt: string;
  scenario: { phases: string[]; mix: string | null; repeatShare: number; maxInFlight: number; timeoutMs: number };
  /** Planned arrivals; sent; answered (any status); failed (no answer); dropped (not sent: every connection busy); late (sent over 10 ms after due). */
  requests: { planned: number; sent: number; answered: number; failed: number; dropped: number; late: number };
  /** Target (planned arrivals over the run's span) and achieved (sent over it) rates, a second. */
  targetRatePerSecond: number;
  achievedRatePerSecond: number;
  phases: ReturnType<typeof phaseReport>[];
  /** Answers by status: `{"202": 980, "503": 20}`. */
  statuses: Record<string, number>;
  /** Requests without an answer, by cause (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`…). */
  failures: Record<string, number>;
  latencyMs: LatencySummary;
  /** 4xx other than 429, by status and the `error` code their body gave. */
  rejections: { status: number; reason: string; count: number }[];
  /** 429 answers without a valid Retry-After (§7). */
  retryAfterMissing: number;
  duplicates: {
    repeatsSent: number;
    confirmed: number;
    notRecognised: number;
    repeatsNotAccepted: number;
    newAnsweredAsDuplicate: number;
  };
  duplicatesConfirmed: number;
  callbacks?: Omit<CallbackSummary, 'firstContact'> & { firstContactMs: LatencySummary };
  thresholds: ThresholdVerdict[];
  timeline: { windowMs: number; windows: TimelineWindow[] };
  elapsedMs: number;
  interrupted?: boolean;
  /** 3xx answers, never followed: the first one's status and Location. */
  redirects?: { count: number; status: number; location: string | null };
  /** What made the exit code other than the thresholds' (a redirect, an unwritable report). */
  error?: { code: string; message: string; hint: string; exitCode: number };
  exitCode: number;
}

export interface ReportInputs {
  scenario: Scenario;
  schedule: Schedule;
  target: string;
  mock: boolean;
  startedAt: Date;
  maxInFlight: number;
  timeoutMs: number;
  metrics: LoadMetrics;
  outcome: EngineOutcome;
  thresholds: readonly Threshold[];
  callbacks?: CallbackSummary;
}

export function buildReport(inputs: ReportInputs): LoadReport {
  const { metrics, outcome, schedule } = inputs;
  const seconds = outcome.spanMs / 1000;
  metrics.seconds = seconds;
  if (inputs.callbacks) metrics.callbacks = inputs.callbacks;
  const thresholds = inputs.thresholds.map((threshold) => judgeThreshold(threshold, metrics));
  const planned = outcome.stopped ? schedule.dueBy(outcome.spanMs) : schedule.total;
  const statuses: Record<string, number> = {};
  for (const [status, count] of [...metrics.statuses].sort(([a], [b]) => a - b)) statuses[String(status)] = count;
  const report: LoadReport = {
    ok: thresholds.every((verdict) => verdict.ok || verdict.notJudged),
    interface: inputs.scenario.interface,
    target: inputs.target,
    mock: inputs.mock,
    startedAt: inputs.startedAt.toISOString(),
    scenario: {
      phases: schedule.phases.map((phase) => phase.name),
      // Events have types to mix (§6); a contact job has none.
      mix: interfaceSpec(inputs.scenario.interface).document === 'event' ? describeMix(inputs.scenario.mix) : null,
      repeatShare: inputs.scenario.repeatShare,
      maxInFlight: inputs.maxInFlight,
      timeoutMs: inputs.timeoutMs,
    },
    requests: {
      planned,
      sent: metrics.sent,
      answered: metrics.answered,
      failed: metrics.failed,
      dropped: metrics.dropped,
      late: metrics.late,
    },
    targetRatePerSecond: round(seconds > 0 ? planned / seconds : 0),
    achievedRatePerSecond: round(seconds > 0 ? metrics.sent / seconds : 0),
    phases: schedule.phases.map((phase, index) => phaseReport(phase, outcome.sentByPhase[index] ?? 0)),
    statuses,
    failures: Object.fromEntries(metrics.failures),
    latencyMs: summariseLatency(metrics.latencyAll),
    rejections: [...metrics.rejections.values()].sort((a, b) => b.count - a.count),
    retryAfterMissing: metrics.counters.retry_after_missing,
    duplicates: {
      repeatsSent: metrics.counters.repeats,
      confirmed: metrics.counters.duplicates_confirmed,
      notRecognised: metrics.counters.repeats_unrecognised,
      repeatsNotAccepted: metrics.repeatsNotAccepted,
      newAnsweredAsDuplicate: metrics.newAnsweredDuplicate,
    },
    duplicatesConfirmed: metrics.counters.duplicates_confirmed,
    thresholds,
    timeline: { windowMs: metrics.windowMs, windows: metrics.timeline() },
    elapsedMs: Math.round(outcome.elapsedMs),
    exitCode: 0,
  };
  if (inputs.callbacks) {
    const { firstContact, ...rest } = inputs.callbacks;
    report.callbacks = { ...rest, firstContactMs: summariseLatency(firstContact) };
  }
  if (outcome.stopped === 'interrupted') report.interrupted = true;
  if (metrics.firstRedirect) report.redirects = { count: metrics.redirects, ...metrics.firstRedirect };
  return report;
}

function phaseReport(phase: Phase, sent: number) {
  return {
    name: phase.name,
    /** `500/s`, or `0..500/s` for a ramp. */
    rate: describeRate(phase),
    durationMs: phase.durationMs,
    /** Arrivals the schedule held in the phase. */
    planned: Math.round(phase.arrivals),
    sent,
    /** Target rate over the phase (the mean, for a ramp), and the rate achieved: sent over the phase's duration. */
    targetPerSecond: round(phase.arrivals / (phase.durationMs / 1000)),
    achievedPerSecond: round(sent / (phase.durationMs / 1000)),
  };
}

const round = (value: number) => Math.round(value * 100) / 100;
