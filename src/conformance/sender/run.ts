/**
 * One sender run (`cai conformance run --role sender`), usable from the CLI and as a library: cai listens as the
 * receiver of the interface, plays the scenarios the selected checks need (each: start the trigger, or ask a person
 * to send, answer as scripted, wait until the scenario is decided), judges what arrived, saves what the sender
 * sent for the failures, and returns the same report as a receiver run. Everything it starts, it stops.
 */
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { deliveryError, errorMessage } from '../../errors.js';
import type { TlsFiles } from '../../http/server.js';
import { redactSecrets } from '../../secrets/resolve.js';
import type { InterfaceId } from '../../spec/constants.js';
import { resultBase, type Selection } from '../catalogue.js';
import { secretFlagFor } from '../repro.js';
import { summarise } from '../runner.js';
import type { CheckResult, ScenarioSummary, SuiteReport } from '../types.js';
import { isExpired, waiverReport, type Waiver } from '../waivers.js';
import { planSenderChecks, scenariosToRun } from './catalogue.js';
import type { SenderCheckDefinition, SenderOutcome } from './define.js';
import { eventIdOf, timestampOf, type ScenarioRecord, type SenderEvidence } from './evidence.js';
import { triggerText } from './judging.js';
import { startSenderListener } from './listener.js';
import { Recorder } from './recorder.js';
import { createSenderReproducer } from './repro.js';
import { describeAnswer, describeScript, scenario, type Scenario, type ScenarioId } from './scenarios.js';
import { DEFAULT_MANUAL_WAIT_MS, DEFAULT_OBSERVE_MS, DEFAULT_WAIT_MS, TRIGGER_EXIT_GRACE_MS } from './settings.js';
import { startTrigger } from './trigger.js';

/** The resolution of the event-loop delay sampling (ms); the delay it reports includes it. */
const LAG_RESOLUTION_MS = 10;

export interface ScenarioStart {
  id: ScenarioId;
  /** 1-based position, and how many scenarios run. */
  index: number;
  total: number;
  /** CAI_TARGET_URL of the scenario. */
  targetUrl: string;
  /** What cai answers, e.g. `503 ×5, then 202`. */
  script: string;
  purpose: string;
  /** No trigger: a person sends (the instructions are for them). */
  byHand: boolean;
  waitMs: number;
}

export interface SenderRunHooks {
  /** The listener is up (before the first scenario). */
  onListening?(url: string): void;
  onScenarioStart?(start: ScenarioStart): void;
  onScenarioEnd?(summary: ScenarioSummary): void;
}

export interface SenderConformanceOptions extends SenderRunHooks {
  interface: InterfaceId;
  /** B: the provider code expected in X-CAI-Provider. A: the platform id expected in X-CAI-Source. */
  identity: string;
  /** The secrets the sender signs with (any one of them verifies, §5.9). */
  secrets: readonly string[];
  /** Label of the first secret's source, for the reproduction commands (never the value). */
  secretLabel?: string;
  /** `sh -c` once per scenario, with CAI_TARGET_URL and CAI_SCENARIO; without it, a person sends by hand. */
  trigger?: string;
  listen?: { host: string; port: number };
  /** The origin the sender reaches the listener at (a tunnel), when not the listener's own. */
  publicUrl?: string;
  tls?: TlsFiles;
  /** Bound per scenario for its expected attempts (default 60 s with a trigger, 5 min by hand). */
  waitMs?: number;
  /** After a final answer, how long cai listens for an attempt that must not come (default 2 s). */
  observeMs?: number;
  selection: Selection;
  /** Scenarios at once with a trigger (by hand: one at a time). */
  concurrency?: number;
  waivers?: readonly Waiver[];
  /** Where what the sender sent is saved for the failures; default a new directory under the temp dir. */
  reproDir?: string;
  /** Flags of the run the reproduction commands repeat (already quoted), e.g. `--wait 10s`. */
  reproFlags?: readonly string[];
  /** The trigger's environment (CAI_TARGET_URL and CAI_SCENARIO are added) and working directory. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Stops the run (Ctrl-C): the scenario under way ends, the rest do not run; their checks are skipped. */
  signal?: AbortSignal;
}

