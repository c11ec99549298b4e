/**
 * The shapes of the conformance suite: check definitions (the catalogue), what a check returns,
 * and what a run produces. Plain data; no terminal, no commander (STYLE.md "Shape").
 */
import type { InterfaceId } from '../spec/constants.js';

/** `must`: a failure fails the run. `should`: a failure is a warning. */
export type CheckLevel = 'must' | 'should';

export type CheckVerdict = 'passed' | 'failed' | 'warning' | 'waived' | 'skipped';

/**
 * Which side of an interface a check judges: its receiver (cai sends crafted requests; the default, and the only
 * role of the receiver catalogue) or its sender (cai is the receiver and judges what arrives, src/conformance/sender).
 */
export type CheckRole = 'receiver' | 'sender';

export interface CheckMeta {
  /** Stable identifier, `<interface>-<AREA>-<nnn>`, e.g. `B-DEDUP-002`. Never reused for another rule. */
  id: string;
  interface: InterfaceId;
  title: string;
  /** Spec sections the check enforces, e.g. `['§6.1', '§2.13']`; the first is the main one. */
  sections: readonly string[];
  level: CheckLevel;
  tags: readonly string[];
  /** Run only when asked with `--include <id or tag>`. */
  optional?: boolean;
  /** Runs alone, after the concurrent ones (it would disturb other checks, e.g. a burst to the rate cap). */
  exclusive?: boolean;
  /** What the check needs beyond the target; without it, the check is skipped with a reason. */
  needs?: 'callback' | 'source-address';
  /** Set on the sender checks only (`sender`); absent means a receiver check. */
  role?: CheckRole;
  /** Sender checks: the scenarios the check needs (each plays once, running the trigger once). */
  scenarios?: readonly string[];
}

/** One HTTP exchange made by a check, kept as evidence and for the reproduction command. */
export interface Exchange {
  request: SentRequest;
  /** Undefined when no response came (network error); `error` then says why. */
  status?: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The body went over NETWORK_CAPS.responseBodyBytes (src/bounds.ts): `body` is its start, the connection was closed. */
  bodyTruncated?: boolean;
  latencyMs: number;
  error?: { code: string; message: string };
  /** How many 429 answers were honoured (waited for and re-sent) before this answer. */
  rateLimitedRetries: number;
}

/** How a request was built: enough to re-create it later with a fresh signature. */
export interface SentRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  recipe: RequestRecipe;
}

export type SignatureRecipe =
  | { kind: 'valid' }
  | { kind: 'none' }
  | { kind: 'literal'; value: string }
  | { kind: 'wrong-secret'; secret: string }
  | { kind: 'other-body'; body: Buffer }
  /** Valid signature computed over another timestamp than the one sent. */
  | { kind: 'other-timestamp'; timestamp: number }
  /** Valid signature over the timestamp's number as plain digits, whatever prefix the header carries (§5.2, §5.4). */
  | { kind: 'bare-timestamp' }
  | { kind: 'truncated' };

export type TimestampRecipe =
  /** Now on the target's clock; `prefix` is written before the digits (e.g. a leading zero). */
  | { kind: 'now'; shiftSeconds?: number; prefix?: string }
  | { kind: 'milliseconds' }
  | { kind: 'none' }
  | { kind: 'literal'; value: string };

/** A request as a check describes it; headers and signature are computed at each send (429 → re-signed). */
export interface RequestRecipe {
  body: Buffer;
  signature?: SignatureRecipe;
  timestamp?: TimestampRecipe;
  /** The identity header (X-CAI-Provider on B, X-CAI-Source on A): default, omitted, or another value. */
  identity?: { kind: 'default' } | { kind: 'none' } | { kind: 'value'; value: string };
  /** Send from this local address (an unregistered origin, §5.7). */
  sourceAddress?: string;
  /** Do not honour 429 (the rate-cap check itself). */
  raw429?: boolean;
  /** The Content-Type sent (default `application/json`, §2). */
  contentType?: string;
  /** Send the body with chunked transfer encoding, without Content-Length. */
  chunked?: boolean;
}

export interface CheckOutcome {
  verdict: 'passed' | 'failed' | 'skipped';
  /** What the rule expects, e.g. `401`, `202 {"ok":true,"duplicate":true}`. */
  expected: string;
  /** What happened, e.g. `202 {"ok":true}`. */
  actual: string;
  /** The exchange that shows the failure (its request becomes the reproduction). */
  evidence?: Exchange;
  notes?: string[];
}

export interface Reproduction {
  /** A shell command that sends the same request again, freshly signed where the check signed validly. */
  command: string;
  /** Where the body was saved. */
  bodyFile: string;
  /** A shell script next to the body that runs `command` (short enough to copy from a terminal). */
  script?: string;
}

export interface CheckResult {
  id: string;
  interface: InterfaceId;
  title: string;
  sections: readonly string[];
  /** The main section (the first of `sections`). */
  section: string;
  level: CheckLevel;
  tags: readonly string[];
  optional: boolean;
  verdict: CheckVerdict;
  expected: string;
  actual: string;
  durationMs: number;
  notes: string[];
  repro?: Reproduction;
  waiver?: { reason: string; expires?: string };
  /** Requests the check made, and how many 429s were honoured along the way. */
  requests: number;
  rateLimitedRetries: number;
  /** A failure's evidence: the request sent and the answer, as the reports show them (bodies cut, binary summarised). */
  exchange?: ExchangeRecord;
}

/**
 * A body as a report carries it: the text when it is UTF-8 (cut after a limit), else only its size, digest and
 * first bytes. The full body of a failing request is in the reproduction's body file.
 */
export interface BodyRecord {
  bytes: number;
  /** The body as text, when it is valid UTF-8; cut to a limit (`truncated`). */
  text?: string;
  truncated?: boolean;
  /** Binary bodies: SHA-256 (hex) and the first bytes (hex). */
  sha256?: string;
  hexPrefix?: string;
}

/** An {@link Exchange} as plain JSON data (no Buffers, no recipe): what the HTML report and `--json` show. */
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

export interface SuiteReport {
  ok: boolean;
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
  /** Set when the run was stopped (Ctrl-C) before every check ran. */
  interrupted?: boolean;
  /** Set when `--fail-fast` / `--max-failures` stopped the run: the checks not run are reported as skipped. */
  stopped?: StopReport;
  /** The answer to the first valid, correctly signed request, sent before any check. */
  preflight?: PreflightReport;
  /** `sender` for a `--role sender` run (absent for a receiver run). */
  role?: CheckRole;
  /** Sender runs: what each scenario saw (the checks' evidence, summed up). */
  scenarios?: ScenarioSummary[];
}

/** One scenario of a sender run, as the report shows it. */
export interface ScenarioSummary {
  id: string;
  /** The URL the sender was given (CAI_TARGET_URL). */
  targetUrl: string;
  /** What cai answered, in order, e.g. `503 ×5, then 202`. */
  script: string;
  /** Attempts received, and what each was answered: `503`, `202`, `reset`. */
  attempts: { at: number; eventId?: string; answer: string; late?: boolean }[];
  /** From the start of the scenario (the trigger) to its first attempt; absent when none came. */
  firstAttemptMs?: number;
  durationMs: number;
  /** The trigger's exit status (a number), the signal that stopped it, or absent without --trigger. */
  trigger?: { exitCode?: number; signal?: string; stoppedByCai?: boolean };
  /** The longest cai's own event loop was held up during the scenario (ms): over 100, its waits are not judged. */
  loopLagMs?: number;
}
