/**
 * The shapes of a run's report: what each check concluded and what the run saw. Plain data; no terminal, no
 * commander (STYLE.md "Shape"). The reporters (./reporters) render it; `--json` prints it.
 */
import type { BodyRecord } from '../output/html/bodies.js';
import type { InterfaceId } from '../spec/constants.js';
import type { FailureCause, RefusalDiagnosis } from './diagnose/types.js';

/** `must`: a failure fails the run. `should`: a failure is a warning. */
export type CheckLevel = 'must' | 'should';

/**
 * `not-judged`: the check ran but its evidence is missing (nothing arrived, the run was interrupted while it
 * gathered, an earlier step failed): no verdict, with the reason. `skipped`: the check did not run at all
 * (`--skip`, an optional check, what it needs not given, or the run stopped before it).
 */
export const CHECK_VERDICTS = ['passed', 'failed', 'warning', 'waived', 'not-judged', 'skipped'] as const;
export type CheckVerdict = (typeof CHECK_VERDICTS)[number];

/**
 * Which side of an interface a check judges: its receiver (cai sends crafted requests) or its sender (cai is the
 * receiver and judges what arrives: in a `--role sender` run, and from the events an Interface A provider sends).
 */
export type CheckRole = 'receiver' | 'sender';

export interface Reproduction {
  /** A shell command that sends the same request(s) again, freshly signed where the check signed validly. */
  command: string;
  /** Where the body was saved (the first, where the check sent several). */
  bodyFile: string;
  /** A shell script next to the body that runs `command` (short enough to copy from a terminal). */
  script?: string;
}

/** What names a check and its rule, in the catalogue and in every result. */
export interface CheckRow {
  /** Stable identifier, `<interface>-<AREA>-<nnn>` (`B-DEDUP-002`; a sender's `BS-RETRY-001`). Never reused. */
  id: string;
  /** Former ids of the same rule: `--only`, `--skip` and waivers that name them still match. */
  aliases?: readonly string[];
  interface: InterfaceId;
  role: CheckRole;
  title: string;
  /** Spec sections the check enforces, e.g. `['§6.1', '§2.13']`; the first is the main one. */
  sections: readonly string[];
  level: CheckLevel;
  tags: readonly string[];
}

export interface CheckResult extends CheckRow {
  /** The main section (the first of `sections`). */
  section: string;
  optional: boolean;
  verdict: CheckVerdict;
  expected: string;
  /** What happened; for `skipped` and `not-judged`, why there is no verdict. */
  actual: string;
  durationMs: number;
  notes: string[];
  repro?: Reproduction;
  waiver?: { reason: string; expires?: string };
  /** Requests the check made (or, judging a sender, the attempts it judged), and how many 429s were honoured. */
  requests: number;
  rateLimitedRetries: number;
  /** A failure's evidence: the request sent and the answer, as the reports show them (bodies cut, binary summarised). */
  exchange?: ExchangeRecord;
  /** Every exchange of a failure that took several requests (a repeat, a burst), in order; `exchange` is the last. */
  exchanges?: ExchangeRecord[];
  /** A generated conversation's seed and path (`SEED:PATH`): `--seed` with it replays the conversation (--rerun-failed does). */
  replay?: string;
}

/**
 * A body as a report carries it: the text when it is UTF-8 (cut after a limit), else only its size, digest and
 * first bytes. The full body of a failing request is in the reproduction's body file.
 */
export type { BodyRecord };

/** An exchange as plain JSON data (no Buffers, no recipe): what the HTML report and `--json` show. */
export interface ExchangeRecord {
  request: { method: 'POST'; url: string; headers: Record<string, string>; body: BodyRecord };
  /** Absent when no answer came; `error` then says why. */
  response?: {
    status: number;
    headers: Record<string, string>;
    body: BodyRecord;
    /** The answer's body went over NETWORK_CAPS.responseBodyBytes (src/bounds.ts): cai kept its start and closed the connection. */
    bodyTruncated?: boolean;
  };
  error?: { code: string; message: string };
  latencyMs: number;
}