export async function runSenderConformance(options: SenderConformanceOptions): Promise<SuiteReport> {
  const startedAt = new Date();
  const plan = planSenderChecks(options.interface, options.selection);
  const byHand = options.trigger === undefined;
  const waitMs = options.waitMs ?? (byHand ? DEFAULT_MANUAL_WAIT_MS : DEFAULT_WAIT_MS);
  const observeMs = options.observeMs ?? DEFAULT_OBSERVE_MS;
  const signal = options.signal ?? new AbortController().signal;
  const played = await playScenarios(scenariosToRun(plan).map(scenario), { ...options, waitMs, observeMs, signal });
  const { records } = played;
  if (!signal.aborted && records.length > 0 && records.every((record) => record.attempts.length === 0)) throw silentSender(played, byHand);
  const evidence: SenderEvidence = { interface: options.interface, identity: options.identity, secrets: options.secrets, waitMs, observeMs, records };
  const reproDir = options.reproDir ?? join(tmpdir(), `cai-conformance-sender-${startedAt.toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`);
  const reproduce = createSenderReproducer({
    dir: reproDir,
    interface: options.interface,
    identity: options.identity,
    secretFlag: secretFlagFor(options.secretLabel),
    trigger: options.trigger,
    extraFlags: options.reproFlags ?? [],
    records,
  });
  const now = Date.now();
  const results: CheckResult[] = [];
  for (const item of plan.planned) {
    const { result, outcome } = judge(item.check, item.skipReason, evidence, signal.aborted, options.waivers ?? [], now);
    if (outcome.verdict === 'failed' && outcome.evidence) {
      try {
        result.repro = await reproduce(item.check.id, outcome.evidence);
      } catch (error) {
        result.notes.push(`no reproduction: what the sender sent could not be saved (${errorMessage(error)})`);
      }
    }
    // Requests to no scenario's URL are no attempts; the address check says they came.
    if (item.check.tags.includes('http') && played.strayCount > 0) result.notes.push(straysNote(played));
    if (item.check.tags.includes('http') && played.refused > 0) result.notes.push(refusedNote(played.refused));
    results.push(result);
  }
  const summary = summarise(results);
  return {
    ok: summary.failed === 0 && !signal.aborted,
    target: played.publicBase,
    interface: options.interface,
    mock: false,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    clock: senderClock(records),
    summary,
    checks: results,
    waivers: waiverReport(options.waivers ?? [], results, plan.planned.map((item) => item.check.id), now),
    ...(results.some((result) => result.repro) ? { reproDir } : {}),
    ...(signal.aborted ? { interrupted: true } : {}),
    role: 'sender',
    scenarios: records.map((record) => summariseScenario(record, options.interface)),
  };
}

interface Played {
  /** The scenarios played, in catalogue order. */
  records: ScenarioRecord[];
  publicBase: string;
  strays: readonly string[];
  strayCount: number;
  /** Requests answered but not recorded by the listener's bounds (LISTENER_CAPS). */
  refused: number;
}

/**
 * Listens, plays the scenarios, stops listening. With a trigger: the timed scenario alone first, then the rest at
 * once (the slow ones started first); by hand: one at a time.
 */
async function playScenarios(toRun: readonly Scenario[], options: SenderConformanceOptions & { waitMs: number; observeMs: number; signal: AbortSignal }): Promise<Played> {
  let recorder: Recorder | undefined;
  const listen = options.listen ?? { host: '127.0.0.1', port: 0 };
  const listener = await startSenderListener({ host: listen.host, port: listen.port, tls: options.tls, handle: (arrival) => (recorder as Recorder).handle(arrival) });
  const publicBase = (options.publicUrl ?? listener.url).replace(/\/+$/, '');
  const byHand = options.trigger === undefined;
  const opened = new Recorder({ interface: options.interface, shared: byHand, publicBase });
  recorder = opened;
  const redact = (text: string) => redactSecrets(text, options.secrets);
  const next = (entry: Scenario) => playScenario(entry, { ...options, recorder: opened, redact, index: toRun.indexOf(entry) + 1, total: toRun.length });
  try {
    options.onListening?.(publicBase);
    if (byHand) await pool(toRun, 1, next, options.signal);
    else {
      await pool(toRun.filter((entry) => entry.alone), 1, next, options.signal);
      const rest = toRun.filter((entry) => !entry.alone);
      await pool([...rest.filter((entry) => entry.slow), ...rest.filter((entry) => !entry.slow)], Math.max(1, options.concurrency ?? 8), next, options.signal);
    }
  } finally {
    await listener.close();
  }
  const records = toRun.map((entry) => opened.records.find((record) => record.scenario === entry)).filter((record): record is ScenarioRecord => record !== undefined);
  return { records, publicBase, strays: opened.strays, strayCount: opened.strayCount, refused: listener.refused() };
}

