/**
 * One sender run (`cai conformance run --role sender`), usable from the CLI and as a library: cai listens as the
 * receiver of the interface, plays the scenarios the selected checks need (each: start the trigger, or ask a person
 * to send; answer every document's attempts as scripted; wait until every delivery has settled), judges what
 * arrived, delivery by delivery, saves what the sender sent for the failures, and returns the same report as a
 * receiver run. The trigger may make the sender send one document or many, in any order, at once or not, on one
 * connection or several. Everything it starts, it stops.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deliveryError, optionName } from '../errors.js';
import type { TlsFiles } from '../http/server.js';
import { redactSecrets } from '../secrets/resolve.js';
import type { InterfaceId } from '../spec/constants.js';
import { interfaceSpec } from '../spec/interfaces.js';
import { planRun, runVersion, scenariosToRun, type Selection } from './catalogue.js';
import type { SenderCheck } from './check.js';
import { deliveriesOf } from '../spec/model/sender.js';
import { attemptEventId, timestampOf, type SenderEvidence, type StageRecord } from './evidence.js';
import { startListener } from './listen/listener.js';
import { Recorder, type StageOpening } from './listen/recorder.js';
import {
  describeScript,
  describeScripted,
  scenario,
  type Scenario,
  type SenderScenarioId,
} from './listen/scenarios.js';
import { playStage } from './listen/stage.js';
import { startTrigger } from './listen/trigger.js';
import { pool } from './pool.js';
import { judgeSenderChecks, summarise, type ReproducerFactory } from './runner.js';
import { documentsPerRunOf, findingsOf, triggerText } from './checks/sender/judging.js';
import { DEFAULT_MANUAL_WAIT_MS, DEFAULT_OBSERVE_MS, DEFAULT_WAIT_MS, TRIGGER_EXIT_GRACE_MS } from './tolerances.js';
import { SENDER_RUN_CAPS } from '../bounds.js';
import { isStateCheck, type ExploreRequest } from './explore/setup.js';
import type { SenderExploration } from './evidence.js';
import type { StageOptions, Stages } from './listen/stages.js';
import type { ScenarioSummary, SuiteReport } from './types.js';
import { waiverReport, type Waiver } from './waivers.js';

export interface ScenarioStart {
  id: SenderScenarioId;
  /** 1-based position, and how many scenarios run. */
  index: number;
  total: number;
  /** CAI_TARGET_URL of the scenario. */
  targetUrl: string;
  /** What cai answers each document's attempts, e.g. `503 ×5, then 202`. */
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
  /** How long one delivery may take to settle, from its first attempt (default 60 s with a trigger, 5 min by hand). */
  waitMs?: number;
  /** After the last attempt of a scenario, how long cai listens for one more (default 2 s). */
  observeMs?: number;
  selection: Selection;
  /** Scenarios at once with a trigger (default 8; by hand: one at a time). */
  concurrency?: number;
  waivers?: readonly Waiver[];
  /** Where what the sender sent is saved for the failures; default a new directory under the temp dir. */
  reproDir?: string;
  /**
   * Writes a reproduction of each failing check (what the sender sent, saved; a command that judges it again). The
   * CLI's, or `senderReproducer(options)` for these options; without one, none is written.
   */
  reproducer?: ReproducerFactory;
  /** The trigger's environment (CAI_TARGET_URL and CAI_SCENARIO are added) and working directory. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Stops the run (Ctrl-C): the scenario under way ends, the rest do not run; their checks are not judged. */
  signal?: AbortSignal;
  /** The stateful phase (src/conformance/explore/sender.ts), on by default: its seed, budget, or one conversation to replay. */
  explore?: (ExploreRequest & { seed: number }) | false;
}