export interface SuiteSummary {
  passed: number;
  failed: number;
  skipped: number;
  warnings: number;
  waived: number;
  notJudged: number;
  /** Of those not judged, the `must` checks: a rule of the spec nobody verified (`--fail-on-not-judged` fails the run on them). */
  notJudgedMust?: number;
  total: number;
}

export interface WaiverNotice {
  id: string;
  kind: 'expired' | 'unused' | 'now-passing' | 'unknown-check';
  message: string;
}

/** Why a run stopped before every check ran (`--fail-fast`, `--max-failures N`). */
export interface StopReport {
  /** The check whose failure reached the limit. */
  after: string;
  /** Failed must checks when it stopped. */
  failures: number;
  limit: number;
}

/** The first valid, correctly signed request, sent before the checks (what came back). */
export interface PreflightReport {
  expected: string;
  actual: string;
  status?: number;
}

/** What stopped a run before any check was judged (the target unreachable, not an endpoint, the sender silent). */
export interface RunError {
  code: string;
  message: string;
  hint: string;
}

/** What judged the run: the tool, the spec it implements, and the catalogue (a digest of every check's row). */
export interface RunVersion {
  tool: string;
  spec: string;
  /** SHA-256 (first 16 hex digits) of the catalogue as `cai conformance list --json` prints it: same digest, same checks. */
  catalogue: string;
}

export interface SuiteReport {
  ok: boolean;
  version: RunVersion;
  target: string;
  interface: InterfaceId;
  mock: boolean;
  startedAt: string;
  durationMs: number;
  /** Status of the unsigned `POST {}` sent first to measure the clock. */
  probeStatus?: number;
  clock: { offsetSeconds: number | null; dateHeader: string | null; note?: string };
  summary: SuiteSummary;
  checks: CheckResult[];
  waivers: WaiverNotice[];
  reproDir?: string;
  /** Set when the run was stopped (Ctrl-C) before every check was judged. */
  interrupted?: boolean;
  /** Set when `--fail-fast` / `--max-failures` stopped the run: the checks not run are reported as skipped. */
  stopped?: StopReport;
  /** The answer to the first valid, correctly signed request, sent before any check. */
  preflight?: PreflightReport;
  /** Set when the run stopped before judging anything: every reporter renders it. */
  error?: RunError;
  /** Set when the first valid, correctly signed request was refused: the run stopped after diagnosing why. */
  diagnosis?: RefusalDiagnosis;
  /** Failures that share one cause, each with the checks it explains (every check keeps its own result). */
  causes?: FailureCause[];
  /** `sender` for a `--role sender` run (absent for a receiver run). */
  role?: CheckRole;
  /** Sender runs: what each scenario saw (the checks' evidence, summed up). */
  scenarios?: ScenarioSummary[];
  /** The seed of the run's stateful phase, when it had one: the same seed draws the same conversations. */
  seed?: number;
}

/** One scenario of a sender run, as the report shows it. */
export interface ScenarioSummary {
  id: string;
  /** Present when the scenario was played more than once (its timing left open, a breach to confirm): the attempts are the last play's. */
  plays?: number;
  /** The URL the sender was given (CAI_TARGET_URL). */
  targetUrl: string;
  /** What cai answered each document's attempts, in order, e.g. `503 ×5, then 202`. */
  script: string;
  /** The documents the sender delivered in the scenario (each with its own event_id). */
  deliveries: number;
  /** Attempts received, and what each was answered: `503`, `202`, `reset`; `delivery` is the document's place (1-based). */
  attempts: { at: number; delivery: number; eventId?: string; answer: string; late?: boolean }[];
  /** From the start of the scenario (the trigger) to its first attempt; absent when none came. */
  firstAttemptMs?: number;
  durationMs: number;
  /** The trigger's exit status (a number), the signal that stopped it, or absent without --trigger. */
  trigger?: { exitCode?: number; signal?: string; stoppedByCai?: boolean };
  /** The longest cai's own event loop was held up during the scenario (ms): over 100, its waits are not judged. */
  loopLagMs?: number;
}

/** The report as every format shows it: its `ok` judged by what fails the run (`--fail-on`). */
export type ReportView = SuiteReport & { failOn: 'must' | 'warnings'; failOnNotJudged?: boolean };