/** No attempt in any scenario: nothing to judge (exit 3), with what the trigger did and where requests went. */
function silentSender(played: Played, byHand: boolean) {
  const [first] = played.records as [ScenarioRecord];
  const count = played.records.length;
  const elsewhere = played.strayCount > 0 ? `; ${straysNote(played)}` : '';
  return deliveryError(
    'no_attempts',
    `the sender sent nothing: no attempt arrived in ${count} scenario${count === 1 ? '' : 's'} (${triggerText(first)})${elsewhere}`,
    byHand ? `send to ${first.targetUrl} while cai waits, or pass --trigger CMD` : 'run the trigger by hand with CAI_TARGET_URL set, and check that it makes the sender post there',
  );
}

function straysNote({ strays, strayCount }: Pick<Played, 'strays' | 'strayCount'>): string {
  const shown = [...new Set(strays)].slice(0, 3).join(', ');
  const one = strayCount === 1;
  return `${strayCount} request${one ? '' : 's'} came to no scenario's URL and ${one ? 'was' : 'were'} answered 404 (${shown})`;
}

function refusedNote(count: number): string {
  return `${count} request${count === 1 ? ' was' : 's were'} answered 408 or 503 and not recorded: a body too slow, too many bodies at once, or more than cai records in one run (docs/limits.md)`;
}

interface PlayContext extends SenderConformanceOptions {
  recorder: Recorder;
  waitMs: number;
  observeMs: number;
  signal: AbortSignal;
  redact: (text: string) => string;
  index: number;
  total: number;
}

/**
 * One scenario: open it, start the trigger (or tell the person), wait until its scripted answers are all given
 * (bounded by --wait), then, where the script ends on a final answer, listen --observe more for an attempt that
 * must not come. A trigger that fails before any attempt ends the scenario at once.
 */
async function playScenario(entry: Scenario, context: PlayContext): Promise<void> {
  const { recorder, signal } = context;
  // How long cai's own loop is held up while the scenario runs: the timing checks need it short.
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  lag.enable();
  const startedMono = performance.now();
  const record = recorder.open(entry, startedMono);
  context.onScenarioStart?.({
    id: entry.id,
    index: context.index,
    total: context.total,
    targetUrl: record.targetUrl,
    script: describeScript(entry, context.interface),
    purpose: entry.purpose,
    byHand: context.trigger === undefined,
    waitMs: context.waitMs,
  });
  const trigger =
    context.trigger === undefined
      ? undefined
      : startTrigger({ command: context.trigger, env: { ...(context.env ?? process.env), CAI_TARGET_URL: record.targetUrl, CAI_SCENARIO: entry.id }, cwd: context.cwd ?? process.cwd(), redact: context.redact });
  let failedEarly = false;
  trigger?.exited.then((outcome) => {
    failedEarly = outcome.exitCode !== 0 && record.attempts.length === 0;
    recorder.notify();
  });
  const expected = entry.script.length;
  const answered = () => record.attempts.length >= expected && record.attempts[expected - 1]?.answeredMono !== undefined;
  await recorder.waitUntil(() => answered() || failedEarly, startedMono + context.waitMs, signal);
  const last = record.attempts[expected - 1];
  if (entry.observe && answered() && last?.answeredMono !== undefined) {
    await recorder.waitUntil(() => false, last.answeredMono + context.observeMs, signal);
  }
  recorder.close(record, performance.now());
  lag.disable();
  record.maxLagMs = Math.max(0, Math.round(lag.max / 1e6 - LAG_RESOLUTION_MS));
  if (signal.aborted) record.interrupted = true;
  // Interrupted: no grace, the trigger is stopped at once.
  if (trigger) record.trigger = await trigger.finish(signal.aborted ? 0 : TRIGGER_EXIT_GRACE_MS, TRIGGER_EXIT_GRACE_MS);
  context.onScenarioEnd?.(summariseScenario(record, context.interface));
}