export async function runSenderConformance(options: SenderConformanceOptions): Promise<SuiteReport> {
  const startedAt = new Date();
  const plan = planRun('sender', options.interface, options.selection);
  const byHand = options.trigger === undefined;
  const waitMs = options.waitMs ?? (byHand ? DEFAULT_MANUAL_WAIT_MS : DEFAULT_WAIT_MS);
  const observeMs = options.observeMs ?? DEFAULT_OBSERVE_MS;
  const signal = options.signal ?? new AbortController().signal;
  // Every scenario under way waits on the signal (its stage, its trigger): with --concurrency over 8, more than
  // Node's warning threshold of 10.
  setMaxListeners(0, signal);
  const context = { ...options, waitMs, observeMs, signal };
  const stages = await openStages(context);
  const records: StageRecord[] = [];
  let exploration: SenderExploration | undefined;
  try {
    options.onListening?.(stages.publicBase);
    // Whatever the sender does, the scenarios end SENDER_RUN_CAPS.runWaits × --wait after the start (src/bounds.ts).
    const deadlineMono = performance.now() + SENDER_RUN_CAPS.runWaits * waitMs;
    const toRun = scenariosToRun(plan).map(scenario);
    // The timed scenario alone first; then the others and the stateful phase's conversations at once.
    records.push(
      ...(await playNamed(
        stages,
        toRun,
        toRun.filter((entry) => entry.alone || byHand),
        context,
        deadlineMono,
      )),
    );
    // The stateful phase's timed conversation plays alone too, before the rest start.
    let alonePlayed = () => {};
    const alone = new Promise<void>((resolve) => (alonePlayed = resolve));
    const explore = async () => {
      if (!options.explore || !stateChecksPlanned(plan) || signal.aborted || byHand) return undefined;
      const { exploreSender } = await import('./explore/sender.js');
      return exploreSender({
        stages,
        setup: options.explore,
        interface: options.interface,
        identity: options.identity,
        secrets: options.secrets,
        waitMs,
        observeMs,
        concurrency: options.concurrency ?? 8,
        signal,
        alonePlayed,
      });
    };
    const exploring = explore().finally(alonePlayed);
    await alone;
    const [others, explored] = await Promise.all([
      byHand
        ? []
        : playNamed(
            stages,
            toRun,
            toRun.filter((entry) => !entry.alone),
            context,
            deadlineMono,
          ),
      exploring,
    ]);
    records.push(...others);
    records.sort((a, b) => toRun.indexOf(a.scenario) - toRun.indexOf(b.scenario));
    exploration = explored;
    if (!byHand) await replayUndecided(stages, records, context, deadlineMono);
  } finally {
    await stages.close();
  }
  const generated = exploration?.records ?? [];
  if (!signal.aborted && records.length > 0 && records.every((record) => record.attempts.length === 0))
    throw silentSender(stages, records, byHand);
  const documentsPerRun = documentsPerRunOf(stages.played);
  const evidence: SenderEvidence = {
    interface: options.interface,
    identity: options.identity,
    secrets: options.secrets,
    waitMs,
    observeMs,
    records,
    ...(exploration ? { exploration } : {}),
    ...(documentsPerRun !== undefined ? { documentsPerRun } : {}),
  };
  const reproDir = resolve(
    options.cwd ?? process.cwd(),
    options.reproDir ??
      join(
        tmpdir(),
        `cai-conformance-sender-${startedAt.toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`,
      ),
  );
  const reproduce = options.reproducer?.({
    dir: reproDir,
    ...(exploration ? { seed: exploration.seed } : {}),
    received: {
      interface: options.interface,
      ...(options.secretLabel !== undefined ? { secretLabel: options.secretLabel } : {}),
      callbacks: false,
      records: () => [...records, ...generated],
    },
  });
  const recordsOf = (check: SenderCheck) =>
    isStateCheck(check.id)
      ? generated
      : records.filter((record) => (check.scenarios as readonly string[]).includes(record.scenario.id));
  const results = await judgeSenderChecks(plan.planned, evidence, {
    waivers: options.waivers ?? [],
    now: Date.now(),
    ...(reproduce ? { reproduce } : {}),
    complete: (check) =>
      !signal.aborted ||
      (isStateCheck(check.id)
        ? exploration !== undefined
        : check.scenarios.every((id) => records.some((record) => record.scenario.id === id && !record.interrupted))),
    silent: (check) => {
      const record = recordsOf(check).find((entry) => !entry.interrupted && entry.attempts.length === 0);
      return record ? { scenario: record.id, reason: triggerText(record) } : undefined;
    },
    measure: (check) => {
      const judged = recordsOf(check);
      return {
        // The time of the scenarios it judges: what running the check costs.
        durationMs: Math.round(
          Math.max(0, ...judged.map((record) => (record.endedMono ?? record.startedMono) - record.startedMono)),
        ),
        requests: judged.reduce((sum, record) => sum + record.attempts.length, 0),
      };
    },
    // Requests to no scenario's URL are no attempts; the address check says they came.
    notesFor: (check) =>
      check.tags.includes('http')
        ? [
            ...(stages.strayCount() > 0 ? [straysNote(stages)] : []),
            ...(stages.refused() > 0 ? [refusedNote(stages.refused())] : []),
          ]
        : [],
  });
  const summary = summarise(results);
  return {
    ok: summary.failed === 0 && !signal.aborted,
    version: runVersion(),
    target: stages.publicBase,
    interface: options.interface,
    mock: false,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    clock: senderClock(records),
    summary,
    checks: results,
    waivers: waiverReport(
      options.waivers ?? [],
      results,
      plan.planned.map((item) => item.check.id),
      Date.now(),
    ),
    ...(results.some((result) => result.repro) ? { reproDir } : {}),
    ...(signal.aborted ? { interrupted: true } : {}),
    role: 'sender',
    scenarios: [...records, ...generated].map((record) => summariseScenario(record, options.interface)),
    ...(options.explore && stateChecksPlanned(plan) ? { seed: options.explore.seed } : {}),
  };
}

function stateChecksPlanned(plan: ReturnType<typeof planRun>): boolean {
  return plan.planned.some((item) => item.skipReason === undefined && isStateCheck(item.check.id));
}

type PlayOptions = SenderConformanceOptions & { waitMs: number; observeMs: number; signal: AbortSignal };

/** Where a stage's sender is sent, and where its attempts must arrive: each stage has a path of its own. */
function openingOf(entry: Scenario, id: string, iface: InterfaceId, base: string, shared: boolean): StageOpening {
  const prefix = shared ? '' : `/${id}`;
  const spec = interfaceSpec(iface);
  // B's events URL is any URL: the scenario's path ends in /events, as a platform's might. A's is §4.1's appended to
  // the provider endpoint, which has a path of its own (/cai), as a provider's often does: a sender that resolves
  // `contact-jobs` against it as a relative URL loses that segment, and its jobs still come to the stage's prefix.
  const targetPath = spec.path === '' ? `${prefix}/events` : shared ? prefix : `${prefix}/cai`;
  return {
    scenario: entry,
    id,
    prefix,
    targetUrl: `${base}${targetPath}`,
    expectedPath: spec.path === '' ? targetPath : `${targetPath}${spec.path}`,
  };
}

async function openStages(options: PlayOptions): Promise<Stages> {
  const byHand = options.trigger === undefined;
  const recorder = new Recorder({ interface: options.interface, shared: byHand });
  const listen = options.listen ?? { host: '127.0.0.1', port: 0 };
  const listener = await startListener({
    host: listen.host,
    port: listen.port,
    tls: options.tls,
    option: 'listen',
    handle: (arrival) => recorder.handle(arrival),
  });
  const publicBase = (options.publicUrl ?? listener.url).replace(/\/+$/, '');
  const redact = (text: string) => redactSecrets(text, options.secrets);
  const played: StageRecord[] = [];
  return {
    publicBase,
    played,
    play: async (entry, stage) => {
      const record = await playStageOf(entry, stage, { ...options, recorder, redact, publicBase });
      played.push(record);
      return record;
    },
    strays: recorder.strays,
    strayCount: () => recorder.strayCount,
    refused: () => listener.refused(),
    close: () => listener.close(),
  };
}

/**
 * Some of the scenarios: with a trigger, at once (the slow ones started first); by hand, one at a time. Each ends by
 * its own bound and the run's (SENDER_RUN_CAPS).
 */