async function pool<T>(items: readonly T[], size: number, worker: (item: T) => Promise<void>, signal: AbortSignal): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length && !signal.aborted) await worker(items[next++] as T);
  });
  await Promise.all(lanes);
}

function judge(check: SenderCheckDefinition, skipReason: string | undefined, evidence: SenderEvidence, interrupted: boolean, waivers: readonly Waiver[], now: number): { result: CheckResult; outcome: SenderOutcome } {
  const complete = check.scenarios.filter((id) => evidence.records.some((record) => record.scenario.id === id && !record.interrupted));
  let outcome: SenderOutcome;
  if (skipReason !== undefined) outcome = { verdict: 'skipped', expected: '-', actual: skipReason };
  else if (interrupted && complete.length < check.scenarios.length) outcome = { verdict: 'skipped', expected: '-', actual: 'interrupted before its scenarios were done' };
  else {
    try {
      outcome = check.judge(evidence);
    } catch (error) {
      // A judgement that throws is a bug in cai, not a verdict on the sender.
      outcome = { verdict: 'failed', expected: 'the check to run', actual: `the check itself failed (a bug in cai): ${errorMessage(error)}` };
    }
  }
  let verdict: CheckResult['verdict'] = outcome.verdict === 'failed' ? (check.level === 'must' ? 'failed' : 'warning') : outcome.verdict;
  const waiver = verdict === 'failed' || verdict === 'warning' ? waivers.find((entry) => entry.id === check.id && !isExpired(entry, now)) : undefined;
  if (waiver) verdict = 'waived';
  const records = evidence.records.filter((record) => check.scenarios.includes(record.scenario.id));
  const result: CheckResult = {
    ...resultBase(check),
    verdict,
    expected: outcome.expected,
    actual: outcome.actual,
    // The time of the scenarios it judges: what running the check costs.
    durationMs: outcome.verdict === 'skipped' ? 0 : Math.round(Math.max(0, ...records.map((record) => (record.endedMono ?? record.startedMono) - record.startedMono))),
    notes: [...(outcome.notes ?? [])],
    requests: records.reduce((sum, record) => sum + record.attempts.length, 0),
    rateLimitedRetries: 0,
    ...(waiver ? { waiver: { reason: waiver.reason, ...(waiver.expires ? { expires: waiver.expires } : {}) } } : {}),
  };
  return { result, outcome };
}

export function summariseScenario(record: ScenarioRecord, iface: InterfaceId): ScenarioSummary {
  const first = record.attempts[0];
  const end = record.endedMono ?? performance.now();
  return {
    id: record.scenario.id,
    targetUrl: record.targetUrl,
    script: describeScript(record.scenario, iface),
    attempts: record.attempts.map((attempt) => ({
      at: Math.round(attempt.arrivedMono - record.startedMono),
      ...(eventIdOf(attempt) !== undefined ? { eventId: eventIdOf(attempt) } : {}),
      answer: describeAnswer(attempt.answer, iface),
      ...(attempt.late ? { late: true } : {}),
    })),
    ...(first ? { firstAttemptMs: Math.round(first.arrivedMono - record.startedMono) } : {}),
    durationMs: Math.round(end - record.startedMono),
    ...(record.maxLagMs !== undefined ? { loopLagMs: record.maxLagMs } : {}),
    ...(record.trigger
      ? { trigger: { ...(record.trigger.exitCode !== undefined ? { exitCode: record.trigger.exitCode } : {}), ...(record.trigger.signal ? { signal: record.trigger.signal } : {}), ...(record.trigger.stoppedByCai ? { stoppedByCai: true } : {}) } }
      : {}),
  };
}

/** The sender's clock as its timestamps show it: the median of (timestamp − arrival) over well-formed ones. */
function senderClock(records: readonly ScenarioRecord[]): SuiteReport['clock'] {
  const offsets = records
    .flatMap((record) => record.attempts)
    .filter((attempt) => /^[0-9]{1,12}$/.test(timestampOf(attempt) ?? ''))
    .map((attempt) => Number(timestampOf(attempt)) - Math.floor(attempt.arrivedAt / 1000))
    .sort((a, b) => a - b);
  const note = "the sender's clock as its X-CAI-Timestamp values show it, against cai's";
  if (offsets.length === 0) return { offsetSeconds: null, dateHeader: null, note };
  return { offsetSeconds: offsets[Math.floor(offsets.length / 2)] as number, dateHeader: null, note };
}