async function playNamed(
  stages: Stages,
  all: readonly Scenario[],
  toRun: readonly Scenario[],
  options: PlayOptions,
  deadlineMono: number,
): Promise<StageRecord[]> {
  const played = new Map<Scenario, StageRecord>();
  const next = async (entry: Scenario) => {
    if (performance.now() >= deadlineMono) return;
    played.set(
      entry,
      await stages.play(entry, { place: { index: all.indexOf(entry) + 1, total: all.length }, deadlineMono }),
    );
  };
  // Not every scenario at once: a sender of 20 documents at once in each of 12 scenarios comes near the listener's
  // 256 connections (LISTENER_CAPS), and a loaded machine then lost answers (seen in the zoo).
  const byHand = options.trigger === undefined;
  const ordered = byHand ? toRun : [...toRun.filter((entry) => entry.slow), ...toRun.filter((entry) => !entry.slow)];
  await pool(ordered, byHand ? 1 : Math.max(1, options.concurrency ?? 8), next, () => options.signal.aborted);
  return toRun.flatMap((entry) => played.get(entry) ?? []);
}

/** The terms of the model whose verdict is a measure of time: cai's own lag may leave them open. */
const TIMED_TERMS = new Set(['growth', 'retry-after', 'fresh']);

/**
 * A scenario whose timing cai's own lag left undecided (model: each arrival is known between two bounds) is played
 * again, alone, at most SENDER_RUN_CAPS.timingReplays times; the last play is the evidence.
 */
async function replayUndecided(
  stages: Stages,
  records: StageRecord[],
  options: PlayOptions,
  deadlineMono: number,
): Promise<void> {
  const undecided = (record: StageRecord) =>
    findingsOf({
      interface: options.interface,
      identity: options.identity,
      secrets: options.secrets,
      waitMs: options.waitMs,
      observeMs: options.observeMs,
      records: [record],
    }).some((finding) => finding.verdict === 'undecided' && TIMED_TERMS.has(finding.term));
  for (const [index, record] of records.entries()) {
    let current = record;
    for (
      let again = 1;
      again <= SENDER_RUN_CAPS.timingReplays &&
      undecided(current) &&
      !options.signal.aborted &&
      performance.now() < deadlineMono;
      again += 1
    ) {
      current = await stages.play(record.scenario, { id: `${record.scenario.id}-again-${again}`, deadlineMono });
      current.replays = again;
    }
    records[index] = current;
  }
}

/** No attempt in any scenario: nothing to judge (exit 3), with what the trigger did and where requests went. */
function silentSender(stages: Stages, records: readonly StageRecord[], byHand: boolean) {
  const [first] = records as [StageRecord];
  const count = records.length;
  const elsewhere = stages.strayCount() > 0 ? `; ${straysNote(stages)}` : '';
  return deliveryError(
    'no_attempts',
    `the sender sent nothing: no attempt arrived in ${count} scenario${count === 1 ? '' : 's'} (${triggerText(first)})${elsewhere}`,
    byHand
      ? `send to ${first.targetUrl} while cai waits, or pass ${optionName('trigger')} CMD`
      : 'run the trigger by hand with CAI_TARGET_URL set, and check that it makes the sender post there',
  );
}

function straysNote(stages: Pick<Stages, 'strays' | 'strayCount'>): string {
  const shown = [...new Set(stages.strays)].slice(0, 3).join(', ');
  const count = stages.strayCount();
  const one = count === 1;
  return `${count} request${one ? '' : 's'} came to no scenario's URL and ${one ? 'was' : 'were'} answered 404 (${shown})`;
}

function refusedNote(count: number): string {
  return `${count} request${count === 1 ? ' was' : 's were'} answered 408 or 503 and not recorded: a body too slow, too many bodies at once, or more than cai records in one run (docs/limits.md)`;
}

interface StageContext extends PlayOptions {
  recorder: Recorder;
  redact: (text: string) => string;
  publicBase: string;
}

/**
 * One stage: open it, start the trigger (or tell the person), and wait until it is over (listen/settle.ts): every
 * delivery settled, nothing more for --observe, the trigger exited; at the latest SENDER_RUN_CAPS.stageWaits ×
 * --wait after it started. A trigger that fails before any attempt ends the stage at once.
 */
async function playStageOf(entry: Scenario, stage: StageOptions, context: StageContext): Promise<StageRecord> {
  const { recorder, signal } = context;
  const startedMono = performance.now();
  const record = recorder.open(
    openingOf(entry, stage.id ?? entry.id, context.interface, context.publicBase, context.trigger === undefined),
    startedMono,
  );
  if (stage.place) {
    context.onScenarioStart?.({
      id: entry.id as SenderScenarioId,
      ...stage.place,
      targetUrl: record.targetUrl,
      script: describeScript(entry, context.interface),
      purpose: entry.purpose,
      byHand: context.trigger === undefined,
      waitMs: context.waitMs,
    });
  }
  const trigger =
    context.trigger === undefined
      ? undefined
      : startTrigger({
          command: context.trigger,
          env: { ...(context.env ?? process.env), CAI_TARGET_URL: record.targetUrl, CAI_SCENARIO: entry.id },
          cwd: context.cwd ?? process.cwd(),
          redact: context.redact,
        });
  let exited = trigger === undefined;
  let failedEarly = false;
  void trigger?.exited.then((outcome) => {
    exited = true;
    failedEarly = outcome.exitCode !== 0 && record.attempts.length === 0;
    recorder.notify();
  });
  const deadlineMono = Math.min(
    stage.deadlineMono,
    startedMono + SENDER_RUN_CAPS.stageWaits * context.waitMs + context.observeMs,
  );
  await playStage(recorder, record, {
    waitMs: context.waitMs,
    observeMs: context.observeMs,
    signal,
    senderDone: () => exited,
    failedEarly: () => failedEarly,
    deadlineMono,
  });
  // Interrupted: no grace, the trigger is stopped at once.
  if (trigger) record.trigger = await trigger.finish(signal.aborted ? 0 : TRIGGER_EXIT_GRACE_MS, TRIGGER_EXIT_GRACE_MS);
  if (stage.place) context.onScenarioEnd?.(summariseScenario(record, context.interface));
  return record;
}

export function summariseScenario(record: StageRecord, iface: InterfaceId): ScenarioSummary {
  const first = record.attempts[0];
  const end = record.endedMono ?? performance.now();
  const deliveries = deliveriesOf(record.attempts);
  const place = new Map(
    deliveries.flatMap((delivery, index) => delivery.attempts.map((attempt) => [attempt, index + 1] as const)),
  );
  return {
    id: record.id,
    targetUrl: record.targetUrl,
    script: describeScript(record.scenario, iface),
    deliveries: deliveries.length,
    attempts: record.attempts.map((attempt) => {
      const eventId = attemptEventId(attempt);
      return {
        at: Math.round(attempt.arrivedMono - record.startedMono),
        delivery: place.get(attempt) ?? 0,
        ...(eventId !== undefined ? { eventId } : {}),
        // The Retry-After as sent: an HTTP-date is a moment, not the script's "2 s ahead".
        answer:
          attempt.retryAfter && attempt.answer.kind === 'error'
            ? `${attempt.answer.status} (Retry-After: ${attempt.retryAfter.header})`
            : describeScripted(attempt.answer, iface),
        ...(attempt.late ? { late: true } : {}),
      };
    }),
    ...(first ? { firstAttemptMs: Math.round(first.arrivedMono - record.startedMono) } : {}),
    durationMs: Math.round(end - record.startedMono),
    ...(record.maxLagMs !== undefined ? { loopLagMs: record.maxLagMs } : {}),
    ...(record.trigger
      ? {
          trigger: {
            ...(record.trigger.exitCode !== undefined ? { exitCode: record.trigger.exitCode } : {}),
            ...(record.trigger.signal ? { signal: record.trigger.signal } : {}),
            ...(record.trigger.stoppedByCai ? { stoppedByCai: true } : {}),
          },
        }
      : {}),
  };
}

/** The sender's clock as its timestamps show it: the median of (timestamp − arrival) over well-formed ones. */
function senderClock(records: readonly StageRecord[]): SuiteReport['clock'] {
  const offsets = records
    .flatMap((record) => record.attempts)
    .filter((attempt) => /^[0-9]{1,12}$/.test(timestampOf(attempt) ?? ''))
    .map((attempt) => Number(timestampOf(attempt)) - Math.floor(attempt.arrivedAt / 1000))
    .sort((a, b) => a - b);
  const note = "the sender's clock as its X-CAI-Timestamp values show it, against cai's";
  if (offsets.length === 0) return { offsetSeconds: null, dateHeader: null, note };
  return { offsetSeconds: offsets[Math.floor(offsets.length / 2)] as number, dateHeader: null, note };
}
